/// The slow path of parse_real, kept out of line so the entry loop stays small.
#include "gustav/io/number_parsing.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace gustav::detail {

bool parse_unusual_real(std::string_view token, double& value) {
  // Rewrite a Fortran exponent letter as 'e'; anything else that from_chars
  // refused stays as it is and fails again below.
  std::string copy(token);
  for (char& c : copy)
    if (c == 'd' || c == 'D') c = 'e';
  const char* first = skip_plus(copy.data(), copy.data() + copy.size());
  const char* last = copy.data() + copy.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ptr != last || first == last) return false;
  if (ec == std::errc()) return true;
  if (ec != std::errc::result_out_of_range) return false;
  // from_chars leaves `value` untouched when out of range and does not say
  // which way; strtod rounds underflow to a (signed) zero and overflow to
  // infinity, which is the one we refuse.
  char* parsed_to = nullptr;
  const double rounded = std::strtod(first, &parsed_to);
  if (parsed_to != last || std::isinf(rounded)) return false;
  value = rounded;
  return true;
}

}  // namespace gustav::detail
