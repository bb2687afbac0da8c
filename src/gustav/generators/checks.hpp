#pragma once
// Argument checks shared by the generators: size arithmetic that cannot
// overflow, the max_entries limit, and the structure of input matrices.
#include <cstdint>
#include <string>

#include "gustav/generators.hpp"

namespace gustav::generators::detail {

/// Throws gustav::invalid_input with "who: what".
[[noreturn]] void fail(const std::string& who, const std::string& what);

/// `value` for a message: shortest general form in the "C" locale ("1.2").
std::string to_text(double value);

/// a * b for non-negative a, b; throws when it exceeds max_entries (which
/// also rules out int64 overflow). `what` names the quantity in the message.
std::int64_t checked_product(const std::string& who, const std::string& what, std::int64_t a, std::int64_t b);

/// base^exponent for base >= 0, exponent >= 0, checked as above.
std::int64_t checked_power(const std::string& who, const std::string& what, std::int64_t base, int exponent);

/// Throws unless 0 <= count <= max_entries.
void check_limit(const std::string& who, const std::string& what, std::int64_t count);

/// Throws unless value >= minimum, naming the argument.
void check_at_least(const std::string& who, const std::string& name, std::int64_t value, std::int64_t minimum);

/// Checks what the host algorithms rely on to stay in bounds: non-negative
/// sizes, row_map of num_rows + 1 non-decreasing offsets from 0 to nnz, as many
/// values as entries, columns in [0, num_cols). Rows may be unsorted.
void check_matrix(const std::string& who, const std::string& name, const Matrix& M);

}  // namespace gustav::generators::detail
