#pragma once
/// Reading one field of an entry line. Both passes over the entries
/// (row_layout.hpp, entries.hpp) read indices through these, so that they
/// agree on every line the second pass accepts.
#include <cstdint>
#include <string_view>

#include "gustav/io/number_parsing.hpp"
#include "gustav/io/text_scanner.hpp"

namespace gustav::detail {

/// The scanner's one-pass fast path first; when it declines (a sign, a
/// stray character, a Fortran exponent), the whole token through the
/// careful parser. On failure `token` holds what was there, empty at the
/// line's end.
inline bool read_integer_field(TextScanner& scanner, std::int64_t& value, std::string_view& token) {
  if (scanner.read_plain_integer(value)) return true;
  token = scanner.next_token();
  return parse_integer(token, value);
}

inline bool read_real_field(TextScanner& scanner, double& value, std::string_view& token) {
  if (scanner.read_plain_real(value)) return true;
  token = scanner.next_token();
  return parse_real(token, value);
}

}  // namespace gustav::detail
