#pragma once
/// Compressed B for the symbolic phase (KKMEM, seed 002): each run of entries
/// of a row of B that fall in the same block of 32 columns becomes one pair
/// (column-set index = column / 32, mask of the columns present). The union
/// of rows of B then costs one hash insert and one OR per pair instead of one
/// insert per column, and nnz of a row of C is a sum of popcounts.
///
/// Runs are taken in stored order, so an unsorted row may yield the same set
/// index twice; that only loosens the bound, the OR makes it right.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"

namespace gustav::detail {

/// The rows the symbolic phase walks: either the compressed B (keys are set
/// indices, masks select columns) or B itself (keys are columns, mask 1).
template <class Device, class Offset, class Ordinal>
struct ProductSource {
  Kokkos::View<const Offset*, Device> row_map;
  Kokkos::View<const Ordinal*, Device> keys;
  Kokkos::View<const std::uint32_t*, Device> masks;
  int key_shift = 0;  ///< column = (key << key_shift) + bit
  bool compressed = false;

  KOKKOS_INLINE_FUNCTION std::uint32_t mask(Offset p) const {
    return compressed ? masks(p) : 1u;
  }
};

constexpr int column_set_shift = 5;  // 32 columns per set

/// Frees a compressed B before its phase ends (B itself is left alone).
template <class Source>
void release_product_source(Source& source, TempMemory& temp) {
  if (source.compressed) {
    temp.release(source.row_map);
    temp.release(source.keys);
    temp.release(source.masks);
  }
  source = Source();
}

/// Counts the runs of each row of B into row_map(i + 1).
template <class Member, class RowMap, class Entries, class OutRowMap>
struct CountRuns {
  RowMap row_map;
  Entries entries;
  OutRowMap out;
  std::int64_t num_rows;
  int rows_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < num_rows ? first + rows_per_team : num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t i) {
      const auto begin = row_map(i);
      const auto end = row_map(i + 1);
      std::int64_t runs = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, begin, end),
          [&](decltype(begin) p, std::int64_t& n) {
            const bool head = p == begin || (entries(p) >> column_set_shift) !=
                                                (entries(p - 1) >> column_set_shift);
            n += head ? 1 : 0;
          },
          runs);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        out(i + 1) = static_cast<typename OutRowMap::value_type>(runs);
      });
    });
  }
};

/// Writes the set index of each run at its slot and ORs each entry's bit into
/// its run's mask (masks must be zero on entry).
template <class Member, class RowMap, class Entries, class CRowMap, class Sets, class Masks>
struct FillRuns {
  RowMap row_map;
  Entries entries;
  CRowMap comp_row_map;
  Sets sets;
  Masks masks;
  std::int64_t num_rows;
  int rows_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < num_rows ? first + rows_per_team : num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](std::int64_t i) {
      const auto begin = row_map(i);
      const auto end = row_map(i + 1);
      const auto out_begin = comp_row_map(i);
      // A zero-based range: Kokkos 3.4's CUDA vector scan ignores a range's
      // begin and would visit [0, end).
      const int length = static_cast<int>(end - begin);
      Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, length),
                            [&](int q, std::int64_t& runs_before, bool final) {
                              const auto p = begin + q;
                              const auto col = entries(p);
                              const auto set = col >> column_set_shift;
                              const bool head =
                                  p == begin || set != (entries(p - 1) >> column_set_shift);
                              if (final) {
                                const std::int64_t run = head ? runs_before : runs_before - 1;
                                if (head) sets(out_begin + run) = set;
                                Kokkos::atomic_fetch_or(
                                    &masks(out_begin + run),
                                    std::uint32_t(1) << (col & ((1 << column_set_shift) - 1)));
                              }
                              runs_before += head ? 1 : 0;
                            });
    });
  }
};

template <class RowMapView>
struct ExclusiveScanInPlace {
  RowMapView row_map;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& sum, bool final) const {
    // row_map(i + 1) holds row i's count on entry; row_map(0) is set to 0.
    const std::int64_t count = i == 0 ? 0 : static_cast<std::int64_t>(row_map(i));
    sum += count;
    if (final) row_map(i) = static_cast<typename RowMapView::value_type>(sum);
  }
};

/// Turns per-row counts stored at row_map(i + 1) into offsets; returns the total.
template <class ExecSpace, class RowMapView>
std::int64_t counts_to_offsets(const ExecSpace& space, const RowMapView& row_map, const char* label) {
  const std::int64_t n = static_cast<std::int64_t>(row_map.extent(0));
  if (n == 0) return 0;
  std::int64_t total = 0;
  Kokkos::parallel_scan(label,
                        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
                        ExclusiveScanInPlace<RowMapView>{row_map}, total);
  return total;
}

/// Builds the compressed B. Returns the source with compressed == false (B
/// itself) when `mode_always` is false and compression would keep more than
/// `max_ratio` of B's entries; `ratio` receives compressed/original either way.
template <class ExecSpace, class Device, class BInput>
auto build_product_source(const ExecSpace& space, const BInput& B, bool try_compress,
                          bool force, double max_ratio, TempMemory& temp, double& ratio) {
  using Offset = std::remove_const_t<typename decltype(B.row_map)::value_type>;
  using Ordinal = std::remove_const_t<typename decltype(B.entries)::value_type>;
  using Source = ProductSource<Device, Offset, Ordinal>;
  Source plain;
  plain.row_map = B.row_map;
  plain.keys = B.entries;
  plain.key_shift = 0;
  plain.compressed = false;
  ratio = 1.0;
  if (!try_compress || B.num_rows == 0 || B.nnz() == 0) return plain;

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const double avg = static_cast<double>(B.nnz()) / static_cast<double>(B.num_rows);
  const int vector = vector_length_for<ExecSpace>(avg);
  const int rows_per_team = is_host_space<ExecSpace>() ? 256 : 256 / vector;
  const int league = static_cast<int>(ceil_div<std::int64_t>(B.num_rows, rows_per_team));
  const int team_size = is_host_space<ExecSpace>() ? 1 : rows_per_team;

  auto row_map = temp.allocate<Kokkos::View<Offset*, Device>>(
      space, "gustav::compression::row_map", B.num_rows + 1, false);
  Kokkos::parallel_for("gustav::compression::count_runs", Policy(space, league, team_size, vector),
                       CountRuns<Member, decltype(B.row_map), decltype(B.entries), decltype(row_map)>{
                           B.row_map, B.entries, row_map, B.num_rows, rows_per_team});
  const std::int64_t runs = counts_to_offsets(space, row_map, "gustav::compression::scan_runs");
  ratio = static_cast<double>(runs) / static_cast<double>(B.nnz());
  if (!force && ratio > max_ratio) {
    temp.release(row_map);
    return plain;
  }
  auto sets = temp.allocate<Kokkos::View<Ordinal*, Device>>(space, "gustav::compression::sets",
                                                            runs, false);
  auto masks = temp.allocate<Kokkos::View<std::uint32_t*, Device>>(
      space, "gustav::compression::masks", runs, true);
  Kokkos::parallel_for("gustav::compression::fill_runs", Policy(space, league, team_size, vector),
                       FillRuns<Member, decltype(B.row_map), decltype(B.entries), decltype(row_map),
                                decltype(sets), decltype(masks)>{B.row_map, B.entries, row_map, sets,
                                                                 masks, B.num_rows, rows_per_team});
  Source s;
  s.row_map = row_map;
  s.keys = sets;
  s.masks = masks;
  s.key_shift = column_set_shift;
  s.compressed = true;
  return s;
}

}  // namespace gustav::detail
