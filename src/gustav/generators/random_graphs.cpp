// Random sparse matrices: R-MAT power-law graphs and uniform (Erdos-Renyi)
// patterns. Both draw a list of positions, then sort it into CSR with
// repeated positions merged.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gustav/generators.hpp"
#include "gustav/generators/checks.hpp"
#include "gustav/generators/random.hpp"

namespace gustav::generators {
namespace {

/// Positions drawn by a random generator, as two parallel arrays.
struct EdgeList {
  std::vector<std::int64_t> rows;
  std::vector<std::int64_t> cols;
};

/// CSR from drawn positions: a counting sort by row, then sort and unique
/// within each row, compacting in place. Values come from signed_value(), so
/// they do not depend on how often or in which order a position was drawn.
Matrix assemble(std::int64_t num_rows, std::int64_t num_cols, EdgeList edges, std::uint64_t seed) {
  Matrix M;
  M.num_rows = num_rows;
  M.num_cols = num_cols;
  M.row_map.assign(num_rows + 1, 0);
  for (const auto r : edges.rows) ++M.row_map[r + 1];
  for (std::int64_t i = 0; i < num_rows; ++i) M.row_map[i + 1] += M.row_map[i];

  M.entries.resize(edges.cols.size());
  std::vector<std::int64_t> next(M.row_map.begin(), M.row_map.end() - 1);
  for (std::size_t e = 0; e < edges.cols.size(); ++e) M.entries[next[edges.rows[e]]++] = edges.cols[e];
  edges = EdgeList{};
  next = {};

  std::int64_t read = 0, write = 0;
  for (std::int64_t i = 0; i < num_rows; ++i) {
    const auto begin = M.entries.begin() + read;
    const auto end = M.entries.begin() + M.row_map[i + 1];
    std::sort(begin, end);
    const auto last = std::unique(begin, end);
    write = std::copy(begin, last, M.entries.begin() + write) - M.entries.begin();
    read = M.row_map[i + 1];
    M.row_map[i + 1] = write;
  }
  M.entries.resize(write);
  M.entries.shrink_to_fit();

  M.values.resize(write);
  for (std::int64_t i = 0; i < num_rows; ++i) {
    for (std::int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k) {
      M.values[k] = detail::signed_value(seed, i, M.entries[k]);
    }
  }
  return M;
}

void check_probability(const std::string& who, const char* name, double value) {
  if (!(value >= 0.0 && value <= 1.0)) {
    detail::fail(who, std::string(name) + " must be in [0, 1], got " + detail::to_text(value));
  }
}

}  // namespace

Matrix rmat(const RmatParams& p) {
  const std::string who = "gustav::generators::rmat";
  if (p.scale < 1 || p.scale > 40) detail::fail(who, "scale must be between 1 and 40, got " + std::to_string(p.scale));
  detail::check_at_least(who, "edge_factor", p.edge_factor, 1);
  check_probability(who, "a", p.a);
  check_probability(who, "b", p.b);
  check_probability(who, "c", p.c);
  // Cumulative thresholds of the four quadrants; d takes what is left, so a
  // sum a + b + c just above 1 from rounding only makes d empty.
  const double ab = p.a + p.b, abc = p.a + p.b + p.c;
  if (abc > 1.0 + 1e-12) detail::fail(who, "a + b + c must be at most 1, got " + detail::to_text(abc));

  const std::int64_t vertices = std::int64_t(1) << p.scale;
  detail::check_limit(who, "rows", vertices);
  const std::int64_t edge_count = detail::checked_product(who, "edges", p.edge_factor, vertices);

  detail::Rng rng(p.seed);
  EdgeList edges;
  edges.rows.resize(edge_count);
  edges.cols.resize(edge_count);
  for (std::int64_t e = 0; e < edge_count; ++e) {
    // One quadrant per level, most significant bit first; the same
    // probabilities at every level (no noise).
    std::int64_t row = 0, col = 0;
    for (int level = 0; level < p.scale; ++level) {
      // Branch-free, as the quadrants are unpredictable by design: the three
      // comparisons are monotone in u, so quadrant b and d are those where
      // an odd number of them hold.
      const double u = rng.uniform();
      const int past_a = u >= p.a, past_b = u >= ab, past_c = u >= abc;
      row = (row << 1) | past_b;                      // quadrants c, d
      col = (col << 1) | (past_a ^ past_b ^ past_c);  // quadrants b, d
    }
    edges.rows[e] = row;
    edges.cols[e] = col;
  }
  return assemble(vertices, vertices, std::move(edges), p.seed);
}

Matrix erdos_renyi(std::int64_t rows, std::int64_t cols, double avg_per_row, std::uint64_t seed) {
  const std::string who = "gustav::generators::erdos_renyi";
  detail::check_at_least(who, "rows", rows, 0);
  detail::check_at_least(who, "cols", cols, 0);
  detail::check_limit(who, "rows", rows);
  if (!(avg_per_row >= 0.0 && std::isfinite(avg_per_row))) {
    detail::fail(who, "avg_per_row must be finite and non-negative, got " + detail::to_text(avg_per_row));
  }
  const double wanted = avg_per_row * static_cast<double>(rows);
  if (wanted > static_cast<double>(max_entries)) {
    detail::fail(who, "avg_per_row * rows would exceed the limit of 2^36 (gustav::generators::max_entries)");
  }
  // An empty row or column range leaves nowhere to put an entry.
  const std::int64_t count = rows > 0 && cols > 0 ? std::llround(wanted) : 0;

  detail::Rng rng(seed);
  EdgeList edges;
  edges.rows.resize(count);
  edges.cols.resize(count);
  for (std::int64_t e = 0; e < count; ++e) {
    edges.rows[e] = rng.below(rows);
    edges.cols[e] = rng.below(cols);
  }
  return assemble(rows, cols, std::move(edges), seed);
}

}  // namespace gustav::generators
