#pragma once
// Random SpGEMM cases for the differential tests, each one a pure function of
// a 64-bit seed: the shapes of A and B, how dense they are, whether rows are
// unsorted, hold duplicates, are empty or one is long, the seeds of their
// entries and values, and the options. The same seed gives the same case on
// every platform and in every configuration (only the index and scalar types
// change), so a failure can be replayed from its seed alone.
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>

#include "gustav/options.hpp"
#include "support/random_csr.hpp"

namespace gustav::test {

struct DifferentialCase {
  std::uint64_t seed = 0;
  std::string shape;         ///< which family of shapes (m, k, n) came from
  RandomShape a, b;          ///< A is a.rows x a.cols, B is b.rows x b.cols, a.cols == b.rows
  std::string a_density, b_density;
  std::uint64_t a_seed = 0, b_seed = 0;  ///< seeds of the structures and first values
  std::uint64_t value_seed = 0;          ///< first seed of new values for reuse
  SpgemmOptions options;
};

namespace differential {

/// Picks a density for a matrix with `cols` columns: the mean row length
/// random_csr draws from (row lengths are uniform in [0, 2 * mean], capped
/// at `cols` unless the matrix holds duplicates).
inline double pick_density(Rng& rng, std::int64_t cols, std::string& name) {
  const double u = rng.uniform();
  const double c = static_cast<double>(std::max<std::int64_t>(cols, 1));
  if (u < 0.06) {
    name = "empty";
    return 0;
  }
  if (u < 0.30) {
    name = "very sparse";
    return rng.uniform();
  }
  if (u < 0.65) {
    name = "sparse";
    return 1 + 3 * rng.uniform();
  }
  if (u < 0.85) {
    name = "half";
    return c * (0.2 + 0.3 * rng.uniform());
  }
  if (u < 0.93) {
    name = "dense";  // about half the rows full
    return c;
  }
  name = "full";  // nearly every row full
  return 100 * c;
}

/// Row layout of one matrix: sortedness, duplicates, empty rows.
inline void pick_layout(Rng& rng, RandomShape& s) {
  s.sorted = rng.uniform() < 0.5;
  s.duplicates = rng.uniform() < 0.2;
  s.empty_rows = rng.uniform() < 0.25 ? 0.2 + 0.7 * rng.uniform() : 0.0;
}

/// One long row: longer than the matrix is wide (so with duplicates) or a
/// full row of a wide matrix.
inline void pick_long_row(Rng& rng, RandomShape& s) {
  if (s.rows == 0 || s.cols == 0) return;
  s.long_row = rng.below(s.rows);
  if (rng.uniform() < 0.5) {
    s.duplicates = true;
    s.long_row_length = s.cols + 1 + rng.below(8 * s.cols + 400);
  } else {
    s.long_row_length = s.cols;
  }
}

inline std::int64_t between(Rng& rng, std::int64_t lo, std::int64_t hi) { return lo + rng.below(hi - lo + 1); }

}  // namespace differential

/// The case of `seed`. Shapes are mostly at most 40 x 40; one case in thirty
/// has a wide inner dimension and a long row of A over it.
inline DifferentialCase make_differential_case(std::uint64_t seed) {
  using namespace differential;
  Rng rng(seed);
  DifferentialCase c;
  c.seed = seed;
  std::int64_t m = 0, k = 0, n = 0;
  bool big = false;
  const double u = rng.uniform();
  if (u < 0.22) {
    c.shape = "square";
    m = k = n = between(rng, 2, 40);
  } else if (u < 0.36) {
    c.shape = "tall";
    m = between(rng, 20, 40), k = between(rng, 1, 12), n = between(rng, 1, 12);
  } else if (u < 0.50) {
    c.shape = "wide";
    m = between(rng, 1, 12), k = between(rng, 1, 40), n = between(rng, 20, 40);
  } else if (u < 0.72) {
    c.shape = "rectangular";
    m = between(rng, 1, 40), k = between(rng, 1, 40), n = between(rng, 1, 40);
  } else if (u < 0.77) {
    c.shape = "0 x n";  // A has no rows
    m = 0, k = between(rng, 0, 40), n = between(rng, 1, 40);
  } else if (u < 0.82) {
    c.shape = "n x 0";  // B has no columns
    m = between(rng, 1, 40), k = between(rng, 1, 40), n = 0;
  } else if (u < 0.85) {
    c.shape = "inner 0";  // A m x 0 times B 0 x n
    m = between(rng, 1, 40), k = 0, n = between(rng, 1, 40);
  } else if (u < 0.89) {
    c.shape = "1 x 1";
    m = k = n = 1;
  } else if (u < 0.93) {
    c.shape = "outer product";  // m x 1 times 1 x n
    m = between(rng, 1, 40), k = 1, n = between(rng, 1, 40);
  } else if (u < 0.966) {
    c.shape = "inner product";  // 1 x k times k x 1
    m = 1, k = between(rng, 1, 40), n = 1;
  } else {
    c.shape = "long row";
    big = true;
    m = between(rng, 1, 40), k = between(rng, 100, 600), n = between(rng, 50, 600);
  }
  c.a.rows = m, c.a.cols = k;
  c.b.rows = k, c.b.cols = n;
  c.a.avg_per_row = pick_density(rng, k, c.a_density);
  c.b.avg_per_row = pick_density(rng, n, c.b_density);
  pick_layout(rng, c.a);
  pick_layout(rng, c.b);
  if (big) {
    // Keep the rest of a big case sparse; the long row is what it is for.
    c.a.avg_per_row = std::min(c.a.avg_per_row, 4.0), c.a_density = "sparse + long row";
    c.b.avg_per_row = std::min(c.b.avg_per_row, 8.0), c.b_density = "sparse";
    c.a.long_row = rng.below(m);
    c.a.long_row_length = between(rng, k / 2, k);
    if (c.a.duplicates) c.a.long_row_length *= 2;
  } else {
    if (rng.uniform() < 0.08) pick_long_row(rng, c.a);
    if (rng.uniform() < 0.04) pick_long_row(rng, c.b);
  }
  c.a_seed = rng.next();
  c.b_seed = rng.next();
  c.value_seed = rng.next();

  SpgemmOptions& o = c.options;
  o.sort_rows = rng.uniform() < 0.5;
  o.validate_indices = rng.uniform() < 0.8;
  o.compression = static_cast<Compression>(rng.below(3));
  o.accumulator = static_cast<Accumulator>(rng.below(3));
  o.cpu_mapping = static_cast<CpuMapping>(rng.below(2));
  o.keep_product_positions = rng.uniform() < 0.5;
  // One case in seven takes a colouring numeric phase (on every backend),
  // drawn last so that the other draws of a seed stay as they were.
  if (rng.uniform() < 0.15) o.accumulator = rng.uniform() < 0.5 ? Accumulator::mcr : Accumulator::mcw;
  // One case in seven is split between host and device (SpgemmOptions::
  // co_execution), with thresholds low enough that these small matrices
  // have heavy rows; drawn after the rest for the same reason.
  if (rng.uniform() < 0.15) {
    o.co_execution = CoExecution::always;
    o.heavy_a_row_nnz = between(rng, 1, 12);
    o.heavy_b_row_nnz = between(rng, 1, 12);
  }
  // Kept products in either layout, or chosen; drawn last, as above.
  if (o.keep_product_positions) o.kept_layout = static_cast<KeptLayout>(rng.below(3));
  // The opt-in learned positions in about a quarter of the cases, taken
  // from draws already made so that every case keeps its matrices.
  o.learn_product_positions = !o.keep_product_positions && o.sort_rows;
  return c;
}

inline const char* name_of(Compression c) {
  return c == Compression::automatic ? "automatic" : c == Compression::always ? "always" : "never";
}
inline const char* name_of(Accumulator a) {
  switch (a) {
    case Accumulator::automatic: return "automatic";
    case Accumulator::hash: return "hash";
    case Accumulator::dense: return "dense";
    case Accumulator::mcr: return "mcr";
    case Accumulator::mcw: return "mcw";
  }
  return "unknown";
}
inline const char* name_of(CpuMapping m) { return m == CpuMapping::automatic ? "automatic" : "hierarchical"; }
inline const char* name_of(KeptLayout k) {
  return k == KeptLayout::automatic ? "automatic" : k == KeptLayout::lists ? "lists" : "slots";
}

/// Everything about a case a reader needs to see what failed.
inline std::string describe(const DifferentialCase& c) {
  std::ostringstream s;
  auto matrix = [&](const char* name, const RandomShape& r, const std::string& density) {
    s << "  " << name << ": " << r.rows << " x " << r.cols << ", " << density << " (mean row length "
      << r.avg_per_row << "), " << (r.sorted ? "sorted" : "unsorted") << (r.duplicates ? ", duplicates" : "")
      << ", empty rows " << r.empty_rows;
    if (r.long_row >= 0) s << ", row " << r.long_row << " of length " << r.long_row_length;
    s << "\n";
  };
  s << "  shape: " << c.shape << "\n";
  matrix("A", c.a, c.a_density);
  matrix("B", c.b, c.b_density);
  s << "  options: sort_rows " << c.options.sort_rows << ", validate_indices " << c.options.validate_indices
    << ", compression " << name_of(c.options.compression) << ", accumulator " << name_of(c.options.accumulator)
    << ", cpu_mapping " << name_of(c.options.cpu_mapping) << ", keep_product_positions "
    << c.options.keep_product_positions;
  if (c.options.keep_product_positions) s << " (" << name_of(c.options.kept_layout) << ")";
  if (c.options.learn_product_positions) s << ", learn_product_positions";
  if (c.options.co_execution == CoExecution::always)
    s << ", co_execution always, heavy rows from " << c.options.heavy_a_row_nnz << " (A) and "
      << c.options.heavy_b_row_nnz << " (B) entries";
  s << "\n";
  return s.str();
}

}  // namespace gustav::test
