#pragma once
/// What a distance-2 colouring of C's rows costs, before it is run: every
/// pair of rows that share a column of C is a conflict the colouring must
/// look at, so its work grows with the sum over C's columns of the square
/// of the rows holding each. On stencils and multigrid products that sum is
/// a few dozen times the product's own work; on power-law products, whose
/// hub columns are held by thousands of rows, it is hundreds of times (C of
/// rmat:12:8: 435 row pairs per product, coloured in 283 ms against a
/// numeric phase of 5 ms, on two threads) and grows with the square of the
/// hubs (rmat:16:8 did not finish in five minutes on an H200). The colouring
/// numeric phase refuses such products rather than keep its caller waiting.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <sstream>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// Row pairs per product (or per entry of C, where there are more) that a
/// colouring may visit, beyond a fixed allowance for small products.
constexpr std::int64_t colouring_pairs_per_product = 64;
constexpr std::int64_t colouring_pairs_allowance = std::int64_t(1) << 24;

/// Whether a colouring that visits `pairs` row pairs is worth running for a
/// product of `products` products and `nnz` entries.
inline bool colouring_within_limit(double pairs, std::int64_t products, std::int64_t nnz) {
  const double work = static_cast<double>(products > nnz ? products : nnz);
  return pairs <= colouring_pairs_per_product * work + static_cast<double>(colouring_pairs_allowance);
}

/// Counts the rows holding each column of C.
template <class Entries, class Counts>
struct CountColumnRows {
  Entries entries;
  Counts counts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t q) const {
    Kokkos::atomic_add(&counts(static_cast<std::int64_t>(entries(q))), std::int64_t(1));
  }
};

/// Sum over columns of the square of their row counts, as a double (a
/// limit needs no exact count).
template <class Counts>
struct SumOfSquares {
  Counts counts;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t c, double& sum) const {
    const auto n = static_cast<double>(counts(c));
    sum += n * n;
  }
};

/// Row pairs sharing a column of the structure `entries` over `num_cols`
/// columns (each row paired with itself too).
template <class ExecSpace, class Entries>
double row_pairs_sharing_columns(const ExecSpace& space, const Entries& entries, std::int64_t num_cols,
                                 TempMemory& temp) {
  using Device = typename Entries::device_type;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  auto counts = temp.allocate<Kokkos::View<std::int64_t*, Device>>(space, "gustav::colouring::column_rows",
                                                                   static_cast<std::size_t>(num_cols), true);
  Kokkos::parallel_for("gustav::colouring::count_column_rows",
                       Policy(space, 0, static_cast<std::int64_t>(entries.extent(0))),
                       CountColumnRows<Entries, decltype(counts)>{entries, counts});
  double pairs = 0;
  Kokkos::parallel_reduce("gustav::colouring::row_pairs", Policy(space, 0, num_cols),
                          SumOfSquares<decltype(counts)>{counts}, pairs);
  space.fence();
  temp.release(counts);
  return pairs;
}

/// Throws invalid_input, naming `who` and the cost, where the colouring of
/// C (`nnz` entries over `num_cols` columns, `products` products) is past
/// colouring_within_limit.
template <class ExecSpace, class Entries>
void check_colouring_work(const ExecSpace& space, const Entries& entries, std::int64_t num_cols,
                          std::int64_t products, const char* who, TempMemory& temp) {
  const auto nnz = static_cast<std::int64_t>(entries.extent(0));
  if (nnz == 0) return;
  const double pairs = row_pairs_sharing_columns(space, entries, num_cols, temp);
  if (colouring_within_limit(pairs, products, nnz)) return;
  std::ostringstream s;
  s << who << ": the colouring numeric phase (Accumulator::mcr / mcw) would have its colouring visit about "
    << pairs << " pairs of rows sharing a column of C, " << pairs / static_cast<double>(products > nnz ? products : nnz)
    << " per product, past the limit of " << colouring_pairs_per_product
    << " (C has columns held by very many rows, as power-law products do); use Accumulator::automatic";
  throw invalid_input(s.str());
}

}  // namespace gustav::detail
