/// Parses and checks the banner and size line of a Matrix Market file.
#include "gustav/io/header.hpp"

#include <cctype>
#include <string>
#include <string_view>

#include "gustav/io/number_parsing.hpp"

namespace gustav::detail {

namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string quoted(std::string_view word) { return "'" + std::string(word) + "'"; }

/// One or more decimal digits, optionally after a '+'.
bool is_decimal_count(std::string_view word) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  if (word.empty()) return false;
  for (const char c : word)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

const char* const incomplete_banner =
    "incomplete banner; expected '%%MatrixMarket matrix coordinate <field> <symmetry>'";

Field parse_field(std::string_view word, const SourceName& source) {
  if (equals_ignoring_case(word, "real") || equals_ignoring_case(word, "double")) return Field::real;
  if (equals_ignoring_case(word, "integer")) return Field::integer;
  if (equals_ignoring_case(word, "pattern")) return Field::pattern;
  if (equals_ignoring_case(word, "complex")) return Field::complex;
  if (word.empty()) throw_invalid_input(source, 1, incomplete_banner);
  throw_invalid_input(source, 1, "unknown field " + quoted(word) + "; expected real, integer, pattern or complex");
}

Symmetry parse_symmetry(std::string_view word, const SourceName& source) {
  if (equals_ignoring_case(word, "general")) return Symmetry::general;
  if (equals_ignoring_case(word, "symmetric")) return Symmetry::symmetric;
  if (equals_ignoring_case(word, "skew-symmetric")) return Symmetry::skew_symmetric;
  if (equals_ignoring_case(word, "hermitian")) return Symmetry::hermitian;
  if (word.empty()) throw_invalid_input(source, 1, incomplete_banner);
  throw_invalid_input(source, 1,
                      "unknown symmetry " + quoted(word) + "; expected general, symmetric, skew-symmetric or hermitian");
}

/// The Matrix Market definition pairs skew-symmetry with numbers and
/// hermitian with complex numbers only.
void check_combination(Field field, Symmetry symmetry, const SourceName& source) {
  const bool allowed = !(field == Field::pattern && symmetry == Symmetry::skew_symmetric) &&
                       !(field != Field::complex && symmetry == Symmetry::hermitian);
  if (!allowed)
    throw_invalid_input(source, 1,
                        std::string(symmetry_name(symmetry)) + " storage is not allowed for " + field_name(field) +
                            " matrices");
}

void read_banner(TextScanner& scanner, Header& header, const SourceName& source) {
  if (scanner.at_end()) throw_invalid_input(source, 1, "empty file; expected a %%MatrixMarket banner");
  if (!equals_ignoring_case(scanner.next_token(), "%%MatrixMarket"))
    throw_invalid_input(source, 1, "missing %%MatrixMarket banner");

  const std::string_view object = scanner.next_token();
  if (object.empty()) throw_invalid_input(source, 1, incomplete_banner);
  if (!equals_ignoring_case(object, "matrix"))
    throw_invalid_input(source, 1, "unsupported object " + quoted(object) + "; only 'matrix' is supported");

  const std::string_view format = scanner.next_token();
  if (format.empty()) throw_invalid_input(source, 1, incomplete_banner);
  if (equals_ignoring_case(format, "array"))
    throw_invalid_input(source, 1, "array format is not supported; only coordinate");
  if (!equals_ignoring_case(format, "coordinate"))
    throw_invalid_input(source, 1, "unknown format " + quoted(format) + "; expected coordinate");

  header.field = parse_field(scanner.next_token(), source);
  header.symmetry = parse_symmetry(scanner.next_token(), source);
  const std::string_view rest = scanner.rest_of_line();
  if (!rest.empty()) throw_invalid_input(source, 1, "unexpected text " + quoted(rest) + " after the banner");
  check_combination(header.field, header.symmetry, source);
  scanner.next_line();
}

void read_size_line(TextScanner& scanner, Header& header, const SourceName& source) {
  if (!scanner.skip_to_content()) throw_invalid_input(source, scanner.last_line(), "missing size line");
  header.size_line = scanner.line();
  const std::string_view line = scanner.rest_of_line();
  const std::string bad_line = "bad size line " + quoted(line) + "; expected 'rows columns entries'";

  TextScanner words(line);
  std::int64_t counts[3];
  for (std::int64_t& count : counts) {
    const std::string_view word = words.next_token();
    if (!parse_integer(word, count)) {
      // A count of digits alone fails only by leaving the 64-bit range;
      // saying so beats calling the line malformed.
      if (is_decimal_count(word))
        throw_invalid_input(source, header.size_line,
                            "bad size line " + quoted(line) + "; " + quoted(word) + " is beyond the 64-bit range");
      throw_invalid_input(source, header.size_line, bad_line);
    }
  }
  if (!words.next_token().empty()) throw_invalid_input(source, header.size_line, bad_line);
  if (counts[0] < 0 || counts[1] < 0 || counts[2] < 0)
    throw_invalid_input(source, header.size_line, "bad size line " + quoted(line) + "; counts cannot be negative");
  header.rows = counts[0];
  header.cols = counts[1];
  header.entries = counts[2];

  if (header.symmetry != Symmetry::general && header.rows != header.cols)
    throw_invalid_input(source, header.size_line,
                        std::string("a ") + symmetry_name(header.symmetry) + " matrix must be square, but the size line says " +
                            std::to_string(header.rows) + " x " + std::to_string(header.cols));
  scanner.next_line();
}

}  // namespace

const char* field_name(Field field) {
  switch (field) {
    case Field::real: return "real";
    case Field::integer: return "integer";
    case Field::pattern: return "pattern";
    case Field::complex: return "complex";
  }
  return "unknown";
}

const char* symmetry_name(Symmetry symmetry) {
  switch (symmetry) {
    case Symmetry::general: return "general";
    case Symmetry::symmetric: return "symmetric";
    case Symmetry::skew_symmetric: return "skew-symmetric";
    case Symmetry::hermitian: return "hermitian";
  }
  return "unknown";
}

Header read_header(TextScanner& scanner, const SourceName& source) {
  Header header;
  read_banner(scanner, header, source);
  read_size_line(scanner, header, source);
  return header;
}

}  // namespace gustav::detail
