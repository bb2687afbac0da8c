// Reading and writing the fields of a spec string.
#include "gustav/generators/spec_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iomanip>
#include <limits>
#include <locale>
#include <sstream>

#include "gustav/errors.hpp"

namespace gustav::generators::detail {
namespace {

bool all_digits(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

/// Reads `text` (all digits) into `value`; false when it does not fit.
template <class Integer>
bool read_digits(const std::string& text, Integer& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

/// Reads a double in the classic "C" locale, so that a program which set a
/// locale with a decimal comma still parses "2.5".
double read_double(const std::string& text) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double value = 0.0;
  in >> value;
  return value;
}

}  // namespace

void spec_error(const std::string& spec, const std::string& problem) {
  throw invalid_input("gustav::generators::from_spec: " + quoted(spec) + ": " + problem);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = text.find(separator, begin);
    fields.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return fields;
    begin = end + 1;
  }
}

std::int64_t integer_field(const std::string& spec, const std::string& name, const std::string& text,
                           std::int64_t minimum, std::int64_t maximum) {
  if (!all_digits(text)) spec_error(spec, name + " must be an unsigned decimal integer, got " + quoted(text));
  std::int64_t value = 0;
  const bool fits = read_digits(text, value);
  if (fits && value >= minimum && value <= maximum) return value;
  if (maximum == std::numeric_limits<std::int64_t>::max()) {
    if (!fits) spec_error(spec, name + " does not fit in 64 bits, got " + text);
    spec_error(spec, name + " must be at least " + std::to_string(minimum) + ", got " + text);
  }
  spec_error(
      spec, name + " must be between " + std::to_string(minimum) + " and " + std::to_string(maximum) + ", got " + text);
}

std::uint64_t seed_field(const std::string& spec, const std::string& text) {
  if (!all_digits(text)) spec_error(spec, "SEED must be an unsigned decimal integer, got " + quoted(text));
  std::uint64_t value = 0;
  if (!read_digits(text, value)) spec_error(spec, "SEED does not fit in 64 bits, got " + text);
  return value;
}

double decimal_field(const std::string& spec, const std::string& name, const std::string& text) {
  const std::size_t point = text.find('.');
  const bool well_formed = point == std::string::npos
                               ? all_digits(text)
                               : all_digits(text.substr(0, point)) && all_digits(text.substr(point + 1));
  if (!well_formed) spec_error(spec, name + " must be a decimal number such as 4 or 2.5, got " + quoted(text));
  return read_double(text);
}

std::string shortest_decimal(double value) {
  // Fixed notation, so that the text is again a valid field (no exponent),
  // with ever more decimals until it reads back exactly. Every double has a
  // finite binary fraction, so some precision always does; 1100 covers the
  // smallest subnormal.
  std::string text;
  for (int decimals = 0; decimals <= 1100; ++decimals) {
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out << std::fixed << std::setprecision(decimals) << value;
    text = out.str();
    if (read_double(text) == value) break;
  }
  return text;
}

}  // namespace gustav::generators::detail
