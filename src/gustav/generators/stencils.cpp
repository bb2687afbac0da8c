// Operators on structured grids: the 2D and 3D Laplacians, the elasticity-like
// brick and band matrices. Rows come out sorted because grid points and
// stencil offsets are both visited in (z, y, x) order.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "gustav/generators.hpp"
#include "gustav/generators/checks.hpp"

namespace gustav::generators {
namespace {

struct GridOffset {
  int dx, dy, dz;
  bool is_self() const { return dx == 0 && dy == 0 && dz == 0; }
};

/// The offsets of the 3^dims cube around a point in (dz, dy, dx) order, only
/// those that change one coordinate when faces_only (the 5- and 7-point
/// stencils).
std::vector<GridOffset> stencil_offsets(int dims, bool faces_only) {
  const int reach_y = dims >= 2 ? 1 : 0;
  const int reach_z = dims >= 3 ? 1 : 0;
  std::vector<GridOffset> offsets;
  for (int dz = -reach_z; dz <= reach_z; ++dz) {
    for (int dy = -reach_y; dy <= reach_y; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        if (faces_only && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
        offsets.push_back({dx, dy, dz});
      }
    }
  }
  return offsets;
}

/// How the dense dofs x dofs block coupling two grid points is filled.
struct BlockValues {
  double self_diagonal;      ///< a point's own block, diagonal
  double self_off_diagonal;  ///< a point's own block, off the diagonal
  double neighbour_diagonal;
  double neighbour_off_diagonal;

  double at(bool self, int row_dof, int col_dof) const {
    if (self) return row_dof == col_dof ? self_diagonal : self_off_diagonal;
    return row_dof == col_dof ? neighbour_diagonal : neighbour_off_diagonal;
  }
};

/// The operator on an n^dims grid (axes beyond dims have extent 1) with
/// `dofs` unknowns per point, row dofs*point + k, coupling every point to its
/// in-grid neighbours among `offsets` by a dense block.
Matrix grid_operator(const std::string& who, std::int64_t n, int dims, const std::vector<GridOffset>& offsets, int dofs,
                     const BlockValues& values) {
  detail::check_at_least(who, "n", n, 0);
  const std::int64_t nx = n, ny = dims >= 2 ? n : 1, nz = dims >= 3 ? n : 1;
  const std::int64_t points = detail::checked_power(who, "grid points", n, dims);
  const std::int64_t rows = detail::checked_product(who, "rows", points, dofs);

  // Exact nnz: along an axis of extent m, offset 0 pairs m points and +-1
  // pairs m - 1, and the axes are independent.
  const auto pairs = [](std::int64_t m, int d) { return d == 0 ? m : std::max<std::int64_t>(m - 1, 0); };
  std::int64_t point_pairs = 0;
  for (const auto& o : offsets) {
    const std::int64_t xy = detail::checked_product(who, "entries", pairs(nx, o.dx), pairs(ny, o.dy));
    point_pairs += detail::checked_product(who, "entries", xy, pairs(nz, o.dz));
    detail::check_limit(who, "entries", point_pairs);
  }
  const std::int64_t nnz = detail::checked_product(who, "entries", point_pairs, std::int64_t(dofs) * dofs);

  Matrix M;
  M.num_rows = rows;
  M.num_cols = rows;
  M.row_map.reserve(rows + 1);
  M.entries.reserve(nnz);
  M.values.reserve(nnz);
  std::vector<std::pair<std::int64_t, bool>> neighbours;  // (point, is the point itself)
  for (std::int64_t z = 0; z < nz; ++z) {
    for (std::int64_t y = 0; y < ny; ++y) {
      for (std::int64_t x = 0; x < nx; ++x) {
        neighbours.clear();
        for (const auto& o : offsets) {
          const std::int64_t qx = x + o.dx, qy = y + o.dy, qz = z + o.dz;
          if (qx < 0 || qx >= nx || qy < 0 || qy >= ny || qz < 0 || qz >= nz) continue;
          neighbours.emplace_back((qz * ny + qy) * nx + qx, o.is_self());
        }
        for (int k = 0; k < dofs; ++k) {
          for (const auto& [q, self] : neighbours) {
            for (int l = 0; l < dofs; ++l) {
              M.entries.push_back(q * dofs + l);
              M.values.push_back(values.at(self, k, l));
            }
          }
          M.row_map.push_back(M.nnz());
        }
      }
    }
  }
  return M;
}

/// A scalar Laplacian: the diagonal counts the full stencil's neighbours.
Matrix laplacian(const std::string& who, std::int64_t n, int dims, bool faces_only) {
  const auto offsets = stencil_offsets(dims, faces_only);
  const double neighbours = static_cast<double>(offsets.size() - 1);
  return grid_operator(who, n, dims, offsets, 1, BlockValues{neighbours, 0.0, -1.0, 0.0});
}

}  // namespace

Matrix laplace2d(std::int64_t n, int points) {
  const std::string who = "gustav::generators::laplace2d";
  if (points != 5 && points != 9) detail::fail(who, "points must be 5 or 9, got " + std::to_string(points));
  return laplacian(who, n, 2, points == 5);
}

Matrix laplace3d(std::int64_t n, int points) {
  const std::string who = "gustav::generators::laplace3d";
  if (points != 7 && points != 27) detail::fail(who, "points must be 7 or 27, got " + std::to_string(points));
  return laplacian(who, n, 3, points == 7);
}

Matrix elasticity_brick(std::int64_t n) {
  // 54 on the diagonal beats the 26 neighbour blocks' 1 + 0.5 + 0.5 plus the
  // own block's 0.5 + 0.5: strict diagonal dominance makes it SPD.
  const BlockValues values{54.0, 0.5, -1.0, -0.5};
  return grid_operator("gustav::generators::elasticity_brick", n, 3, stencil_offsets(3, false), 3, values);
}

Matrix banded(std::int64_t n, std::int64_t half_bandwidth) {
  const std::string who = "gustav::generators::banded";
  detail::check_at_least(who, "n", n, 0);
  detail::check_at_least(who, "half_bandwidth", half_bandwidth, 0);
  detail::check_limit(who, "rows", n);
  // Rows near the ends lose what falls outside the matrix: h(h + 1) in all.
  const std::int64_t h = std::min(half_bandwidth, std::max<std::int64_t>(n - 1, 0));
  const std::int64_t nnz = detail::checked_product(who, "entries", n, 2 * h + 1) - h * (h + 1);

  const double diagonal = 2.0 * static_cast<double>(half_bandwidth) + 1.0;
  Matrix M;
  M.num_rows = n;
  M.num_cols = n;
  M.row_map.reserve(n + 1);
  M.entries.reserve(nnz);
  M.values.reserve(nnz);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = std::max<std::int64_t>(i - h, 0); j <= std::min(i + h, n - 1); ++j) {
      M.entries.push_back(j);
      M.values.push_back(i == j ? diagonal : -1.0);
    }
    M.row_map.push_back(M.nnz());
  }
  return M;
}

Matrix arrow(std::int64_t n) {
  const std::string who = "gustav::generators::arrow";
  detail::check_at_least(who, "n", n, 0);
  detail::check_limit(who, "rows", n);
  const std::int64_t nnz = n > 0 ? detail::checked_product(who, "entries", 3, n) - 2 : 0;
  detail::check_limit(who, "entries", nnz);
  Matrix M;
  M.num_rows = n;
  M.num_cols = n;
  M.row_map.reserve(n + 1);
  M.entries.reserve(nnz);
  M.values.reserve(nnz);
  for (std::int64_t i = 0; i < n; ++i) {
    if (i == 0) {
      for (std::int64_t j = 0; j < n; ++j) {
        M.entries.push_back(j);
        M.values.push_back(j == 0 ? static_cast<double>(n) : -1.0);
      }
    } else {
      M.entries.push_back(0);
      M.values.push_back(-1.0);
      M.entries.push_back(i);
      M.values.push_back(static_cast<double>(n));
    }
    M.row_map.push_back(M.nnz());
  }
  return M;
}

}  // namespace gustav::generators
