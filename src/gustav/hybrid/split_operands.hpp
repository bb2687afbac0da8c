#pragma once
/// The split of C = A * B into the host's part and the device's (seed 001,
/// HH-CPU), built on the device from A's and B's structure:
///   A_D: every row of A, with the entries of heavy rows that name heavy
///        rows of B left out; the device computes A_D * B.
///   A_H: the heavy rows of A (compacted), with only those left-out entries,
///        their columns renumbered to the heavy rows of B; B_H: the heavy
///        rows of B (compacted). The host computes A_H * B_H.
/// A = A_D + A_H (placed back in its rows and columns), so C is the sum of
/// the two products, which merge_parts.hpp adds. Each entry of A_D and A_H
/// remembers the entry of A it came from, so that a numeric call gathers
/// their values (and checks their columns) in one pass.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/types.hpp"
#include "gustav/compression/compressed_rows.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

template <class Device, class Offset, class Ordinal>
struct SplitOperands {
  template <class T>
  using view = Kokkos::View<T*, Device>;
  std::int64_t heavy_a_rows_count = 0, heavy_b_rows_count = 0;
  std::int64_t a_row_nnz = 0, b_row_nnz = 0;  ///< the thresholds used (0: no heavy rows)
  std::int64_t host_products = 0;
  view<Ordinal> heavy_a_index;  ///< per row of A: its row in A_H, or -1
  view<Ordinal> heavy_a_rows;   ///< per row of A_H: its row of A
  view<Ordinal> heavy_b_index;  ///< per row of B: its row in B_H, or -1
  view<Ordinal> heavy_b_rows;   ///< per row of B_H: its row of B
  view<Offset> a_row_map;       ///< A's row map as symbolic saw it
  view<Offset> device_a_row_map;
  view<Ordinal> device_a_entries;
  view<Offset> device_a_source;  ///< per entry of A_D: its entry of A
  view<Offset> host_a_row_map;
  view<Ordinal> host_a_entries;  ///< rows of B_H
  view<Offset> host_a_source;    ///< per entry of A_H: its entry of A
  view<Offset> host_b_row_map;
  view<Ordinal> host_b_entries;
};

/// index(i) = the rank of row i among rows with at least `threshold` entries
/// (threshold 0: no row), -1 for the others; returns their number and fills
/// `rows` with them in order.
template <class ExecSpace, class RowMap, class IndexView>
std::int64_t index_heavy_rows(const ExecSpace& space, const RowMap& row_map, std::int64_t rows,
                              std::int64_t threshold, IndexView& index, IndexView& list, const std::string& label) {
  using Ordinal = typename IndexView::value_type;
  index = allocate_view<IndexView>(space, label + "_index", static_cast<std::size_t>(rows), false);
  std::int64_t count = 0;
  if (rows > 0)
    Kokkos::parallel_scan(
        (label + "_index").c_str(), Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, rows),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & partial, bool final) {
          const bool heavy = threshold > 0 && static_cast<std::int64_t>(row_map(i + 1) - row_map(i)) >= threshold;
          if (final) index(i) = heavy ? static_cast<Ordinal>(partial) : Ordinal(-1);
          partial += heavy ? 1 : 0;
        },
        count);
  list = allocate_view<IndexView>(space, label + "_rows", static_cast<std::size_t>(count), false);
  if (count > 0) {
    auto idx = index;
    auto out = list;
    Kokkos::parallel_for((label + "_rows").c_str(),
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, rows),
                         KOKKOS_LAMBDA(std::int64_t i) {
                           if (idx(i) >= 0) out(idx(i)) = static_cast<Ordinal>(i);
                         });
  }
  return count;
}

/// Throws overflow_error where a count does not fit the offset type.
template <class Offset>
void check_split_count(std::int64_t n, const char* what, const char* who) {
  if (n > max_count_of<Offset>())
    throw overflow_error(std::string(who) + ": " + what + " has " + std::to_string(n) +
                         " entries, more than the offset type " + offset_type_name<Offset>() + " holds");
}

/// Builds the split of A and B for thresholds tA = a_row_nnz, tB = b_row_nnz
/// (0: no heavy rows of that operand). A and B must be valid CSR.
template <class ExecSpace, class Offset, class Ordinal, class AInput, class BInput>
SplitOperands<Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>, Offset, Ordinal> split_operands(
    const ExecSpace& space, const AInput& A, const BInput& B, std::int64_t a_row_nnz, std::int64_t b_row_nnz,
    const char* who) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  using Split = SplitOperands<Device, Offset, Ordinal>;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  Split s;
  s.a_row_nnz = a_row_nnz;
  s.b_row_nnz = b_row_nnz;
  s.heavy_a_rows_count =
      index_heavy_rows(space, A.row_map, A.num_rows, a_row_nnz, s.heavy_a_index, s.heavy_a_rows, "gustav::hybrid::heavy_a");
  s.heavy_b_rows_count =
      index_heavy_rows(space, B.row_map, B.num_rows, b_row_nnz, s.heavy_b_index, s.heavy_b_rows, "gustav::hybrid::heavy_b");

  const std::int64_t n = A.num_rows;
  const std::int64_t nh = s.heavy_a_rows_count;
  s.a_row_map = allocate_view<typename Split::template view<Offset>>(space, "gustav::hybrid::a_row_map", n + 1, false);
  s.device_a_row_map =
      allocate_view<typename Split::template view<Offset>>(space, "gustav::hybrid::device_a_row_map", n + 1, true);
  s.host_a_row_map =
      allocate_view<typename Split::template view<Offset>>(space, "gustav::hybrid::host_a_row_map", nh + 1, true);
  {
    auto a_row_map = A.row_map;
    auto a_entries = A.entries;
    auto b_row_map = B.row_map;
    auto a_index = s.heavy_a_index;
    auto b_index = s.heavy_b_index;
    auto kept = s.a_row_map;
    auto dev = s.device_a_row_map;
    auto host = s.host_a_row_map;
    std::int64_t host_products = 0;
    if (n >= 0)
      Kokkos::parallel_reduce(
          "gustav::hybrid::split_counts", Range(space, 0, n + 1),
          KOKKOS_LAMBDA(std::int64_t i, std::int64_t & products) {
            kept(i) = static_cast<Offset>(a_row_map(i));
            if (i == n) return;
            const auto begin = a_row_map(i), end = a_row_map(i + 1);
            std::int64_t to_host = 0;
            const Ordinal r = a_index(i);
            if (r >= 0)
              for (auto j = begin; j < end; ++j) {
                const auto k = a_entries(j);
                if (b_index(k) >= 0) {
                  ++to_host;
                  products += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
                }
              }
            dev(i + 1) = static_cast<Offset>(static_cast<std::int64_t>(end - begin) - to_host);
            if (r >= 0) host(r + 1) = static_cast<Offset>(to_host);
          },
          host_products);
    s.host_products = host_products;
  }
  const std::int64_t device_nnz = counts_to_offsets(space, s.device_a_row_map, "gustav::hybrid::device_a_scan");
  const std::int64_t host_nnz = counts_to_offsets(space, s.host_a_row_map, "gustav::hybrid::host_a_scan");
  s.device_a_entries = allocate_view<typename Split::template view<Ordinal>>(space, "gustav::hybrid::device_a_entries",
                                                                              device_nnz, false);
  s.device_a_source =
      allocate_view<typename Split::template view<Offset>>(space, "gustav::hybrid::device_a_source", device_nnz, false);
  s.host_a_entries =
      allocate_view<typename Split::template view<Ordinal>>(space, "gustav::hybrid::host_a_entries", host_nnz, false);
  s.host_a_source =
      allocate_view<typename Split::template view<Offset>>(space, "gustav::hybrid::host_a_source", host_nnz, false);
  if (n > 0) {
    auto a_row_map = A.row_map;
    auto a_entries = A.entries;
    auto a_index = s.heavy_a_index;
    auto b_index = s.heavy_b_index;
    auto dev_map = s.device_a_row_map;
    auto dev_entries = s.device_a_entries;
    auto dev_source = s.device_a_source;
    auto host_map = s.host_a_row_map;
    auto host_entries = s.host_a_entries;
    auto host_source = s.host_a_source;
    Kokkos::parallel_for(
        "gustav::hybrid::split_fill", Range(space, 0, n), KOKKOS_LAMBDA(std::int64_t i) {
          const Ordinal r = a_index(i);
          auto d = dev_map(i);
          auto h = r >= 0 ? host_map(r) : Offset(0);
          for (auto j = a_row_map(i); j < a_row_map(i + 1); ++j) {
            const auto k = a_entries(j);
            const Ordinal hb = r >= 0 ? b_index(k) : Ordinal(-1);
            if (hb >= 0) {
              host_entries(h) = hb;
              host_source(h) = static_cast<Offset>(j);
              ++h;
            } else {
              dev_entries(d) = k;
              dev_source(d) = static_cast<Offset>(j);
              ++d;
            }
          }
        });
  }

  // B_H: the heavy rows of B, whole.
  const std::int64_t nb = s.heavy_b_rows_count;
  s.host_b_row_map =
      allocate_view<typename Split::template view<Offset>>(space, "gustav::hybrid::host_b_row_map", nb + 1, true);
  std::int64_t b_heavy_nnz = 0;
  if (nb > 0) {
    auto b_row_map = B.row_map;
    auto rows = s.heavy_b_rows;
    auto map = s.host_b_row_map;
    Kokkos::parallel_for(
        "gustav::hybrid::host_b_counts", Range(space, 0, nb), KOKKOS_LAMBDA(std::int64_t r) {
          const auto k = rows(r);
          map(r + 1) = static_cast<Offset>(b_row_map(k + 1) - b_row_map(k));
        });
    Kokkos::parallel_reduce(
        "gustav::hybrid::host_b_total", Range(space, 0, nb),
        KOKKOS_LAMBDA(std::int64_t r, std::int64_t & sum) {
          const auto k = rows(r);
          sum += static_cast<std::int64_t>(b_row_map(k + 1) - b_row_map(k));
        },
        b_heavy_nnz);
    check_split_count<Offset>(b_heavy_nnz, "B's heavy part", who);
    counts_to_offsets(space, s.host_b_row_map, "gustav::hybrid::host_b_scan");
  }
  s.host_b_entries =
      allocate_view<typename Split::template view<Ordinal>>(space, "gustav::hybrid::host_b_entries", b_heavy_nnz, false);
  return s;
}

}  // namespace gustav::detail
