#pragma once
/// The two lines that open a coordinate Matrix Market file: the banner
/// ("%%MatrixMarket matrix coordinate real symmetric") and, after any
/// comments, the size line ("rows columns entries").
#include <cstdint>

#include "gustav/io/source_error.hpp"
#include "gustav/io/text_scanner.hpp"

namespace gustav::detail {

enum class Field { real, integer, pattern, complex };
enum class Symmetry { general, symmetric, skew_symmetric, hermitian };

struct Header {
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;    ///< as stored in the file, before symmetric expansion
  std::int64_t size_line = 0;  ///< where later complaints about the counts point
};

/// The spelling Gustav reports ("real" also for files that say "double").
const char* field_name(Field field);
const char* symmetry_name(Symmetry symmetry);

/// Reads the banner from the scanner's first line and the size line after
/// it, and leaves the scanner at the start of the line after the size line.
/// Banner words are case-insensitive. Throws invalid_input naming the line.
Header read_header(TextScanner& scanner, const SourceName& source);

}  // namespace gustav::detail
