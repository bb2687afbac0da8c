#pragma once
// Random CSR matrices for the tests, reproducible from a seed on every
// platform (splitmix64, no <random> distributions whose output varies).
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "gustav/host_csr.hpp"

namespace gustav::test {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  /// Uniform integer in [0, n), n > 0.
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t state_;
};

/// A value away from zero, so that cancellation is rare and a missing product
/// always shows.
template <class S>
S random_value(Rng& rng) {
  auto one = [&]() {
    const double v = 0.25 + 0.75 * rng.uniform();
    return rng.next() & 1 ? v : -v;
  };
  if constexpr (std::is_arithmetic_v<S>) {
    return static_cast<S>(one());
  } else {
    using R = typename S::value_type;
    const R re = static_cast<R>(one());
    const R im = static_cast<R>(one());
    return S(re, im);
  }
}

struct RandomShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  double avg_per_row = 4;        ///< row lengths uniform in [0, 2 * avg]
  double empty_rows = 0.0;       ///< fraction of rows forced empty
  bool sorted = true;            ///< columns ascending within a row
  bool duplicates = false;       ///< columns may repeat within a row
  std::int64_t long_row = -1;    ///< index of one row made long (or -1)
  std::int64_t long_row_length = 0;
};

template <class S, class O, class Z>
HostCsr<S, O, Z> random_csr(const RandomShape& shape, std::uint64_t seed) {
  Rng rng(seed);
  HostCsr<S, O, Z> m;
  m.num_rows = static_cast<O>(shape.rows);
  m.num_cols = static_cast<O>(shape.cols);
  m.row_map.assign(static_cast<std::size_t>(shape.rows) + 1, 0);
  for (std::int64_t i = 0; i < shape.rows; ++i) {
    std::int64_t len = 0;
    if (shape.cols > 0 && rng.uniform() >= shape.empty_rows)
      len = rng.below(static_cast<std::int64_t>(2 * shape.avg_per_row) + 1);
    if (i == shape.long_row) len = shape.long_row_length;
    if (!shape.duplicates) len = std::min(len, shape.cols);
    std::vector<std::int64_t> cols;
    if (shape.duplicates) {
      for (std::int64_t t = 0; t < len; ++t) cols.push_back(rng.below(shape.cols));
    } else if (len * 3 > shape.cols) {
      // Dense-ish row: choose by a pass over all columns.
      std::vector<std::int64_t> all(static_cast<std::size_t>(shape.cols));
      for (std::int64_t c = 0; c < shape.cols; ++c) all[c] = c;
      for (std::int64_t t = 0; t < len; ++t) std::swap(all[t], all[t + rng.below(shape.cols - t)]);
      cols.assign(all.begin(), all.begin() + len);
    } else {
      std::set<std::int64_t> seen;
      while (static_cast<std::int64_t>(seen.size()) < len) seen.insert(rng.below(shape.cols));
      cols.assign(seen.begin(), seen.end());
    }
    if (shape.sorted) {
      std::sort(cols.begin(), cols.end());
    } else {
      for (std::int64_t t = static_cast<std::int64_t>(cols.size()) - 1; t > 0; --t) std::swap(cols[t], cols[rng.below(t + 1)]);
    }
    for (auto c : cols) {
      m.entries.push_back(static_cast<O>(c));
      m.values.push_back(random_value<S>(rng));
    }
    m.row_map[i + 1] = static_cast<Z>(m.entries.size());
  }
  return m;
}

/// R-MAT power-law graph (Graph500 parameters a = 0.57, b = c = 0.19),
/// 2^scale vertices, edge_factor * 2^scale edges, duplicates merged.
template <class S, class O, class Z>
HostCsr<S, O, Z> random_rmat(int scale, int edge_factor, std::uint64_t seed) {
  Rng rng(seed);
  const std::int64_t n = std::int64_t(1) << scale;
  std::vector<std::set<std::int64_t>> rows(static_cast<std::size_t>(n));
  for (std::int64_t e = 0; e < n * edge_factor; ++e) {
    std::int64_t r = 0, c = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = rng.uniform();
      const int quadrant = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
      r = 2 * r + (quadrant >> 1);
      c = 2 * c + (quadrant & 1);
    }
    rows[r].insert(c);
  }
  HostCsr<S, O, Z> m;
  m.num_rows = m.num_cols = static_cast<O>(n);
  m.row_map.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    for (auto c : rows[i]) {
      m.entries.push_back(static_cast<O>(c));
      m.values.push_back(random_value<S>(rng));
    }
    m.row_map[i + 1] = static_cast<Z>(m.entries.size());
  }
  return m;
}

}  // namespace gustav::test
