// Argument checks shared by the generators.
#include "gustav/generators/checks.hpp"

#include <locale>
#include <sstream>

#include "gustav/errors.hpp"

namespace gustav::generators::detail {

void fail(const std::string& who, const std::string& what) { throw invalid_input(who + ": " + what); }

std::string to_text(double value) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << value;
  return out.str();
}

void check_limit(const std::string& who, const std::string& what, std::int64_t count) {
  if (count < 0 || count > max_entries) {
    fail(who,
         what + " would be " + std::to_string(count) + ", beyond the limit of 2^36 (gustav::generators::max_entries)");
  }
}

std::int64_t checked_product(const std::string& who, const std::string& what, std::int64_t a, std::int64_t b) {
  // For a > 0, a * b <= max_entries exactly when b <= max_entries / a
  // (integer division), so the check never forms an overflowing product.
  if (a != 0 && b > max_entries / a) {
    fail(who, what + " would exceed the limit of 2^36 (gustav::generators::max_entries)");
  }
  return a * b;
}

std::int64_t checked_power(const std::string& who, const std::string& what, std::int64_t base, int exponent) {
  std::int64_t result = 1;
  for (int i = 0; i < exponent; ++i) result = checked_product(who, what, result, base);
  return result;
}

void check_at_least(const std::string& who, const std::string& name, std::int64_t value, std::int64_t minimum) {
  if (value < minimum) {
    fail(who, name + " must be at least " + std::to_string(minimum) + ", got " + std::to_string(value));
  }
}

void check_matrix(const std::string& who, const std::string& name, const Matrix& M) {
  const auto where = [&](const std::string& what) { fail(who, name + " " + what); };
  if (M.num_rows < 0 || M.num_cols < 0) where("has a negative dimension");
  if (static_cast<std::int64_t>(M.row_map.size()) != M.num_rows + 1) {
    where("has " + std::to_string(M.row_map.size()) + " row offsets for " + std::to_string(M.num_rows) + " rows");
  }
  if (M.values.size() != M.entries.size()) {
    where("has " + std::to_string(M.values.size()) + " values for " + std::to_string(M.entries.size()) + " entries");
  }
  if (M.row_map.front() != 0 || M.row_map.back() != M.nnz()) where("has row offsets that do not span its entries");
  for (std::int64_t i = 0; i < M.num_rows; ++i) {
    if (M.row_map[i + 1] < M.row_map[i]) where("has decreasing row offsets at row " + std::to_string(i));
  }
  for (const auto col : M.entries) {
    if (col < 0 || col >= M.num_cols) where("has column index " + std::to_string(col) + " out of range");
  }
}

}  // namespace gustav::generators::detail
