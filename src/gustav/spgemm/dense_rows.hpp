#pragma once
/// How the thread-per-row numeric phase (CPUs) sums its dense rows, one way
/// per plan, chosen in symbolic.hpp and carried out in numeric_pass.hpp.

namespace gustav::detail {

enum class DenseRows {
  /// A position in the row per column of B; products add straight into C
  /// (dense_row).
  positions,
  /// A value per column of B beside the positions, copied to C after the
  /// row (summed_dense_row): where A streams through B and both fit a
  /// core's L2.
  summed,
  /// B too wide for a position per column: a word of absent columns and
  /// the first position per 32 columns, a product's position by popcount
  /// (ranked_dense_row).
  ranked,
  /// A ring of values indexed by the column's low bits, at least as wide as
  /// every row of C's span of columns (ring_dense_row): where A streams
  /// through B and a value per column would not fit.
  ring,
  /// A small hash table of the row's columns and positions, sized by the
  /// row (hashed_dense_row): where a position per column of B outgrows a
  /// core's L2 and no ring holds the rows (random columns), so a product's
  /// lookup stays in the core's own cache.
  hashed,
};

/// The name SpgemmStats::numeric_rows reports.
inline const char* dense_rows_name(DenseRows rows) {
  switch (rows) {
    case DenseRows::summed:
      return "summed";
    case DenseRows::ranked:
      return "ranked";
    case DenseRows::ring:
      return "ring";
    case DenseRows::hashed:
      return "hashed";
    case DenseRows::positions:
      break;
  }
  return "positions";
}

}  // namespace gustav::detail
