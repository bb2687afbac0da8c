#pragma once
/// The numeric phase of a masked bin (entry_masks.hpp): a worker per row of
/// C, each lane summing the positions it owns in registers.
///
/// On GPUs lane l owns bit l of each of the row's mask words (position
/// 32 s + l); a bin's rows have at most as many entries as its worker has
/// lanes, or 32 lanes take rows of up to 32 * Words. For each entry of A a
/// lane whose bit is set reads the entry of B at the rank of its bit and
/// adds the product to its own sum. The lanes first copy up to one entry
/// each of the row's entries of A into scratch (its row of B's start and
/// length, its value and its words), so a row costs one round of dependent
/// global loads per `lanes` entries; the lanes then read the copy together
/// (one broadcast each), and the loads of B's values of one entry are
/// neighbouring. On CPUs (one lane) the thread walks each word's set bits
/// and sums into an array of the row's positions.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/bits.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class ExecSpace, class Types, class CRowMap, class CValues, int Words>
struct SumEntryMasks {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Masks = EntryMasks<Device>;
  using Word = typename Masks::Word;
  using Scalar = typename Types::scalar_type;
  using Index = std::uint32_t;  // offsets into B: masks are kept only where B has fewer than 2^32 entries
  static constexpr bool host = is_host_space<ExecSpace>();
  /// Positions a lane sums: one per word on GPUs, the whole row on CPUs.
  static constexpr int sums = host ? 32 * Masks::max_words : Words;

  Kokkos::View<const Word*, Device> start;
  Kokkos::View<const Word*, Device> words;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CValues c_values;
  RowList<Types> rows;
  std::int64_t num_rows = 0;
  int lanes = 1;

  /// A worker's copy of `lanes` entries of A (carved in this order).
  struct Cache {
    Scalar* a_value;
    Index* begin;
    Index* length;
    Word* mask;  ///< Words per entry
  };
  KOKKOS_INLINE_FUNCTION static Cache carve(Carver& c, int entries) {
    Cache k;
    k.a_value = c.take<Scalar>(entries);
    k.begin = c.take<Index>(entries);
    k.length = c.take<Index>(entries);
    k.mask = c.take<Word>(static_cast<std::int64_t>(entries) * Words);
    return k;
  }
  KOKKOS_INLINE_FUNCTION static std::size_t worker_bytes(int entries) {
    Carver c(nullptr);
    carve(c, entries);
    return (c.used() + 15) / 16 * 16;
  }
  KOKKOS_INLINE_FUNCTION std::size_t scratch_bytes(int team_size) const {
    return static_cast<std::size_t>(team_size) * worker_bytes(lanes);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    char* const base = static_cast<char*>(team.team_scratch(0).get_shmem(scratch_bytes(team.team_size())));
    Carver carver(base + static_cast<std::size_t>(team.team_rank()) * worker_bytes(lanes));
    const Cache cache = carve(carver, lanes);
    for_each_worker_row(team, num_rows, [&](const std::int64_t w) {
      const std::int64_t i = static_cast<std::int64_t>(rows(w));
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t need = static_cast<std::int64_t>(c_row_map(i + 1)) - c0;
      const int width = static_cast<int>(mask_words_for(need));
      const std::int64_t m0 = static_cast<std::int64_t>(start(i));
      std::int64_t a0, a1;
      ops.a_row(i, a0, a1);  // a broken row map sums nothing: the fingerprint reports it
      Scalar sum[sums];
      for (int s = 0; s < sums; ++s) sum[s] = Scalar();
      for (std::int64_t first = a0; first < a1; first += lanes) {
        const int m = a1 - first < lanes ? static_cast<int>(a1 - first) : lanes;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m), [&](const int q) {
          std::int64_t b0, b1;
          ops.b_row(static_cast<std::int64_t>(ops.a_entries(first + q)), b0, b1);
          cache.begin[q] = static_cast<Index>(b0);
          cache.length[q] = static_cast<Index>(b1 - b0);
          cache.a_value[q] = Scalar(ops.a_values(first + q));
          const std::int64_t at = m0 + (first + q - a0) * width;
          for (int s = 0; s < width && s < Words; ++s) cache.mask[q * Words + s] = words(at + s);
        });
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
          if constexpr (host) {
            for (int q = 0; q < m; ++q) add_entry_bits(cache, q, width, sum);
          } else {
            for (int q = 0; q < m; q += group) add_entries_at_lane(cache, q, m, width, lane, sum);
          }
        });
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, lanes), [&](const int lane) {
        if constexpr (host) {
          for (std::int64_t p = 0; p < need; ++p) c_values(c0 + p) = sum[p];
        } else {
          for (int s = 0; s < Words; ++s) {
            const std::int64_t p = 32 * s + lane;
            if (p < need) c_values(c0 + p) = sum[s];
          }
        }
      });
    });
  }

  /// CPUs: adds cached entry q's products at the positions of its set bits.
  KOKKOS_INLINE_FUNCTION void add_entry_bits(const Cache& cache, int q, int width, Scalar* sum) const {
    const Scalar a = cache.a_value[q];
    const std::int64_t b0 = static_cast<std::int64_t>(cache.begin[q]);
    const int length = static_cast<int>(cache.length[q]);
    int rank = 0;
    for (int s = 0; s < width && s < Words; ++s)
      for (Word rest = cache.mask[q * Words + s]; rest != 0; rest &= rest - 1, ++rank)
        if (rank < length) sum[32 * s + lowest_bit32(rest)] += a * Scalar(ops.b_values(b0 + rank));
  }

  /// GPUs: entries per step of add_entries_at_lane.
  static constexpr int group = 4;

  /// GPUs: adds the products of cached entries q to q + group - 1 (those
  /// below m) at this lane's positions: all their values are loaded before
  /// any is added, so a lane has up to group * Words loads in flight, and
  /// they are added in the order of the entries (the bits repeat).
  KOKKOS_INLINE_FUNCTION void add_entries_at_lane(const Cache& cache, int q, int m, int width, int lane,
                                                  Scalar* sum) const {
    Scalar term[group][Words];
    const Word below_lane = (Word(1) << lane) - 1u;
#pragma unroll
    for (int u = 0; u < group; ++u) {
      const int e = q + u < m ? q + u : q;  // past the end: a copy of entry q, added as zero
      const Scalar a = cache.a_value[e];
      const std::int64_t b0 = static_cast<std::int64_t>(cache.begin[e]);
      const int length = static_cast<int>(cache.length[e]);
      int below = 0;  // set bits of the earlier words
#pragma unroll
      for (int s = 0; s < Words; ++s) {
        const Word word = s < width ? cache.mask[e * Words + s] : Word(0);
        const int rank = below + popcount32(word & below_lane);
        // Within the row of B whatever the masks say (a changed structure
        // reads no entry outside it; the fingerprint reports the change).
        const bool mine = q + u < m && ((word >> lane) & 1u) && rank < length;
        term[u][s] = mine ? a * Scalar(ops.b_values(b0 + rank)) : Scalar();
        below += popcount32(word);
      }
    }
#pragma unroll
    for (int u = 0; u < group; ++u)
#pragma unroll
      for (int s = 0; s < Words; ++s) sum[s] += term[u][s];
  }
};

/// Lanes of a masked bin's workers on GPUs: as many as its rows' entries of
/// C where one word holds them (at least 4), else a warp.
inline int mask_lanes_for(const RowBin& bin, int words) {
  if (words > 1) return 32;
  const std::int64_t most = bin.level == RowLevel::tiny ? tiny_products : bin.max_need;
  int lanes = 4;
  while (lanes < 32 && lanes < most) lanes *= 2;
  return lanes;
}

/// Sums the rows `rows` of one masked bin into `c_values`.
template <class Types, class ExecSpace, class CRowMap, class CValues>
void sum_entry_masks(const ExecSpace& space, const EntryMasks<typename Types::device_type>& masks, const RowBin& bin,
                     const ProductOperands<Types>& ops, const CRowMap& c_row_map, const CValues& c_values,
                     const RowList<Types>& rows, std::int64_t n, const std::string& name) {
  using Masks = EntryMasks<typename Types::device_type>;
  const std::int64_t most = bin.level == RowLevel::tiny ? tiny_products : bin.max_need;
  const int words = static_cast<int>(mask_words_for(most < Masks::max_row ? most : Masks::max_row));
  auto run = [&](auto words_constant) {
    constexpr int W = decltype(words_constant)::value;
    SumEntryMasks<ExecSpace, Types, CRowMap, CValues, W> f;
    f.start = masks.start;
    f.words = masks.words;
    f.ops = ops;
    f.c_row_map = c_row_map;
    f.c_values = c_values;
    f.rows = rows;
    f.num_rows = n;
    f.lanes = is_host_space<ExecSpace>() ? 1 : mask_lanes_for(bin, W);
    const int team_size = is_host_space<ExecSpace>() ? 1 : 256 / f.lanes;
    launch_teams(space, name, f, team_size, f.lanes,
                 [&](int size) { return looping_league(space, (n + size - 1) / size, size * f.lanes); },
                 [&](int size) { return f.scratch_bytes(size); });
  };
  if constexpr (is_host_space<ExecSpace>()) {
    run(std::integral_constant<int, Masks::max_words>{});
  } else if (words <= 1) {
    run(std::integral_constant<int, 1>{});
  } else if (words <= 2) {
    run(std::integral_constant<int, 2>{});
  } else {
    run(std::integral_constant<int, Masks::max_words>{});
  }
}

}  // namespace gustav::detail
