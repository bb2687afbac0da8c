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

/// Counts the runs of each row of B into out(i + 1): a thread per row. (The
/// thread-per-row mapping, on CPUs, is the only one that compresses; a team
/// version with a vector scan and an atomic OR per entry took as long as
/// the counting pass itself there.) With `check` it also counts
/// B's faults as it reads B (a decreasing row map, a column outside
/// [0, num_cols)), so B needs no pass of its own for its checks; the
/// caller names the first fault through validate_csr.
template <class RowMap, class Entries, class OutRowMap>
struct CountRuns {
  RowMap row_map;
  Entries entries;
  OutRowMap out;
  std::int64_t num_cols = 0;
  std::int64_t nnz = 0;
  bool check = false;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& faults) const {
    const auto begin = row_map(i), end = row_map(i + 1);
    // A row map that steps down or out of [0, nnz(B)] names entries that
    // are not there: the row is a fault and is not read.
    if (check && (static_cast<std::int64_t>(begin) < 0 || end < begin || static_cast<std::int64_t>(end) > nnz)) {
      out(i + 1) = 0;
      faults += 1;
      return;
    }
    std::int64_t runs = begin < end ? 1 : 0;
    for (auto p = begin + 1; p < end; ++p)
      runs += (entries(p) >> column_set_shift) != (entries(p - 1) >> column_set_shift) ? 1 : 0;
    out(i + 1) = static_cast<typename OutRowMap::value_type>(runs);
    if (check) {
      std::int64_t bad = 0;
      for (auto p = begin; p < end; ++p) {
        const std::int64_t c = static_cast<std::int64_t>(entries(p));
        bad += c < 0 || c >= num_cols ? 1 : 0;
      }
      faults += bad;
    }
  }
};

/// Writes every run's set index and whole mask (masks need no zeroing).
template <class RowMap, class Entries, class CRowMap, class Sets, class Masks>
struct FillRuns {
  RowMap row_map;
  Entries entries;
  CRowMap comp_row_map;
  Sets sets;
  Masks masks;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const auto begin = row_map(i), end = row_map(i + 1);
    if (begin == end) return;
    auto out = comp_row_map(i);
    auto set = entries(begin) >> column_set_shift;
    std::uint32_t mask = 0;
    for (auto p = begin; p < end; ++p) {
      const auto col = entries(p);
      if ((col >> column_set_shift) != set) {
        sets(out) = set;
        masks(out) = mask;
        ++out;
        set = col >> column_set_shift;
        mask = 0;
      }
      mask |= std::uint32_t(1) << (col & ((1 << column_set_shift) - 1));
    }
    sets(out) = set;
    masks(out) = mask;
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
/// With `check` it also checks B's row map and column indices as it reads
/// them (`checked` tells whether it did: not where it does not compress at
/// all) and calls `on_fault` before using them if they are malformed.
template <class ExecSpace, class Device, class BInput, class OnFault>
auto build_product_source(const ExecSpace& space, const BInput& B, bool try_compress, bool force, double max_ratio,
                          bool check, const OnFault& on_fault, TempMemory& temp, double& ratio, bool& checked) {
  using Offset = std::remove_const_t<typename decltype(B.row_map)::value_type>;
  using Ordinal = std::remove_const_t<typename decltype(B.entries)::value_type>;
  using Source = ProductSource<Device, Offset, Ordinal>;
  Source plain;
  plain.row_map = B.row_map;
  plain.keys = B.entries;
  plain.key_shift = 0;
  plain.compressed = false;
  ratio = 1.0;
  checked = false;
  if (!try_compress || B.num_rows == 0 || B.nnz() == 0) return plain;

  auto row_map = temp.allocate_scratch<Kokkos::View<Offset*, Device>>(
      space, "gustav::compression::row_map", B.num_rows + 1, false);
  using Rows = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  std::int64_t faults = 0;
  Kokkos::parallel_reduce("gustav::compression::count_runs", Rows(space, 0, B.num_rows),
                          CountRuns<decltype(B.row_map), decltype(B.entries), decltype(row_map)>{
                              B.row_map, B.entries, row_map, B.num_cols, B.nnz(), check},
                          faults);
  checked = check;
  if (faults > 0) {
    temp.release(row_map);
    on_fault();
  }
  const std::int64_t runs = counts_to_offsets(space, row_map, "gustav::compression::scan_runs");
  ratio = static_cast<double>(runs) / static_cast<double>(B.nnz());
  if (!force && ratio > max_ratio) {
    temp.release(row_map);
    return plain;
  }
  auto sets = temp.allocate_scratch<Kokkos::View<Ordinal*, Device>>(space, "gustav::compression::sets", runs, false);
  auto masks =
      temp.allocate_scratch<Kokkos::View<std::uint32_t*, Device>>(space, "gustav::compression::masks", runs, false);
  Kokkos::parallel_for("gustav::compression::fill_runs", Rows(space, 0, B.num_rows),
                       FillRuns<decltype(B.row_map), decltype(B.entries), decltype(row_map), decltype(sets),
                                decltype(masks)>{B.row_map, B.entries, row_map, sets, masks});
  Source s;
  s.row_map = row_map;
  s.keys = sets;
  s.masks = masks;
  s.key_shift = column_set_shift;
  s.compressed = true;
  return s;
}

}  // namespace gustav::detail
