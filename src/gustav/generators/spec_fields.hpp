#pragma once
// The pieces of a spec string ("lap3d:120:7/rap:2"): splitting it into fields
// and reading and writing its numbers, with errors that name the spec.
#include <cstdint>
#include <string>
#include <vector>

namespace gustav::generators::detail {

/// Throws gustav::invalid_input "gustav::generators::from_spec: "<spec>": <problem>".
[[noreturn]] void spec_error(const std::string& spec, const std::string& problem);

/// `text` cut at every `separator`; empty fields stay, so "a::b" has three.
std::vector<std::string> split(const std::string& text, char separator);

/// A field of decimal digits (no sign, no spaces) read as an integer in
/// [minimum, maximum]; `name` is how the grammar calls the field.
std::int64_t integer_field(const std::string& spec, const std::string& name, const std::string& text,
                           std::int64_t minimum, std::int64_t maximum);

/// A field of decimal digits read as any 64-bit unsigned integer.
std::uint64_t seed_field(const std::string& spec, const std::string& text);

/// A field "digits" or "digits.digits" read as a double (correctly rounded,
/// whatever the global locale).
double decimal_field(const std::string& spec, const std::string& name, const std::string& text);

/// The shortest fixed-point text (no exponent) that reads back as `value`:
/// "2.5", "4", "0.00001". Precondition: value finite and non-negative.
std::string shortest_decimal(double value);

}  // namespace gustav::generators::detail
