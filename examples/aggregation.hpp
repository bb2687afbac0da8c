#pragma once
// Aggregation for the AMG setup example: which fine nodes form each coarse
// node, as a tentative prolongator. Done on the host: it is a sequential
// greedy pass over the node graph, and the levels it runs on (every level
// below the finest grid) are small.
#include <cstdint>

#include "gustav/generators.hpp"

namespace gustav::examples {

using HostMatrix = generators::Matrix;

/// Greedy aggregation of the node graph of A (node u holds rows
/// dofs*u .. dofs*u + dofs - 1; nodes u and v are neighbours when A couples
/// any of their rows), in the three phases of smoothed aggregation:
///   1. a node whose neighbours are all free becomes a root: it and its
///      neighbours form an aggregate;
///   2. a free node joins the aggregate of a neighbour aggregated in phase 1;
///   3. nodes still free (their neighbours all free after phase 2, rare)
///      form aggregates with their free neighbours.
/// Every connection counts as strong: the operators of this example (3D
/// Laplacian, elasticity brick and their Galerkin products) couple
/// neighbours with comparable weights.
///
/// Returns the tentative prolongator: row dofs*u + k has one entry, in
/// column dofs*g + k for u's aggregate g, of value 1/sqrt(|g|), so its
/// columns are orthonormal (constants per unknown are interpolated exactly).
/// Precondition: A is square with a multiple of dofs rows.
HostMatrix greedy_tentative_prolongator(const HostMatrix& A, int dofs);

}  // namespace gustav::examples
