#pragma once
// Weak-scaling inputs built block by block: each rank generates only its own
// rows of a 3-D Laplacian on a box of nx x ny x nz points (z-planes split
// among the ranks) and of its Jacobi-smoothed aggregation prolongator, so no
// rank ever holds the whole matrix and no file is read.
#include <cstdint>

#include "gustav/generators.hpp"

namespace gustav::tool {

struct Box {
  std::int64_t nx = 0, ny = 0, nz = 0;
  int points = 7;  ///< 7 or 27
  std::int64_t rows() const { return nx * ny * nz; }
};

/// Rows [first, end) of the Laplacian on `box`, numbered and valued as
/// generators::laplace3d (row (z ny + y) nx + x; the diagonal is the full
/// stencil's neighbour count, every coupling -1). Global column indices.
generators::Matrix laplace_box_rows(const Box& box, std::int64_t first, std::int64_t end);

/// The tentative prolongator's column count on `box` for aggregates of
/// aggregate^3 points (the last along an axis takes what is left).
std::int64_t box_aggregates(const Box& box, int aggregate);

/// Rows [first, end) of P = (I - omega D^-1 A) P_tent, A the box Laplacian
/// and P_tent the tentative prolongator of generators::tentative_prolongator
/// (one unknown per point), as generators::jacobi_smoothed_prolongator
/// computes it for a cube. Global column indices.
generators::Matrix smoothed_prolongator_box_rows(const Box& box, int aggregate, double omega, std::int64_t first,
                                                 std::int64_t end);

}  // namespace gustav::tool
