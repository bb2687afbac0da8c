#pragma once
/// The numeric phase of a masked bin whose rows of C fit one word's low
/// Window bits (entry_masks.hpp), a thread per row of C, the row's values
/// in registers: the tiny bins (at most tiny_products products), and on
/// GPUs the rows of at most thread_row_window entries over rows of B longer
/// than a worker's capped lanes (sum_entry_masks.hpp).
///
/// A worker's lanes (sum_entry_masks.hpp) would share a few products among
/// them, paying a step of the worker's per round of A's entries, twice or
/// more per entry where a row of B is longer than the lanes. Here one
/// thread loads a batch of the row's entries of A together (column, value,
/// word), then their rows of B's bounds together, then each entry's
/// products: the loads of a batch overlap rather than following one
/// another, and a warp keeps 32 rows in flight. Every product adds at the
/// position of its set bit (an unrolled loop over the word's low Window
/// bits, so the sums stay in registers), in the order of A's entries, as
/// the workers add them.
///
/// Measured on an H100 (2026-12-07, `gustav bench --implementations
/// cusparse --reps 5 --warmup 2`, one binary with the tiny bins' kernel
/// chosen from outside, two alternating processes each, reuse ms, workers
/// of 2 lanes -> a thread a row): er:1000000:2 (714,590 tiny rows of
/// 1,000,000) 0.220, 0.224 -> 0.195, 0.195; er:200000:4, delaunay_n16,
/// ia-wikiquote's A * A^T, bcsstk16, lap3d:120, er:1000000:8 and the R-MAT
/// and collaboration graphs level. The wider rows' figures are at
/// thread_row_window.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class CRowMap, class CValues, int Window = tiny_products>
struct SumTinyMasks {
  using Device = typename Types::device_type;
  using Word = typename EntryMasks<Device>::Word;
  using Scalar = typename Types::scalar_type;
  /// Entries of A whose loads one thread issues together.
  static constexpr int batch = 4;
  static_assert(Window <= 32, "a row summed by one thread has its masks in one word");

  Kokkos::View<const Word*, Device> start;
  Kokkos::View<const Word*, Device> words;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CValues c_values;
  RowList<Types> rows;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t w) const {
    const std::int64_t i = static_cast<std::int64_t>(rows(w));
    const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
    const std::int64_t need = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
    const std::int64_t m0 = static_cast<std::int64_t>(start(i));
    std::int64_t a0, a1;
    ops.a_row(i, a0, a1);  // a broken row map sums nothing: the fingerprint reports it
    a1 = masked_entries_end(a0, a1, static_cast<std::int64_t>(start(i + 1)) - m0, 1);  // one word an entry
    Scalar sums[Window];
#pragma unroll
    for (int s = 0; s < Window; ++s) sums[s] = Scalar();
    for (std::int64_t first = a0; first < a1; first += batch) {
      std::int64_t k[batch];
      Scalar a[batch];
      Word word[batch];
#pragma unroll
      for (int e = 0; e < batch; ++e) {
        const bool here = first + e < a1;
        k[e] = here ? static_cast<std::int64_t>(ops.a_entries(first + e)) : 0;
        a[e] = here ? Scalar(ops.a_values(first + e)) : Scalar();
        word[e] = here ? words(m0 + (first + e - a0)) : Word(0);
      }
      std::int64_t b0[batch];
      int placed[batch];
#pragma unroll
      for (int e = 0; e < batch; ++e) {
        std::int64_t b1 = 0;
        b0[e] = 0;
        placed[e] = 0;
        // Where the masks and B's row disagree (a changed structure) only
        // the products both hold are added, each within the row of B.
        if (word[e] != 0 && ops.b_row(k[e], b0[e], b1)) {
          const std::int64_t bits = popcount32(word[e]);
          placed[e] = static_cast<int>(bits < b1 - b0[e] ? bits : b1 - b0[e]);
        }
      }
#pragma unroll
      for (int e = 0; e < batch; ++e) {
#pragma unroll
        for (int s = 0; s < Window; ++s) {
          const int t = popcount32(word[e] & ((Word(1) << s) - 1u));
          if ((word[e] >> s & 1u) && t < placed[e]) sums[s] += a[e] * Scalar(ops.b_values(b0[e] + t));
        }
      }
    }
#pragma unroll
    for (int s = 0; s < Window; ++s)
      if (s < need) c_values(c0 + s) = sums[s];
  }
};

/// Sums the rows `rows` of a masked bin whose rows of C have at most Window
/// entries into `c_values`, a thread a row.
template <int Window, class Types, class ExecSpace, class CRowMap, class CValues>
void sum_tiny_masks(const ExecSpace& space, const EntryMasks<typename Types::device_type>& masks,
                    const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CValues& c_values,
                    const RowList<Types>& rows, std::int64_t n, const std::string& name) {
  SumTinyMasks<ExecSpace, Types, CRowMap, CValues, Window> f;
  f.start = masks.start;
  f.words = masks.words;
  f.ops = ops;
  f.c_row_map = c_row_map;
  f.c_values = c_values;
  f.rows = rows;
  Kokkos::parallel_for(name, light_launch(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n)),
                       f);
}

}  // namespace gustav::detail
