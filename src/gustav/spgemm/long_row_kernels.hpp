#pragma once
/// Long rows on the hierarchical mapping: rows too long for a table in team
/// scratch, or with so many products that one team would be left working
/// long after the others. Each row of a batch takes a dense window
/// (dense_window.hpp) from a pool and one team per slice of
/// slice_products of its products (counted in walk order, so a
/// single long row of B is shared too); a team per row then reads the
/// window out. Each thread of a slice takes a stretch of its products and
/// finds where it starts in A's row by a binary search in the row's product
/// offsets (LongRowOffsets), so no thread walks A's row from its start.
/// Columns beyond the window are left to the next window's pass, so any
/// number of columns works within a bounded pool.
///
///   count      mark, then count the bits: the row's nnz (symbolic counting pass)
///   structure  mark, then read the sorted columns out (gustav::symbolic)
///   values     mark, read the sorted columns out and zero their values,
///              then add values into C (long_row_add.hpp)
///   reuse      add values into C at its known columns (long_row_add.hpp)
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/dense_window.hpp"
#include "gustav/analysis/row_bins.hpp"
#include "gustav/common/concurrency.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/spgemm/accumulate_rows.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/slice_walk.hpp"
#include "gustav/spgemm/summary.hpp"

namespace gustav::detail {

enum class LongPass { count, structure, values, reuse };

template <LongPass Pass>
constexpr RowOutput row_output() {
  if constexpr (Pass == LongPass::reuse) return RowOutput::reuse;
  if constexpr (Pass == LongPass::values) return RowOutput::values;
  return RowOutput::structure;
}

/// Products a team of a long row takes (one slice): between these two, as
/// the pass's products call for (long_row_slice_products).
constexpr std::int64_t long_row_slice_min = 2048;
constexpr std::int64_t long_row_slice_max = 16384;

/// The slice for a pass over rows with at most `products` products in all:
/// the smallest that keeps the launch within two rounds of the teams the
/// device holds at once, and at least long_row_slice_min. Large slices
/// spread each thread's binary search (its start in A's row) over many
/// products; but where the long rows hold only a few million products they
/// made too few teams to keep an SM's memory requests in flight:
/// ia-wikiquote's A * A^T (its long rows' products in 182 slices of 16,384
/// on an H200's 132 SMs) spent 0.115 ms in each walk over them.
template <class ExecSpace>
std::int64_t long_row_slice_products(const ExecSpace& space, std::int64_t products, int team_size, int lanes) {
  const std::int64_t teams = 2 * concurrent_teams(space, team_size, lanes);
  std::int64_t slice = long_row_slice_min;
  while (slice < long_row_slice_max && slice * teams < products) slice *= 2;
  return slice;
}

template <class Device>
using LongRowIndex = Kokkos::View<std::int64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Where each long row's products lie, for the slices: the rows' entries of
/// A listed row after row (row r's at [entry_base(r), entry_base(r + 1))),
/// the running product count before each listed entry (entry_products, one
/// more at the end: all products), and row r's first slice slice_base(r).
template <class Device>
struct LongRowOffsets {
  LongRowIndex<Device> entry_base;      ///< count + 1
  LongRowIndex<Device> entry_products;  ///< listed entries + 1
  LongRowIndex<Device> slice_base;      ///< count + 1
  std::int64_t slice_products = long_row_slice_max;  ///< products per slice
};

/// What the long-row kernels share: the rows, their offsets, C and (for the
/// marking walks and the read-out) the pool and the window.
template <class ExecSpace, class Types, class Rows, LongPass Pass>
struct LongRowBatch {
  using Ordinal = typename Types::ordinal_type;
  using Window = DenseWindow;
  using Device = typename Types::device_type;

  ProductOperands<Types> ops;
  RowWriter<ExecSpace, Types, row_output<Pass>()> out;
  Rows rows;                    ///< the long bin's rows
  LongRowIndex<Device> progress;  ///< per long row
  LongRowOffsets<Device> offsets;
  char* pool = nullptr;
  std::size_t window_bytes = 0;
  std::int64_t first_row = 0;   ///< batch start within rows
  std::int64_t first_col = 0;   ///< window: columns [first_col, first_col + width)
  std::int64_t width = 0;
  bool last_window = false;

  KOKKOS_INLINE_FUNCTION Window window(std::int64_t r) const {
    Carver c(pool + static_cast<std::size_t>(r) * window_bytes);
    return Window::carve(c, width);
  }
  KOKKOS_INLINE_FUNCTION std::int64_t row(std::int64_t r) const { return static_cast<std::int64_t>(rows(first_row + r)); }
};

/// A team per (row, slice): the slice's products mark the row's window.
/// The launch covers the slices of the batch's rows,
/// [slice_base(first_row), slice_base(first_row + rows)).
template <class ExecSpace, class Types, class Rows, LongPass Pass>
struct LongRowSlices {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, Pass>;
  using Ordinal = typename Types::ordinal_type;

  Batch batch;
  ErrorFlag<typename Types::device_type> errors;
  std::int64_t batch_rows = 0;
  std::int64_t first_slice = 0;  ///< slice_base(first_row)
  int lanes = 1;
  /// The window's words, where the team marks a bitmap of its own in
  /// scratch first and then ORs its non-zero words into the window (0:
  /// straight into the window). The slices of a long row all mark the same
  /// few hundred words in global memory, each product an atomic there:
  /// ia-wikiquote's hub rows put about 200 products on each word.
  std::int64_t scratch_words = 0;

  /// Team scratch of a walk that marks in scratch.
  static std::size_t scratch_bytes(std::int64_t words) {
    return words > 0 ? static_cast<std::size_t>(words) * sizeof(std::uint32_t) + 16 : 0;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    std::uint32_t* local = nullptr;
    if (scratch_words > 0) {
      local = static_cast<std::uint32_t*>(
          team.team_scratch(0).get_shmem(static_cast<std::size_t>(scratch_words) * sizeof(std::uint32_t)));
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, scratch_words), [&](const std::int64_t i) { local[i] = 0; });
      team.team_barrier();
    }
    const auto& o = batch.offsets;
    const std::int64_t g = first_slice + team.league_rank();
    const std::int64_t listed =
        last_at_most(o.slice_base, g, batch.first_row, batch.first_row + batch_rows - 1);
    const auto w = batch.window(listed - batch.first_row);
    const std::int64_t threads = static_cast<std::int64_t>(team.team_size()) * lanes;
    const SliceShare s = share_slice(batch, listed, (g - o.slice_base(listed)) * o.slice_products,
                                     o.slice_products, threads);
    int bits = 0;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const std::int64_t tid) {
      for_thread_products(
          batch, s, tid, bits, [&](std::int64_t, std::int64_t p) { return batch.ops.b_entries(p); },
          [&](const Ordinal c) { mark(w, local, c, bits); });
    });
    if (bits) Kokkos::atomic_fetch_or(&errors(), std::int64_t(bits));
    if (local) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, scratch_words), [&](const std::int64_t i) {
        const std::uint32_t word = local[i];
        if (word) Kokkos::atomic_or(&w.words[i], word);
      });
    }
  }

  template <class Window>
  KOKKOS_INLINE_FUNCTION void mark(const Window& w, std::uint32_t* local, Ordinal c, int& bits) const {
    if (!batch.ops.column_ok(c)) {
      bits |= error_bad_b;
      return;
    }
    const std::int64_t x = static_cast<std::int64_t>(c) - batch.first_col;
    if (x < 0 || x >= batch.width) return;  // another window's
    if (local) {
      Kokkos::atomic_or(&local[x >> 5], std::uint32_t(1) << (x & 31));
    } else {
      w.mark(x);
    }
  }
};

/// A team per row reads the window out: the nnz (count), or the columns in
/// order (structure, values), clearing what it read; values also zero the
/// row's values for the adding walk.
template <class ExecSpace, class Types, class Rows, class RowBinView, LongPass Pass>
struct LongRowReadOut {
  using execution_space = ExecSpace;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Batch = LongRowBatch<ExecSpace, Types, Rows, Pass>;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;

  Batch batch;
  ErrorFlag<typename Types::device_type> errors;
  // Counting pass only: the row's nnz, numeric bin and the bins' tallies.
  typename Types::c_row_map c_row_map;
  RowBinView row_bin;
  SummaryView<typename Types::device_type> summary;
  RowBinBounds numeric_bins;
  std::int64_t max_row_count = 0;
  int lanes = 1;  ///< the policy's vector length

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t r = team.league_rank();
    const std::int64_t row = batch.row(r);
    const auto w = batch.window(r);
    const std::int64_t words = (batch.width + 31) / 32;
    if constexpr (Pass == LongPass::count) {
      std::int64_t nnz = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, words),
          [&](const std::int64_t i, std::int64_t& sum) {
            const std::uint32_t v = w.words[i];
            if (v) {
              sum += popcount32(v);
              w.words[i] = 0;
            }
          },
          nnz);
      team.team_barrier();
      if (!batch.last_window) {
        Kokkos::single(Kokkos::PerTeam(team), [&]() { batch.progress(batch.first_row + r) += nnz; });
        return;
      }
      std::int64_t a0, a1;
      batch.ops.a_row(row, a0, a1);
      // The row's products, from the offsets the slices were cut by (a
      // walk over A's row here took a hub row's team 16,000 dependent
      // loads, half of the read-out's time on ia-wikiquote).
      const auto& o = batch.offsets;
      const std::int64_t listed = batch.first_row + r;
      const std::int64_t products = o.entry_products(o.entry_base(listed + 1)) - o.entry_products(o.entry_base(listed));
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        const std::int64_t total = batch.progress(batch.first_row + r) + nnz;
        if (total > max_row_count) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_row_count_overflow));
        c_row_map(row + 1) = static_cast<typename Types::c_offset_type>(total);
        const std::uint8_t bin = numeric_bins.of(products, total, a1 - a0);
        row_bin(row) = bin;
        add_count(&summary(SummarySlot::numeric_rows + bin), 1);
        add_count(&summary(SummarySlot::numeric_products + bin), products);
        raise_count(&summary(SummarySlot::max_nnz), total);
      });
    } else {
      read_out(team, r, row, w, words);
    }
  }

  /// Words a thread reads at once in the read-out (one 16-byte load), and
  /// the rounds of such chunks whose counts a step holds in scratch.
  static constexpr int chunk_words = 4;
  static constexpr int step_rounds = 16;

  /// Columns a group of rounds gathers in scratch before the team writes
  /// them to C together.
  static constexpr int staged_columns = 4096;

  /// Scratch of the read-out: the set bits of each chunk of a step, each
  /// thread's sum over its share of them, and the staged columns.
  KOKKOS_INLINE_FUNCTION std::size_t scratch_bytes(int workers) const {
    const std::size_t threads = static_cast<std::size_t>(workers) * static_cast<std::size_t>(lanes);
    return threads * step_rounds * sizeof(int) + threads * sizeof(std::int64_t) + staged_columns * sizeof(Ordinal) +
           64;
  }

  /// Four bitmap words, read with one 16-byte load.
  struct alignas(16) FourWords {
    std::uint32_t word[4];
  };

  /// The four words of chunk k (a multiple of 4; the bitmap is 16-byte
  /// aligned), those past `words` read as zero.
  KOKKOS_INLINE_FUNCTION static FourWords chunk_at(const std::uint32_t* bitmap, std::int64_t k, std::int64_t words) {
    if (k + chunk_words <= words) return *reinterpret_cast<const FourWords*>(bitmap + k);
    FourWords q{};
    for (int u = 0; u < chunk_words; ++u) q.word[u] = k + u < words ? bitmap[k + u] : 0u;
    return q;
  }

  /// The team reads the bitmap a step at a time: in each round of a step
  /// thread t takes chunk t of the round (a warp reads 512 consecutive
  /// bytes at once), counts its bits, and after a scan of the step's counts
  /// in column order writes its chunk's columns at their places. A thread's
  /// chunks are spread over the whole window, so where columns crowd (the
  /// low columns of an R-MAT row) every thread gets its share: with each
  /// thread taking one run of the bitmap instead, one thread wrote most of
  /// a power-law row's entries and the read-out took 38 of rmat:20:2's 88
  /// ms on an H100. The bitmap is read twice in all.
  ///
  /// A thread's columns are consecutive in C but its neighbours' are far
  /// away, so its own stores would touch a sector of C per lane. Instead,
  /// consecutive rounds whose columns fit `staged_columns` gather them in
  /// scratch at their places, and the team then writes the stretch of C in
  /// order; a round with more columns than that (a crowded stretch, where
  /// each thread's run is long) writes directly. The values' zeros go out
  /// in order over the step's stretch.
  template <class Window>
  KOKKOS_INLINE_FUNCTION void read_out(const Member& team, std::int64_t r, std::int64_t row, const Window& w,
                                       std::int64_t words) const {
    const int threads = team.team_size() * lanes;
    const std::int64_t round_words = static_cast<std::int64_t>(threads) * chunk_words;
    const std::int64_t step_words = round_words * step_rounds;
    const std::int64_t start = batch.out.start(row);
    char* scratch = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(scratch_bytes(team.team_size()) - 64, 16));
    int* counts = reinterpret_cast<int*>(scratch);  // [round * threads + thread]
    auto* sums = reinterpret_cast<std::int64_t*>(scratch + static_cast<std::size_t>(threads) * step_rounds * sizeof(int));
    auto* staged = reinterpret_cast<Ordinal*>(sums + threads);
    // Read before the first barrier; thread 0 updates it after the last.
    std::int64_t placed = batch.progress(batch.first_row + r);
    for (std::int64_t first = 0; first < words; first += step_words) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const int t) {
        for (int m = 0; m < step_rounds; ++m) {
          const FourWords q = chunk_at(w.words, first + m * round_words + t * chunk_words, words);
          int c = 0;
#pragma unroll
          for (int u = 0; u < chunk_words; ++u) c += popcount32(q.word[u]);
          counts[m * threads + t] = c;
        }
      });
      team.team_barrier();
      // Exclusive prefix sums of the counts in (round, thread) order: each
      // thread sums a stretch of step_rounds of them, every thread adds up
      // the sums before its own, then turns its stretch into prefixes.
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const int t) {
        std::int64_t s = 0;
        for (int i = 0; i < step_rounds; ++i) s += counts[t * step_rounds + i];
        sums[t] = s;
      });
      team.team_barrier();
      std::int64_t step_total = 0;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const int t) {
        std::int64_t before = 0, all = 0;
        for (int u = 0; u < threads; ++u) {
          const std::int64_t c = sums[u];
          before += u < t ? c : 0;
          all += c;
        }
        for (int i = 0; i < step_rounds; ++i) {
          const int c = counts[t * step_rounds + i];
          counts[t * step_rounds + i] = static_cast<int>(before);
          before += c;
        }
        step_total = all;
      });
      team.team_barrier();
      // Where round m's columns start within the step (m == step_rounds:
      // the step's total).
      const auto round_begin = [&](int m) -> std::int64_t {
        return m < step_rounds ? static_cast<std::int64_t>(counts[m * threads]) : step_total;
      };
      const std::int64_t out = start + placed;
      for (int m = 0; m < step_rounds && first + m * round_words < words;) {
        const std::int64_t base = round_begin(m);
        int m_end = m + 1;
        while (m_end < step_rounds && round_begin(m_end + 1) - base <= staged_columns) ++m_end;
        const std::int64_t group = round_begin(m_end) - base;
        const bool stage = group <= staged_columns;
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads), [&](const int t) {
          for (int mm = m; mm < m_end; ++mm) {
            const std::int64_t k = first + mm * round_words + t * chunk_words;
            if (k >= words) break;
            const FourWords q = chunk_at(w.words, k, words);
            std::int64_t o = counts[mm * threads + t];
#pragma unroll
            for (int u = 0; u < chunk_words; ++u) {
              const std::uint32_t bits = q.word[u];
              if (!bits) continue;
              w.words[k + u] = 0;
              for (std::uint32_t left = bits; left; left &= left - 1) {
                const auto col = static_cast<Ordinal>(batch.first_col + (k + u) * 32 + lowest_bit32(left));
                if (stage) {
                  staged[o - base] = col;
                } else {
                  batch.out.c_entries(out + o) = col;
                }
                ++o;
              }
            }
          }
        });
        if (stage) {
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamVectorRange(team, group),
                               [&](const std::int64_t i) { batch.out.c_entries(out + base + i) = staged[i]; });
          // The stage is read before the next group fills it.
          team.team_barrier();
        }
        m = m_end;
      }
      // Values start at zero: the adding walk adds into them.
      if constexpr (Pass == LongPass::values)
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, step_total),
                             [&](const std::int64_t i) { batch.out.c_values(out + i) = Scalar(); });
      placed += step_total;
      // The counts are read before the next step overwrites them.
      team.team_barrier();
    }
    if (team.team_rank() == 0)
      Kokkos::single(Kokkos::PerThread(team), [&]() { batch.progress(batch.first_row + r) = placed; });
  }
};

/// Row r's entries of A are listed at entry_base(r): the scan's sum over
/// the rows before it (the sum of all with r == count).
template <class Types, class Rows>
struct LongRowEntryBase {
  ProductOperands<Types> ops;
  Rows rows;
  LongRowIndex<typename Types::device_type> entry_base;
  ErrorFlag<typename Types::device_type> errors;
  std::int64_t count = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& sum, bool final) const {
    if (final) entry_base(r) = sum;
    if (r == count) return;
    std::int64_t a0, a1;
    if (!ops.a_row(static_cast<std::int64_t>(rows(r)), a0, a1) && final)
      Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_bad_a));
    sum += a1 - a0;
  }
};

/// Listed entry e's row of B, [b0, b1) (empty where false): false where
/// the entry lies past its row of A (offsets made for another structure,
/// long_row_kept_offsets.hpp), or its column is no row of B or B's row map
/// is broken there.
template <class Types, class Rows, class EntryBase>
KOKKOS_INLINE_FUNCTION bool listed_entry_b_row(const ProductOperands<Types>& ops, const Rows& rows,
                                               const EntryBase& entry_base, std::int64_t count, std::int64_t e,
                                               std::int64_t& b0, std::int64_t& b1) {
  const std::int64_t r = last_at_most(entry_base, e, 0, count - 1);  // the row listing entry e
  const std::int64_t j = e - static_cast<std::int64_t>(entry_base(r));
  std::int64_t a0, a1;
  if (!ops.a_row(static_cast<std::int64_t>(rows(r)), a0, a1) || j >= a1 - a0) {
    b0 = b1 = 0;
    return false;
  }
  return ops.b_row(static_cast<std::int64_t>(ops.a_entries(a0 + j)), b0, b1);
}

/// entry_products(e): the products of the listed entries before e, counted
/// over all rows (a row's own count is the difference from its first).
template <class Types, class Rows>
struct LongRowEntryProducts {
  ProductOperands<Types> ops;
  Rows rows;
  LongRowOffsets<typename Types::device_type> offsets;
  ErrorFlag<typename Types::device_type> errors;
  std::int64_t count = 0;
  std::int64_t listed = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e, std::int64_t& sum, bool final) const {
    if (final) offsets.entry_products(e) = sum;
    if (e == listed) return;
    // A malformed entry counts no products (the slices never reach it):
    // report it here. (Entries are listed from A's rows as they are, so
    // none lies past its row.)
    std::int64_t b0, b1;
    if (!listed_entry_b_row(ops, rows, offsets.entry_base, count, e, b0, b1) && final)
      Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_bad_a));
    sum += b1 - b0;
  }
};

/// Products per slice of every row: the offsets' slice_products.
struct UniformSlices {
  std::int64_t products = long_row_slice_max;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t) const { return products; }
};

/// slice_base(r): the slices of the rows before r (a slice per
/// slice_of(r) products; none for a row without products).
template <class Device, class SliceOf = UniformSlices>
struct LongRowSliceBase {
  LongRowOffsets<Device> offsets;
  std::int64_t count = 0;
  SliceOf slice_of;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& sum, bool final) const {
    if (final) offsets.slice_base(r) = sum;
    if (r == count) return;
    const std::int64_t products =
        offsets.entry_products(offsets.entry_base(r + 1)) - offsets.entry_products(offsets.entry_base(r));
    const std::int64_t size = slice_of(r);
    sum += (products + size - 1) / size;
  }
};

}  // namespace gustav::detail
