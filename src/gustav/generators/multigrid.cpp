// Transfer operators of smoothed-aggregation algebraic multigrid on the
// structured grids of the stencil generators: the tentative prolongator of
// box-shaped aggregates and its Jacobi-smoothed version. They give realistic
// rectangular inputs for A * P and R * (A * P).
#include <algorithm>
#include <cmath>
#include <string>

#include "gustav/generators.hpp"
#include "gustav/generators/checks.hpp"

namespace gustav::generators {

Matrix tentative_prolongator(std::int64_t n, int dims, int aggregate, int dofs_per_node) {
  const std::string who = "gustav::generators::tentative_prolongator";
  detail::check_at_least(who, "n", n, 0);
  if (dims < 1 || dims > 3) detail::fail(who, "dims must be 1, 2 or 3, got " + std::to_string(dims));
  detail::check_at_least(who, "aggregate", aggregate, 1);
  detail::check_at_least(who, "dofs_per_node", dofs_per_node, 1);
  const std::int64_t points = detail::checked_power(who, "grid points", n, dims);
  const std::int64_t rows = detail::checked_product(who, "rows", points, dofs_per_node);

  // Axes beyond dims have one point and one aggregate.
  const std::int64_t per_axis = (n + aggregate - 1) / aggregate;
  const std::int64_t nx = n, ny = dims >= 2 ? n : 1, nz = dims >= 3 ? n : 1;
  const std::int64_t mx = per_axis, my = dims >= 2 ? per_axis : 1;
  const std::int64_t aggregates = detail::checked_power(who, "aggregates", per_axis, dims);
  // Points of the aggregate holding coordinate x along an axis of extent m:
  // `aggregate`, except for the last, which takes what is left.
  const auto extent = [aggregate](std::int64_t x, std::int64_t m) {
    const std::int64_t first = x / aggregate * aggregate;
    return std::min<std::int64_t>(aggregate, m - first);
  };

  Matrix P;
  P.num_rows = rows;
  P.num_cols = aggregates * dofs_per_node;
  P.row_map.reserve(rows + 1);
  P.entries.reserve(rows);
  P.values.reserve(rows);
  for (std::int64_t z = 0; z < nz; ++z) {
    for (std::int64_t y = 0; y < ny; ++y) {
      for (std::int64_t x = 0; x < nx; ++x) {
        const std::int64_t id = (z / aggregate * my + y / aggregate) * mx + x / aggregate;
        const std::int64_t size = extent(x, nx) * extent(y, ny) * extent(z, nz);
        // Each column's entries are equal and number `size`: unit norm.
        const double value = 1.0 / std::sqrt(static_cast<double>(size));
        for (int k = 0; k < dofs_per_node; ++k) {
          P.entries.push_back(id * dofs_per_node + k);
          P.values.push_back(value);
          P.row_map.push_back(P.nnz());
        }
      }
    }
  }
  return P;
}

Matrix jacobi_smoothed_prolongator(const Matrix& A, const Matrix& P_tent, double omega) {
  const std::string who = "gustav::generators::jacobi_smoothed_prolongator";
  detail::check_matrix(who, "A", A);
  detail::check_matrix(who, "P_tent", P_tent);
  if (A.num_rows != A.num_cols) {
    detail::fail(who, "A must be square, it is " + std::to_string(A.num_rows) + " x " + std::to_string(A.num_cols));
  }
  if (A.num_cols != P_tent.num_rows) {
    detail::fail(who, "A has " + std::to_string(A.num_cols) + " columns but P_tent has " +
                          std::to_string(P_tent.num_rows) + " rows");
  }
  if (!std::isfinite(omega)) detail::fail(who, "omega must be finite");

  // The smoother S = I - omega D^-1 A has A's structure (the identity lands on
  // A's diagonal entries), so P = S * P_tent is one exact product and keeps
  // the union of P_tent's and (A * P_tent)'s structure, dropping nothing.
  Matrix S = A;
  for (std::int64_t i = 0; i < A.num_rows; ++i) {
    double diagonal = 0.0;
    std::int64_t diagonal_slot = -1;
    for (std::int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      if (A.entries[k] != i) continue;
      diagonal += A.values[k];
      if (diagonal_slot < 0) diagonal_slot = k;
    }
    if (diagonal == 0.0) detail::fail(who, "A has a zero or missing diagonal in row " + std::to_string(i));
    const double scale = omega / diagonal;
    for (std::int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) S.values[k] = -scale * A.values[k];
    S.values[diagonal_slot] += 1.0;
  }
  return multiply(S, P_tent);
}

}  // namespace gustav::generators
