#include "slab_generator.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gustav::tool {
namespace {

struct Point {
  std::int64_t x, y, z;
};

Point point_of(const Box& b, std::int64_t row) { return {row % b.nx, row / b.nx % b.ny, row / (b.nx * b.ny)}; }

/// Calls f(column) for row's stencil neighbours and itself, columns ascending.
template <class F>
void for_each_coupling(const Box& b, std::int64_t row, F&& f) {
  const Point p = point_of(b, row);
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int away = (dx != 0) + (dy != 0) + (dz != 0);
        if (b.points == 7 && away > 1) continue;
        const std::int64_t x = p.x + dx, y = p.y + dy, z = p.z + dz;
        if (x < 0 || y < 0 || z < 0 || x >= b.nx || y >= b.ny || z >= b.nz) continue;
        f((z * b.ny + y) * b.nx + x);
      }
}

std::int64_t per_axis(std::int64_t n, int aggregate) { return (n + aggregate - 1) / aggregate; }

}  // namespace

generators::Matrix laplace_box_rows(const Box& b, std::int64_t first, std::int64_t end) {
  generators::Matrix M;
  M.num_rows = end - first;
  M.num_cols = b.rows();
  const double diagonal = b.points == 7 ? 6.0 : 26.0;
  for (std::int64_t row = first; row < end; ++row) {
    for_each_coupling(b, row, [&](std::int64_t col) {
      M.entries.push_back(col);
      M.values.push_back(col == row ? diagonal : -1.0);
    });
    M.row_map.push_back(M.nnz());
  }
  return M;
}

std::int64_t box_aggregates(const Box& b, int aggregate) {
  return per_axis(b.nx, aggregate) * per_axis(b.ny, aggregate) * per_axis(b.nz, aggregate);
}

generators::Matrix smoothed_prolongator_box_rows(const Box& b, int aggregate, double omega, std::int64_t first,
                                                 std::int64_t end) {
  const std::int64_t mx = per_axis(b.nx, aggregate), my = per_axis(b.ny, aggregate);
  const auto extent = [aggregate](std::int64_t c, std::int64_t n) {
    return std::min<std::int64_t>(aggregate, n - c / aggregate * aggregate);
  };
  // The tentative prolongator's one entry of a row: its aggregate and value.
  const auto tentative = [&](std::int64_t row, std::int64_t& column, double& value) {
    const Point p = point_of(b, row);
    column = (p.z / aggregate * my + p.y / aggregate) * mx + p.x / aggregate;
    value = 1.0 / std::sqrt(static_cast<double>(extent(p.x, b.nx) * extent(p.y, b.ny) * extent(p.z, b.nz)));
  };
  const auto A = laplace_box_rows(b, first, end);
  generators::Matrix P;
  P.num_rows = end - first;
  P.num_cols = box_aggregates(b, aggregate);
  std::map<std::int64_t, double> row_sum;
  for (std::int64_t i = 0; i < P.num_rows; ++i) {
    double diagonal = 0;
    for (auto k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] == first + i) diagonal += A.values[k];
    const double scale = omega / diagonal;
    row_sum.clear();
    for (auto k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const double s = -scale * A.values[k] + (A.entries[k] == first + i ? 1.0 : 0.0);
      std::int64_t column = 0;
      double value = 0;
      tentative(A.entries[k], column, value);
      auto [at, fresh] = row_sum.emplace(column, 0.0);
      at->second = std::fma(s, value, at->second);
      (void)fresh;
    }
    for (const auto& [column, value] : row_sum) {
      P.entries.push_back(column);
      P.values.push_back(value);
    }
    P.row_map.push_back(P.nnz());
  }
  return P;
}

}  // namespace gustav::tool
