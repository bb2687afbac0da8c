#pragma once
/// Whole-token number parsing for the Matrix Market reader, built on
/// std::from_chars (no locale, no allocation, no stream per token). A token
/// parses only if every character of it belongs to the number. The entry
/// loop comes here only when the scanner's one-pass fast path declines a
/// token (TextScanner::read_plain_integer / read_plain_real), and for the
/// size line.
#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace gustav::detail {

/// Drops a leading '+', which from_chars does not take but Fortran writers
/// emit; "+-1" stays invalid.
inline const char* skip_plus(const char* first, const char* last) {
  if (last - first >= 2 && first[0] == '+' && first[1] != '-' && first[1] != '+') return first + 1;
  return first;
}

/// A signed decimal integer that fits 64 bits; a leading '+' is allowed.
inline bool parse_integer(std::string_view token, std::int64_t& value) {
  const char* last = token.data() + token.size();
  const char* first = skip_plus(token.data(), last);
  const auto [ptr, ec] = std::from_chars(first, last, value);
  return ec == std::errc() && ptr == last;
}

/// The rare cases of parse_real: Fortran exponents and out-of-range values.
bool parse_unusual_real(std::string_view token, double& value);

/// A double in decimal or scientific notation, or inf / nan; a leading '+' is
/// allowed, and so is Fortran's 'D' exponent ("1.5D+03"), which files
/// converted from Harwell-Boeing still carry. Values too small for a double
/// read as zero; values too large for one are rejected.
inline bool parse_real(std::string_view token, double& value) {
  const char* last = token.data() + token.size();
  const char* first = skip_plus(token.data(), last);
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc() && ptr == last) return true;
  return parse_unusual_real(token, value);
}

}  // namespace gustav::detail
