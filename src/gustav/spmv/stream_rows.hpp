#pragma once
/// SpMV's kernel for matrices of short rows on GPUs (CSR-stream): a team
/// takes a block of consecutive rows, its threads first compute the
/// products of the block's entries into team scratch, thread k taking
/// entries k, k + T, k + 2T, ... (T: the team's threads), so that the loads
/// of A's values and columns are coalesced whatever the rows' lengths; then
/// each thread sums its rows' products from scratch and stores them, thread
/// k taking rows k, k + T, ... so that the stores are coalesced too. With a
/// worker per row (SpmvRows), a warp on rows of five entries loads five
/// strided words per lane: band:1000000:5 moved 36 % of the H200's DRAM
/// bandwidth that way.
///
/// Rows longer than medium_row are listed for SpmvListedRows as SpmvRows
/// lists them (their products in scratch go unused), and a block whose
/// entries do not fit the scratch (a long row in it, or longer rows than
/// the mapping expected) is summed a thread per row from global memory
/// instead. Either way a row's products are added in entry order; which
/// way a block goes depends only on the matrix and the mapping, so
/// repeated calls give the same bits (the two ways may differ in the last
/// bit where the compiler fuses a product and its addition).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/spmv/spmv_kernels.hpp"

namespace gustav::detail {

/// The most team scratch the streaming kernel takes for its products: the
/// six teams of 256 threads its launch bound puts on a multiprocessor keep
/// their scratch (144 KB) within the 228 KB of an H100's or H200's shared
/// memory.
constexpr std::int64_t spmv_stream_scratch_bytes = 24 * 1024;

template <class ExecSpace, class Operands>
struct SpmvStreamRows {
  /// At most 40 registers a thread on CUDA, six teams a multiprocessor: at
  /// SpmvRows' 32 the four products in flight spilled, and the kernel was
  /// slower than SpmvRows (H200, lap3d:120: 0.113 ms against 0.090 at 40).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>,
                                    Kokkos::LaunchBounds<row_mapping_threads_per_team, 6>>;
  using Member = typename Policy::member_type;
  using scalar = typename Operands::scalar;
  using Products = Kokkos::View<scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  Operands op;
  SpmvLists<ExecSpace> lists;
  std::int64_t rows_per_team = 1;
  std::int64_t capacity = 0;    ///< products the team's scratch holds
  std::int64_t medium_row = 0;  ///< longer rows are listed for a warp each
  std::int64_t long_row = 0;    ///< longer rows are listed for a team each

  /// Row i, of entries [b, e), summed by the calling thread with its
  /// products from `get`, or listed when it is long.
  template <class Get>
  KOKKOS_INLINE_FUNCTION void row(const std::int64_t i, const std::int64_t b, const std::int64_t e,
                                  const Get& get) const {
    if (e - b > medium_row) {
      list_or_sum_row(lists, op, i, b, e, long_row);
      return;
    }
    scalar sum = scalar();
    for (std::int64_t p = b; p < e; ++p) sum += get(p);
    op.store(i, sum);
  }

  /// products(k) = A's product from + k for k in [0, n), thread t taking
  /// k = t, t + T, ... (T threads), four at a time: their loads are issued
  /// before any store, which the compiler cannot move them past (the
  /// scratch might alias A). One product at a time, the kernel was slower
  /// than SpmvRows (H200, lap3d:120: 0.134 ms against 0.105).
  KOKKOS_INLINE_FUNCTION void store_products(const Member& team, const Products& products, const std::int64_t from,
                                             const std::int64_t n) const {
    constexpr int batch = 4;
    const std::int64_t threads = team.team_size();
    std::int64_t k = team.team_rank();
    for (; k + (batch - 1) * threads < n; k += batch * threads) {
      scalar p[batch];
      for (int j = 0; j < batch; ++j) p[j] = op.product(from + k + j * threads);
      for (int j = 0; j < batch; ++j) products(k + j * threads) = p[j];
    }
    for (; k < n; k += threads) products(k) = op.product(from + k);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    if (!lists.check(team, op)) return;
    const std::int64_t stride = static_cast<std::int64_t>(team.league_size()) * rows_per_team;
    for (std::int64_t first = team.league_rank() * rows_per_team; first < op.num_rows; first += stride) {
      const std::int64_t last = first + rows_per_team < op.num_rows ? first + rows_per_team : op.num_rows;
      const std::int64_t from = op.begin(first);
      const std::int64_t to = op.end(last - 1, from);
      if (to - from > capacity) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, last - first), [&](const std::int64_t q) {
          const std::int64_t i = first + q;
          const std::int64_t b = op.begin(i);
          row(i, b, op.end(i, b), [&](const std::int64_t p) { return op.product(p); });
        });
        continue;
      }
      const Products products(team.team_scratch(0), capacity);
      store_products(team, products, from, to - from);
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, last - first), [&](const std::int64_t q) {
        const std::int64_t i = first + q;
        const std::int64_t b = op.begin(i);
        const std::int64_t e = op.end(i, b);
        // Only a malformed row map (rows that overlap or run backwards) has
        // a row outside its block's entries: it reads A itself.
        if (b >= from && e <= to)
          row(i, b, e, [&](const std::int64_t p) { return products(p - from); });
        else
          row(i, b, e, [&](const std::int64_t p) { return op.product(p); });
      });
      // The next block's products overwrite these.
      team.team_barrier();
    }
  }
};

}  // namespace gustav::detail
