/// The entry loop of the Matrix Market reader: the part of reading that
/// touches every byte, so it is specialised per field and allocates nothing
/// per line.
#include "gustav/io/entries.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/io/entry_fields.hpp"

namespace gustav::detail {

namespace {

std::string quoted(std::string_view word) { return "'" + std::string(word) + "'"; }

const char* entry_layout(Field field) {
  switch (field) {
    case Field::pattern: return "row and column";
    case Field::complex: return "row, column, real part and imaginary part";
    default: return "row, column and value";
  }
}

/// Explains why a field did not read: it is missing, or it is not a number.
[[noreturn]] void throw_bad_field(std::string_view token, const std::string& what, Field field, std::int64_t line,
                                  const SourceName& source) {
  if (token.empty()) throw_invalid_input(source, line, std::string("incomplete entry; expected ") + entry_layout(field));
  throw_invalid_input(source, line, "bad " + what + " " + quoted(token));
}

/// A 1-based index checked against its extent, returned 0-based.
std::int64_t read_index(TextScanner& scanner, std::int64_t extent, const char* what, const char* plural, Field field,
                        std::int64_t line, const SourceName& source) {
  std::int64_t index = 0;
  std::string_view token;
  if (!read_integer_field(scanner, index, token)) throw_bad_field(token, std::string(what) + " index", field, line, source);
  if (index < 1 || index > extent) {
    const std::string range = extent == 0 ? std::string("; the matrix has no ") + plural : " 1.." + std::to_string(extent);
    throw_invalid_input(source, line, std::string(what) + " index " + std::to_string(index) + " is out of range" + range);
  }
  return index - 1;
}

double read_value(TextScanner& scanner, Field field, const char* what, std::int64_t line, const SourceName& source) {
  std::string_view token;
  if (field == Field::integer) {
    std::int64_t value = 0;
    if (!read_integer_field(scanner, value, token)) throw_bad_field(token, std::string("integer ") + what, field, line, source);
    return static_cast<double>(value);
  }
  double value = 0;
  if (!read_real_field(scanner, value, token)) throw_bad_field(token, what, field, line, source);
  return value;
}

/// Symmetric storage keeps one triangle; the definition says the lower one,
/// but files written upper-first exist and expand to the same matrix. A file
/// with entries on both sides would double them once mirrored, so it is
/// refused at the first entry on the second side.
class OneTriangleCheck {
 public:
  void observe(std::int64_t row, std::int64_t col, std::int64_t line, Symmetry symmetry, const SourceName& source) {
    const int side = row > col ? -1 : 1;
    if (side_ == 0) {
      side_ = side;
      first_row_ = row;
      first_col_ = col;
      first_line_ = line;
    } else if (side != side_) {
      throw_invalid_input(source, line,
                          "entry " + position(row, col) + " is " + side_name(side) + " the diagonal, but line " +
                              std::to_string(first_line_) + " has " + position(first_row_, first_col_) + " " +
                              side_name(side_) + " it; " + symmetry_name(symmetry) +
                              " storage keeps only one triangle");
    }
  }

 private:
  static const char* side_name(int side) { return side < 0 ? "below" : "above"; }
  static std::string position(std::int64_t row, std::int64_t col) {
    return "(" + std::to_string(row + 1) + ", " + std::to_string(col + 1) + ")";
  }

  int side_ = 0;
  std::int64_t first_row_ = 0, first_col_ = 0, first_line_ = 0;
};

/// The second half of the counting sort: next[i] is row i's first free
/// slot. The bound check turns a disagreement with the counting pass (a bug,
/// not bad input) into an exception instead of a write out of bounds.
template <Field F>
class SlotWriter {
 public:
  explicit SlotWriter(ParsedMatrix& m) : m_(m), next_(m.row_map.begin(), m.row_map.end() - 1) {}

  void put(std::int64_t row, std::int64_t col, double real, double imag) {
    std::int64_t& slot = next_[static_cast<std::size_t>(row)];
    if (slot == m_.row_map[static_cast<std::size_t>(row) + 1])
      throw internal_error("gustav::read_matrix_market: the counting pass left row " + std::to_string(row) +
                           " too few slots");
    const auto k = static_cast<std::size_t>(slot++);
    m_.entries[k] = col;
    if constexpr (F != Field::pattern) m_.real[k] = real;
    if constexpr (F == Field::complex) m_.imag[k] = imag;
  }

 private:
  ParsedMatrix& m_;
  std::vector<std::int64_t> next_;
};

template <Field F>
void place_entries_of(TextScanner& scanner, const Header& header, const SourceName& source, ParsedMatrix& m) {
  const bool mirror = header.symmetry != Symmetry::general;
  const bool skew = header.symmetry == Symmetry::skew_symmetric;
  // The mirror of a skew-symmetric entry is negated; of a hermitian one,
  // conjugated (only the imaginary part flips).
  const double mirror_real = skew ? -1.0 : 1.0;
  const double mirror_imag = skew || header.symmetry == Symmetry::hermitian ? -1.0 : 1.0;
  SlotWriter<F> slots(m);
  OneTriangleCheck triangle;
  std::int64_t stored = 0;
  while (scanner.skip_to_content()) {
    const std::int64_t line = scanner.line();
    if (stored == header.entries)
      throw_invalid_input(source, line,
                          "more entries than the " + std::to_string(header.entries) + " the size line announces");
    const std::int64_t row = read_index(scanner, header.rows, "row", "rows", F, line, source);
    const std::int64_t col = read_index(scanner, header.cols, "column", "columns", F, line, source);
    double real = 1;
    double imag = 0;
    if constexpr (F == Field::complex) {
      real = read_value(scanner, F, "real part", line, source);
      imag = read_value(scanner, F, "imaginary part", line, source);
    } else if constexpr (F != Field::pattern) {
      real = read_value(scanner, F, "value", line, source);
    }
    // Pattern entries have no value by definition, yet files in the
    // SuiteSparse collection (Pajek/Ragusa16, say) carry one anyway; it is
    // ignored. Text after a real, integer or complex entry is an error.
    scanner.skip_blanks();
    if (F != Field::pattern && !scanner.at_line_end())
      throw_invalid_input(source, line, "unexpected text " + quoted(scanner.rest_of_line()) + " after the entry");

    if (row == col) {
      if (skew && (real != 0 || imag != 0))
        throw_invalid_input(source, line,
                            "skew-symmetric matrix has a nonzero diagonal entry at (" + std::to_string(row + 1) + ", " +
                                std::to_string(col + 1) + ")");
      slots.put(row, col, real, imag);
    } else {
      if (mirror) triangle.observe(row, col, line, header.symmetry, source);
      slots.put(row, col, real, imag);
      if (mirror) slots.put(col, row, mirror_real * real, mirror_imag * imag);
    }
    ++stored;
    scanner.next_line();
  }
  if (stored < header.entries)
    throw_invalid_input(source, scanner.last_line(),
                        "the size line announces " + std::to_string(header.entries) + " entries but the file has only " +
                            std::to_string(stored));
}

}  // namespace

void place_entries(TextScanner& scanner, const Header& header, const SourceName& source, ParsedMatrix& m) {
  switch (header.field) {
    case Field::real: place_entries_of<Field::real>(scanner, header, source, m); break;
    case Field::integer: place_entries_of<Field::integer>(scanner, header, source, m); break;
    case Field::pattern: place_entries_of<Field::pattern>(scanner, header, source, m); break;
    case Field::complex: place_entries_of<Field::complex>(scanner, header, source, m); break;
  }
}

}  // namespace gustav::detail
