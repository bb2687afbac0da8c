#pragma once
/// The first of the reader's two passes over the entry lines: a counting
/// sort's count, taken on the text itself, so that the second pass can put
/// each entry straight into its CSR slot and no file-order copy of the
/// entries is ever stored.
#include <cstdint>
#include <vector>

#include "gustav/io/header.hpp"
#include "gustav/io/text_scanner.hpp"

namespace gustav::detail {

/// The CSR row_map of the matrix after symmetric expansion (an off-diagonal
/// entry (i, j) of symmetric storage also counts for row j). Reads only the
/// indices of the first `header.entries` entry lines (the column only for
/// symmetric storage), from a copy of the scanner, and checks nothing: a
/// line with an unreadable index may be counted or not, since the placing
/// pass rejects it before it uses the layout.
std::vector<std::int64_t> count_row_layout(TextScanner scanner, const Header& header);

}  // namespace gustav::detail
