#pragma once
/// The numeric phase of a masked bin (entry_masks.hpp): a worker per row of
/// C, its lanes one row of B at a time. Tiny bins take a thread a row
/// instead (sum_tiny_masks.hpp).
///
/// The lanes first copy up to one entry each of the row's entries of A into
/// scratch (its row of B's start, how many of its products the masks place,
/// its value and its words), so a row costs one round of dependent global
/// loads per `lanes` entries. Then, entry by entry, lane t takes the t-th
/// entry of the entry's row of B, finds its position in the row of C as the
/// t-th set bit of the entry's words, and adds the product there, in a
/// window of the row's values in scratch. The columns of one row of B are
/// distinct, so the lanes add at distinct positions with no atomics, and
/// every sum runs in the order of A's entries (the bits repeat); the window
/// goes out in one coalesced write.
///
/// Measured on an H100 (2026-12-05, `gustav bench`, cuSPARSE and the hash
/// path in the same process, reuse ms). A first version, whose lanes each
/// owned positions of the row and tested them for every entry of A (25
/// tests for 7 products on lap3d:120), took 1.58 there (hash path 1.80,
/// cuSPARSE 0.75); this one 0.83, below the hash path on 12 of 13
/// products. Nsight Compute had it issuing an instruction on 65 % of cycles
/// at half occupancy (56 registers), 30 % of the memory's bandwidth.
/// Tried and dropped (alternating processes): a CUDA form loading four
/// entries' products at once between __syncwarp steps (lap3d:120 0.83
/// either way; band 1.13 -> 1.02, er:1000000:2 0.235 -> 0.262); and that
/// form with each entry's words walked once into byte positions in scratch
/// instead of a search per product (lap3d:120 0.87, its A * P 0.51 -> 0.66:
/// the scratch's traffic rose to 81 % of its throughput).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "gustav/common/bits.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"
#include "gustav/spgemm/sum_tiny_masks.hpp"

namespace gustav::detail {

/// Position of the n-th (from 0) set bit of `word`, which has more than n.
KOKKOS_INLINE_FUNCTION int nth_set_bit32(std::uint32_t word, int n) {
  int at = 0;
  for (int half = 16; half > 0; half >>= 1) {
    const int below = popcount32(word & ((std::uint32_t(1) << half) - 1u));
    if (n >= below) {
      n -= below;
      word >>= half;
      at += half;
    }
  }
  return at;
}

/// A masked-bin worker's scratch, shared by the masked sum and the kernel
/// that learns the masks (learn_entry_masks.hpp): a copy of `entries`
/// entries of A (value, row of B's start, its products, Words mask words
/// each) and the window of the row's values; WithColumns adds a copy of the
/// row of C's columns (the learning kernel's binary search).
template <class Scalar, class Ordinal, class Index, class Word, int Words, bool WithColumns>
struct MaskedWorkerScratch {
  Scalar* a_value;
  Scalar* row;
  Ordinal* columns;  ///< WithColumns only
  Index* begin;
  Index* count;  ///< products the entry's words place (its row of B's length, at most)
  Word* mask;

  KOKKOS_INLINE_FUNCTION static MaskedWorkerScratch carve(Carver& c, int entries, int window) {
    MaskedWorkerScratch k;
    k.a_value = c.take<Scalar>(entries);
    k.row = c.take<Scalar>(window);
    k.columns = WithColumns ? c.take<Ordinal>(window) : nullptr;
    k.begin = c.take<Index>(entries);
    k.count = c.take<Index>(entries);
    k.mask = c.take<Word>(static_cast<std::int64_t>(entries) * Words);
    return k;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t worker_bytes(int entries, int window) {
    Carver c(nullptr);
    carve(c, entries, window);
    return (c.used() + 15) / 16 * 16;
  }
};

template <class ExecSpace, class Types, class CRowMap, class CValues, int Words>
struct SumEntryMasks {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Masks = EntryMasks<Device>;
  using Word = typename Masks::Word;
  using Scalar = typename Types::scalar_type;
  using Index = std::uint32_t;  // offsets into B: masks are kept only where B has fewer than 2^32 entries

  Kokkos::View<const Word*, Device> start;
  Kokkos::View<const Word*, Device> words;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CValues c_values;
  RowList<Types> rows;
  std::int64_t num_rows = 0;
  int lanes = 1;
  int window = 32;  ///< the bin's longest row of C

  using Scratch = MaskedWorkerScratch<Scalar, typename Types::ordinal_type, Index, Word, Words, false>;
  KOKKOS_INLINE_FUNCTION std::size_t scratch_bytes(int team_size) const {
    return static_cast<std::size_t>(team_size) * Scratch::worker_bytes(lanes, window);
  }

  /// Position in the row of C of product t of a cached entry: the t-th set
  /// bit of its words.
  KOKKOS_INLINE_FUNCTION static int position(const Word* mask, int t) {
    int k = 0;
    for (; k + 1 < Words; ++k) {
      const int here = popcount32(mask[k]);
      if (t < here) break;
      t -= here;
    }
    return 32 * k + nth_set_bit32(mask[k], t);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    char* const base = static_cast<char*>(team.team_scratch(0).get_shmem(scratch_bytes(team.team_size())));
    Carver carver(base + static_cast<std::size_t>(team.team_rank()) * Scratch::worker_bytes(lanes, window));
    const Scratch s = Scratch::carve(carver, lanes, window);
    for_each_worker_row(team, num_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t need = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      const int width = static_cast<int>(mask_words_for(need));
      const std::int64_t m0 = static_cast<std::int64_t>(start(i));
      std::int64_t a0, a1;
      ops.a_row(i, a0, a1);  // a broken row map sums nothing: the fingerprint reports it
      // A changed structure (which the fingerprint reports) may give row i
      // more entries than it has masks: only those with masks are read, so
      // every bit read is one of row i's, below its length.
      a1 = masked_entries_end(a0, a1, static_cast<std::int64_t>(start(i + 1)) - m0, width);
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, need), [&](const std::int64_t p) { s.row[p] = Scalar(); });
      for (std::int64_t first = a0; first < a1; first += lanes) {
        const int m = a1 - first < lanes ? static_cast<int>(a1 - first) : lanes;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m), [&](const int q) {
          std::int64_t b0, b1;
          ops.b_row(static_cast<std::int64_t>(ops.a_entries(first + q)), b0, b1);
          s.begin[q] = static_cast<Index>(b0);
          s.a_value[q] = Scalar(ops.a_values(first + q));
          const std::int64_t at = m0 + (first + q - a0) * width;
          std::int64_t placed = 0;
          for (int k = 0; k < width && k < Words; ++k) {
            const Word word = words(at + k);
            s.mask[q * Words + k] = word;
            placed += popcount32(word);
          }
          // Where the masks and B's row disagree (a changed structure: the
          // fingerprint reports it) only the products both hold are added,
          // each within the row of B and the window.
          s.count[q] = static_cast<Index>(placed < b1 - b0 ? placed : b1 - b0);
        });
        for (int q = 0; q < m; ++q) {
          const Scalar a = s.a_value[q];
          const std::int64_t b0 = static_cast<std::int64_t>(s.begin[q]);
          const Word* const mask = s.mask + q * Words;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, static_cast<int>(s.count[q])), [&](const int t) {
            s.row[position(mask, t)] += a * Scalar(ops.b_values(b0 + t));
          });
        }
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, need),
                           [&](const std::int64_t p) { c_values(c0 + p) = s.row[p]; });
    });
  }
};

/// Lanes of a masked bin's workers on GPUs: as many as the rows of B have
/// entries on average (a power of two, 2 to 32), so that one step of the
/// lanes takes an entry of A's row of B whole.
inline int mask_lanes_for(double products_per_entry) {
  int lanes = 2;
  while (lanes < 32 && lanes < products_per_entry) lanes *= 2;
  return lanes;
}

/// Lanes of a masked worker on GPUs where the rows of C fit one word: at
/// most this many, however long the rows of B, so that a team of
/// mask_team_threads holds more rows at once (the rows' own steps, zeroing
/// the window, copying the entries, writing the row out, were each a few
/// products' work for many idle lanes). Measured on an H100 (2026-12-07,
/// `gustav multiply --reps 5`, one binary with the lanes set from outside,
/// reuse ms at mask_lanes_for's choice -> 4 lanes): lap2d:2000:9 (16)
/// 3.56, 3.49 -> 1.99, 1.96; band:1000000:5 (16) 1.05, 1.05 -> 0.60, 0.58;
/// band:300000:9 (32) 0.744 -> 0.458; lap3d:120 (8) 0.77, 0.74 -> 0.63,
/// 0.63; its R * (A * P) 0.674 -> 0.502; lap2d:1000:5 (8) 0.347 -> 0.286;
/// its A * P, er:1000000:2, bcsstk16 level; delaunay_n16 (8) 0.073 ->
/// 0.082. Two lanes were slower than four on all but lap3d:120's A * P
/// (0.475 against 0.493), one slower everywhere. Rows of two words follow
/// two_word_lanes_min (below); wider rows keep mask_lanes_for's choice:
/// lap3d:80:27 (32) 1.86 against 2.07 with 8 and 2.81 with 4.
/// This replaced a cap of 32 registers on rows of one word with 8 lanes or
/// more (eight teams an SM; it spilled 16-64 bytes a thread), which had
/// taken lap2d:2000:9 from 3.87 to 3.55 ms and lap3d:120 from 0.84 to 0.76.
constexpr int one_word_mask_lanes = 4;
/// Threads of a masked bin's team on GPUs (workers times lanes).
constexpr int mask_team_threads = 256;

/// Rows of two words take one_word_mask_lanes too where the rows of B are
/// at least this long on average (mask_lanes_for's choice). With every bin
/// on 4 lanes (the sweep above), band:300000:9 (32 lanes) went 0.744 ->
/// 0.458 ms, band:1000000:12 (32) 3.07 -> 2.45, band:300000:15 (32) 1.14
/// -> 1.03, while rows of B of about 7 and 8 entries (8 lanes) lost
/// (er:500000:7 0.485 -> 0.544, er:1000000:8 1.32 -> 1.45) and of 6 were
/// level (er:300000:6). This rule against the one-word rule alone, H100,
/// 2026-12-07, alternating processes, reuse ms: band:300000:9 0.748, 0.787
/// -> 0.461, 0.473; band:1000000:12 3.07, 3.07 -> 2.44, 2.49; lap3d:120's
/// R * (A * P) 0.646, 0.662 -> 0.498, 0.499; brick:30's A * P 0.762, 0.764
/// -> 0.698, 0.718; brick:20's A * P 0.242, 0.272 -> 0.238, 0.252;
/// brick:30's R * (A * P) 1.078, 1.099 -> 1.082, 1.194; er:1000000:8,
/// er:500000:7 and lap3d:80:27 (four words) level.
constexpr int two_word_lanes_min = 16;

/// A masked worker's lanes for rows of C of `words` words (GPUs), where
/// mask_lanes_for chose `lanes`.
inline int sum_mask_lanes(int lanes, std::int64_t words) {
  const bool few = words == 1 || (words == 2 && lanes >= two_word_lanes_min);
  return few ? std::min(lanes, one_word_mask_lanes) : lanes;
}

/// Rows of C of at most this many entries take a thread a row
/// (sum_tiny_masks.hpp) on GPUs where the rows of B are longer than the
/// capped workers' one_word_mask_lanes (mask_lanes_for chose more): there a
/// worker steps twice or more per entry of A, its lanes partly idle.
/// Measured on an H100 (2026-12-07, `gustav bench --implementations
/// cusparse --reps 5 --warmup 2`, one binary with the kernel chosen from
/// outside, two alternating processes each, reuse ms, workers -> a thread
/// a row): lap2d:2000:5 (rows of C of 13 entries, 5 entries of A over rows
/// of B of 5) 1.078, 1.079 -> 0.726, 0.732 (cuSPARSE 0.889); lap2d:1000:5
/// 0.289, 0.293 -> 0.209, 0.213 (0.240); delaunay_n16, rmat:16:8, ca-HepPh
/// level. Where the workers' lanes already span a row of B a thread a row
/// lost (er:1000000:2, 2 lanes: 0.188, 0.191 -> 0.221, 0.220; er:500000:4,
/// 4 lanes: 0.243, 0.242 -> 0.268, 0.266): those keep the workers.
constexpr std::int64_t thread_row_window = 16;

/// The longest row of C of a masked bin: its kernels' window of values.
inline std::int64_t masked_bin_window(const RowBin& bin, std::int64_t max_row) {
  return bin.level == RowLevel::tiny ? tiny_products : std::min<std::int64_t>(bin.max_need, max_row);
}

/// Calls run(std::integral_constant<int, W>{}) with the words W (1, 2 or
/// max_words) that a row of `window` entries takes: the kernels' template.
template <int MaxWords, class Run>
void with_mask_words(std::int64_t window, const Run& run) {
  const std::int64_t words = mask_words_for(window);
  if (words <= 1) {
    run(std::integral_constant<int, 1>{});
  } else if (words <= 2) {
    run(std::integral_constant<int, 2>{});
  } else {
    run(std::integral_constant<int, MaxWords>{});
  }
}

/// Workers of a masked bin's team on GPUs: mask_team_threads threads,
/// fewer workers where their scratch (`f.scratch_bytes`) would pass what a
/// team may take (40 KiB on CUDA with Kokkos 3.4); one on hosts.
template <class ExecSpace, class Functor>
int masked_team_size(const Functor& f) {
  int team_size = is_host_space<ExecSpace>() ? 1 : mask_team_threads / f.lanes;
  const std::size_t limit = team_scratch_limit<ExecSpace>();
  while (team_size > 1 && f.scratch_bytes(team_size) > limit) team_size /= 2;
  return team_size;
}

/// Sums the rows `rows` of one masked bin into `c_values`.
template <class Types, class ExecSpace, class CRowMap, class CValues>
void sum_entry_masks(const ExecSpace& space, const EntryMasks<typename Types::device_type>& masks, const RowBin& bin,
                     const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CValues& c_values,
                     const RowList<Types>& rows, std::int64_t n, const std::string& name) {
  using Masks = EntryMasks<typename Types::device_type>;
  if (bin.level == RowLevel::tiny) {
    sum_tiny_masks<tiny_products, Types>(space, masks, ops, c_row_map, c_values, rows, n, name);
    return;
  }
  const std::int64_t most = masked_bin_window(bin, Masks::max_row);
  if (!is_host_space<ExecSpace>() && most <= thread_row_window && masks.lanes > one_word_mask_lanes) {
    sum_tiny_masks<thread_row_window, Types>(space, masks, ops, c_row_map, c_values, rows, n, name);
    return;
  }
  with_mask_words<Masks::max_words>(most, [&](auto words_constant) {
    constexpr int W = decltype(words_constant)::value;
    using Sum = SumEntryMasks<ExecSpace, Types, CRowMap, CValues, W>;
    Sum f;
    f.start = masks.start;
    f.words = masks.words;
    f.ops = ops;
    f.c_row_map = c_row_map;
    f.c_values = c_values;
    f.rows = rows;
    f.num_rows = n;
    f.window = static_cast<int>(most);
    f.lanes = is_host_space<ExecSpace>() ? 1 : sum_mask_lanes(masks.lanes, W);
    const int team_size = masked_team_size<ExecSpace>(f);
    const auto league = [&](int size) { return looping_league(space, (n + size - 1) / size, size * f.lanes); };
    const auto scratch = [&](int size) { return f.scratch_bytes(size); };
    launch_teams_on<Kokkos::TeamPolicy<ExecSpace>>(space, name, f, team_size, f.lanes, league, scratch);
  });
}

}  // namespace gustav::detail
