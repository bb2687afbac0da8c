#pragma once
/// A slice of a long row's products (long_row_kernels.hpp) shared among a
/// team's threads, and each thread's walk over its share.
///
/// Tried and dropped (H100, 2026-12-06, alternating processes, reuse ms):
/// loading four products ahead of using them, and the next entry's row of B
/// one entry ahead, to keep more loads in flight (Nsight Compute had the
/// adding walk on rmat:18:4's long rows waiting on L1TEX for 65 % of its
/// cycles). Slower where it was not level: rmat:16:8 2.61 -> 3.45,
/// arrow:10000 2.00 -> 2.25, rmat:20:2 27.0 -> 30.4. And (H100, 2026-12-07,
/// one binary, reuse ms) the whole team taking a slice's products through
/// a stage of up to 256 of its entries in scratch (each entry's first
/// product, row of B and A's value), thread t taking products t, t + 256,
/// ... found by a binary search in the stage, so that no thread waits on
/// an entry's column and row bounds between products: rmat:18:4 8.09 ->
/// 7.98, but rmat:16:8 2.74 -> 2.87, arrow:10000 2.02 -> 2.43, ca-HepPh
/// 0.519 -> 0.577 (two barriers per stage and a search per product). And
/// (H100, 2026-12-07, two binaries, reuse ms, light launch) each listed
/// entry's row of B read from a start kept beside entry_products (8 bytes
/// an entry), so that no entry waits on A's column and then B's row map:
/// rmat:18:4 6.45, 6.49 -> 6.35, 6.30, but arrow:10000 2.05, 2.06 -> 2.34,
/// 2.32 and rmat:16:8 2.73, 2.74 -> 2.82, 2.83 (under the walk's launch
/// bounds, long_row_add.hpp, rmat:18:4 6.15, 6.19 -> 6.32, 6.34).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/search.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// One slice's products, [t_begin, t_end) of its row's in walk order, and
/// how a team's threads share them: in groups that share a stretch of the
/// slice, each thread taking every group-th product of it. Groups are of 32
/// (a warp reads consecutive entries of B) where B's rows here are long on
/// average, single threads with consecutive products (no thread steps over
/// entries that are not its own) where they are short.
struct SliceShare {
  std::int64_t listed = 0;  ///< the row's place in the list of long rows
  std::int64_t row = 0;
  std::int64_t a0 = 0, a1 = 0;  ///< the row's entries of A
  std::int64_t e0 = 0;          ///< its first listed entry
  std::int64_t e1 = 0;
  std::int64_t before = 0;      ///< entry_products(e0)
  std::int64_t t_begin = 0, t_end = 0;
  std::int64_t group = 1, stretch = 0;
};

/// The share of listed row `listed`'s products [t_begin, t_begin + size)
/// (cut at the row's end) among `threads` threads.
template <class Batch>
KOKKOS_INLINE_FUNCTION SliceShare share_slice(const Batch& batch, std::int64_t listed, std::int64_t t_begin,
                                              std::int64_t size, std::int64_t threads) {
  const auto& o = batch.offsets;
  SliceShare s;
  s.listed = listed;
  s.row = static_cast<std::int64_t>(batch.rows(listed));
  batch.ops.a_row(s.row, s.a0, s.a1);
  s.e0 = o.entry_base(listed);
  s.e1 = o.entry_base(listed + 1);
  s.before = o.entry_products(s.e0);
  const std::int64_t total = o.entry_products(s.e1) - s.before;
  s.t_begin = t_begin;
  s.t_end = t_begin + size < total ? t_begin + size : total;
  s.group = (s.e1 > s.e0 && total >= 16 * (s.e1 - s.e0) && threads % 32 == 0) ? 32 : 1;
  const std::int64_t groups = threads / s.group;
  s.stretch = s.t_end > s.t_begin ? (s.t_end - s.t_begin + groups - 1) / groups : 0;
  return s;
}

/// Thread `tid`'s share of the slice, entry j of A's row times entry p of
/// B for each of its products: load(j, p) reads what the pass needs of the
/// product and returns it; use(loaded) does the pass's work with it.
/// Malformed entries raise `bits`.
template <class Batch, class Load, class Use>
KOKKOS_INLINE_FUNCTION void for_thread_products(const Batch& batch, const SliceShare& s, std::int64_t tid, int& bits,
                                                const Load& load, const Use& use) {
  const auto& o = batch.offsets;
  const auto& ops = batch.ops;
  const std::int64_t gb = s.t_begin + (tid / s.group) * s.stretch;
  const std::int64_t ge = gb + s.stretch < s.t_end ? gb + s.stretch : s.t_end;
  const std::int64_t tb = gb + tid % s.group;
  if (tb >= ge) return;
  // The listed entry holding product tb.
  const std::int64_t e_lo = last_at_most(o.entry_products, s.before + tb, s.e0, s.e1 - 1);
  std::int64_t j = s.a0 + (e_lo - s.e0);
  // Past the row's end only where a plan's kept offsets no longer fit A
  // (long_row_kept_offsets.hpp: the row is then summed again).
  if (j >= s.a1) return;
  std::int64_t b0, b1;
  if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bits |= error_bad_a;
  std::int64_t p = b0 + (tb - (o.entry_products(e_lo) - s.before));
  for (std::int64_t t = tb; t < ge; t += s.group, p += s.group) {
    while (p >= b1) {  // on into the next entries (rows of B may be short or empty)
      const std::int64_t past = p - b1;
      if (++j >= s.a1) return;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(j)), b0, b1)) bits |= error_bad_a;
      p = b0 + past;
    }
    use(load(j, p));
  }
}

}  // namespace gustav::detail
