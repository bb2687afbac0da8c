#pragma once
/// The second of the reader's two passes over the entry lines: reads every
/// entry in full, checks it, and puts it (and its mirror, for symmetric
/// storage) straight into its CSR slot.
#include "gustav/io/header.hpp"
#include "gustav/io/parsed_matrix.hpp"
#include "gustav/io/source_error.hpp"
#include "gustav/io/text_scanner.hpp"

namespace gustav::detail {

/// Reads exactly `header.entries` entries, skipping blank and comment lines,
/// from the scanner's position to the end of the text, into `m`, whose
/// row_map comes from count_row_layout and whose entries, real and imag
/// arrays are already sized. Each row receives its entries in file order;
/// the mirror of (i, j) is (j, i) with the value negated for skew-symmetric
/// and conjugated for hermitian storage.
///
/// Throws invalid_input naming the offending line when a number does not
/// parse, an index is outside the size line's bounds, a line holds too few
/// or too many fields, the file holds more or fewer entries than announced,
/// a symmetric file stores entries on both sides of the diagonal, or a
/// skew-symmetric one has a nonzero diagonal entry.
void place_entries(TextScanner& scanner, const Header& header, const SourceName& source, ParsedMatrix& m);

}  // namespace gustav::detail
