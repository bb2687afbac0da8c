// Greedy aggregation of a node graph and the tentative prolongator it defines.
#include "aggregation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gustav::examples {
namespace {

constexpr std::int64_t free_node = -1;

/// Neighbours of every node (self excluded), as a CSR-like pair of arrays.
struct NodeGraph {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int64_t> neighbours;
};

NodeGraph node_graph(const HostMatrix& A, int dofs) {
  const std::int64_t nodes = A.num_rows / dofs;
  NodeGraph g;
  std::vector<std::int64_t> row_nodes;
  for (std::int64_t u = 0; u < nodes; ++u) {
    row_nodes.clear();
    for (std::int64_t r = u * dofs; r < (u + 1) * dofs; ++r)
      for (std::int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) row_nodes.push_back(A.entries[k] / dofs);
    std::sort(row_nodes.begin(), row_nodes.end());
    row_nodes.erase(std::unique(row_nodes.begin(), row_nodes.end()), row_nodes.end());
    for (const auto v : row_nodes)
      if (v != u) g.neighbours.push_back(v);
    g.offsets.push_back(static_cast<std::int64_t>(g.neighbours.size()));
  }
  return g;
}

}  // namespace

HostMatrix greedy_tentative_prolongator(const HostMatrix& A, int dofs) {
  if (dofs < 1 || A.num_rows != A.num_cols || A.num_rows % dofs != 0)
    throw std::invalid_argument("greedy_tentative_prolongator: A must be square with a multiple of " +
                                std::to_string(dofs) + " rows");
  const std::int64_t nodes = A.num_rows / dofs;
  const NodeGraph g = node_graph(A, dofs);
  auto neighbours_of = [&](std::int64_t u) {
    return std::make_pair(g.neighbours.begin() + g.offsets[u], g.neighbours.begin() + g.offsets[u + 1]);
  };

  std::vector<std::int64_t> aggregate(static_cast<std::size_t>(nodes), free_node);
  std::int64_t count = 0;
  // Phase 1: roots with entirely free neighbourhoods.
  for (std::int64_t u = 0; u < nodes; ++u) {
    if (aggregate[u] != free_node) continue;
    const auto [first, last] = neighbours_of(u);
    if (std::any_of(first, last, [&](std::int64_t v) { return aggregate[v] != free_node; })) continue;
    aggregate[u] = count;
    std::for_each(first, last, [&](std::int64_t v) { aggregate[v] = count; });
    ++count;
  }
  // Phase 2: join a neighbouring phase-1 aggregate (decided before any
  // phase-2 assignment, so aggregates do not grow chains).
  const std::vector<std::int64_t> after_phase1 = aggregate;
  for (std::int64_t u = 0; u < nodes; ++u) {
    if (aggregate[u] != free_node) continue;
    const auto [first, last] = neighbours_of(u);
    const auto it = std::find_if(first, last, [&](std::int64_t v) { return after_phase1[v] != free_node; });
    if (it != last) aggregate[u] = after_phase1[*it];
  }
  // Phase 3: whatever is left.
  for (std::int64_t u = 0; u < nodes; ++u) {
    if (aggregate[u] != free_node) continue;
    aggregate[u] = count;
    const auto [first, last] = neighbours_of(u);
    std::for_each(first, last, [&](std::int64_t v) {
      if (aggregate[v] == free_node) aggregate[v] = count;
    });
    ++count;
  }

  std::vector<std::int64_t> size(static_cast<std::size_t>(count), 0);
  for (const auto a : aggregate) ++size[a];
  HostMatrix P;
  P.num_rows = A.num_rows;
  P.num_cols = count * dofs;
  P.row_map.reserve(A.num_rows + 1);
  for (std::int64_t u = 0; u < nodes; ++u) {
    const double value = 1.0 / std::sqrt(static_cast<double>(size[aggregate[u]]));
    for (int k = 0; k < dofs; ++k) {
      P.entries.push_back(aggregate[u] * dofs + k);
      P.values.push_back(value);
      P.row_map.push_back(P.nnz());
    }
  }
  return P;
}

}  // namespace gustav::examples
