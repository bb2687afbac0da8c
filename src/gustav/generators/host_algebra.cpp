// Serial host transpose and product, used to build multigrid operators and
// R x (A x P) benchmark inputs. Written for clarity, not speed; beyond the
// result they need O(columns) scratch.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gustav/generators.hpp"
#include "gustav/generators/checks.hpp"

namespace gustav::generators {

Matrix transpose(const Matrix& A) {
  detail::check_matrix("gustav::generators::transpose", "A", A);
  Matrix T;
  T.num_rows = A.num_cols;
  T.num_cols = A.num_rows;
  T.row_map.assign(A.num_cols + 1, 0);
  for (const auto j : A.entries) ++T.row_map[j + 1];
  for (std::int64_t j = 0; j < A.num_cols; ++j) T.row_map[j + 1] += T.row_map[j];

  // Visiting A's rows in order appends to each row of T in increasing
  // column order, so T comes out sorted without a sort.
  T.entries.resize(A.entries.size());
  T.values.resize(A.values.size());
  std::vector<std::int64_t> next(T.row_map.begin(), T.row_map.end() - 1);
  for (std::int64_t i = 0; i < A.num_rows; ++i) {
    for (std::int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const std::int64_t slot = next[A.entries[k]]++;
      T.entries[slot] = i;
      T.values[slot] = A.values[k];
    }
  }
  return T;
}

Matrix multiply(const Matrix& A, const Matrix& B) {
  const std::string who = "gustav::generators::multiply";
  detail::check_matrix(who, "A", A);
  detail::check_matrix(who, "B", B);
  if (A.num_cols != B.num_rows) {
    detail::fail(who,
                 "A has " + std::to_string(A.num_cols) + " columns but B has " + std::to_string(B.num_rows) + " rows");
  }

  Matrix C;
  C.num_rows = A.num_rows;
  C.num_cols = B.num_cols;
  C.row_map.reserve(A.num_rows + 1);
  // Dense accumulator: accumulator[j] holds row i's sum for column j while
  // owner[j] == i, so it never needs clearing between rows.
  std::vector<double> accumulator(B.num_cols, 0.0);
  std::vector<std::int64_t> owner(B.num_cols, -1);
  std::vector<std::int64_t> row_columns;
  for (std::int64_t i = 0; i < A.num_rows; ++i) {
    row_columns.clear();
    for (std::int64_t ka = A.row_map[i]; ka < A.row_map[i + 1]; ++ka) {
      const std::int64_t k = A.entries[ka];
      const double a = A.values[ka];
      for (std::int64_t kb = B.row_map[k]; kb < B.row_map[k + 1]; ++kb) {
        const std::int64_t j = B.entries[kb];
        if (owner[j] != i) {
          owner[j] = i;
          accumulator[j] = 0.0;
          row_columns.push_back(j);
        }
        // An explicit fused multiply-add rounds the same on every platform;
        // a * b + c would be fused or not at the compiler's discretion.
        accumulator[j] = std::fma(a, B.values[kb], accumulator[j]);
      }
    }
    std::sort(row_columns.begin(), row_columns.end());
    detail::check_limit(who, "entries of A * B", C.nnz() + static_cast<std::int64_t>(row_columns.size()));
    for (const auto j : row_columns) {
      C.entries.push_back(j);
      C.values.push_back(accumulator[j]);
    }
    C.row_map.push_back(C.nnz());
  }
  return C;
}

}  // namespace gustav::generators
