#pragma once
/// C = C_D + C_H (seed 001's merge): C_D = A_D * B holds every row of C,
/// C_H = A_H * B_H the heavy rows of A only (split_operands.hpp). Light rows
/// of C are C_D's rows; a heavy row is the union of two sorted rows, added
/// where both hold a column.
///
/// gustav::symbolic places every entry once: a team per heavy row finds
/// which of C_H's columns C_D's row holds (binary search), counts them
/// before each entry (a team scan), and from that each entry's position in
/// the union. The merge keeps those positions (one offset per entry of C_H
/// and per entry of C_D's heavy rows), so that each numeric call only
/// moves values: C_D's rows into C, then C_H's values added or stored.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/allocation.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/search.hpp"
#include "gustav/compression/compressed_rows.hpp"

namespace gustav::detail {

template <class Device, class Offset, class Ordinal>
struct MergePlan {
  template <class T>
  using view = Kokkos::View<T*, Device>;
  view<Offset> heavy_d_start;  ///< per heavy row: its first slot in d_position
  view<Offset> d_position;     ///< per entry of C_D's heavy rows: its position in C
  view<Offset> h_position;     ///< per entry of C_H: its position in C
  view<char> h_shared;         ///< per entry of C_H: whether C_D's row holds its column too
};

/// Rows of C given to one worker of the row kernels: a warp's lanes share
/// a row on GPUs, a CPU thread takes a block of rows.
template <class ExecSpace>
struct RowLanes {
  static constexpr int lanes = is_host_space<ExecSpace>() ? 1 : 8;
  static constexpr int workers = is_host_space<ExecSpace>() ? 1 : 32;
  static constexpr std::int64_t rows_per_worker = is_host_space<ExecSpace>() ? 256 : 1;
  static Kokkos::TeamPolicy<ExecSpace> policy(const ExecSpace& space, std::int64_t rows) {
    const std::int64_t per_team = workers * rows_per_worker;
    return Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(ceil_div<std::int64_t>(rows, per_team)), workers,
                                         lanes);
  }
};

/// Calls f(row) for every row of [0, rows), a worker per row (block).
template <class ExecSpace, class Member, class F>
KOKKOS_INLINE_FUNCTION void for_worker_rows(const Member& team, std::int64_t rows, const F& f) {
  using L = RowLanes<ExecSpace>;
  const std::int64_t first = static_cast<std::int64_t>(team.league_rank()) * L::workers * L::rows_per_worker;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, L::workers), [&](int w) {
    const std::int64_t begin = first + w * L::rows_per_worker;
    for (std::int64_t i = begin; i < begin + L::rows_per_worker && i < rows; ++i) f(i);
  });
}

/// The structure of C and the merge's positions. c_row_map must have
/// rows + 1 elements; C's entries are allocated here.
template <class ExecSpace, class Split, class DRowMap, class DEntries, class HRowMap, class HEntries, class CRowMap,
          class CEntries>
MergePlan<typename CRowMap::device_type, typename CRowMap::value_type, typename CEntries::value_type> merge_structure(const ExecSpace& space, const Split& s, const DRowMap& d_row_map, const DEntries& d_entries,
                     const HRowMap& h_row_map, const HEntries& h_entries, const CRowMap& c_row_map,
                     CEntries& c_entries) {
  using Offset = typename CRowMap::value_type;
  using Ordinal = typename CEntries::value_type;
  using Device = typename CRowMap::device_type;
  using Plan = MergePlan<Device, Offset, Ordinal>;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Team::member_type;
  const std::int64_t rows = static_cast<std::int64_t>(c_row_map.extent(0)) - 1;
  const std::int64_t heavy = s.heavy_a_rows_count;
  const std::int64_t h_nnz = static_cast<std::int64_t>(h_entries.extent(0));
  Plan m;
  m.h_position = allocate_view<typename Plan::template view<Offset>>(space, "gustav::hybrid::h_position", h_nnz, false);
  m.h_shared = allocate_view<typename Plan::template view<char>>(space, "gustav::hybrid::h_shared", h_nnz, false);
  m.heavy_d_start =
      allocate_view<typename Plan::template view<Offset>>(space, "gustav::hybrid::heavy_d_start", heavy + 1, true);
  auto heavy_rows = s.heavy_a_rows;
  // Per-row counts: C_D's rows, then the columns of C_H not in C_D's row.
  Kokkos::parallel_for(
      "gustav::hybrid::merge_counts", Range(space, 0, rows),
      KOKKOS_LAMBDA(std::int64_t i) { c_row_map(i + 1) = d_row_map(i + 1) - d_row_map(i); });
  auto d_start = m.heavy_d_start;
  if (heavy > 0)
    Kokkos::parallel_for(
        "gustav::hybrid::heavy_d_counts", Range(space, 0, heavy), KOKKOS_LAMBDA(std::int64_t r) {
          const auto i = heavy_rows(r);
          d_start(r + 1) = d_row_map(i + 1) - d_row_map(i);
        });
  const std::int64_t d_heavy_nnz = counts_to_offsets(space, m.heavy_d_start, "gustav::hybrid::heavy_d_scan");
  m.d_position =
      allocate_view<typename Plan::template view<Offset>>(space, "gustav::hybrid::d_position", d_heavy_nnz, false);
  // A team per heavy row: which of C_H's columns C_D's row holds, and how
  // many before each.
  auto shared = m.h_shared;
  auto h_before = allocate_view<typename Plan::template view<Offset>>(space, "gustav::hybrid::h_shared_before", h_nnz,
                                                                       false);
  const int team_size = is_host_space<ExecSpace>() ? 1 : 256;
  if (heavy > 0)
    Kokkos::parallel_for(
        "gustav::hybrid::merge_shared", Team(space, static_cast<int>(heavy), team_size),
        KOKKOS_LAMBDA(const Member& t) {
          const std::int64_t r = t.league_rank();
          const auto i = heavy_rows(r);
          const std::int64_t d0 = d_row_map(i), d1 = d_row_map(i + 1);
          const std::int64_t h0 = h_row_map(r), h1 = h_row_map(r + 1);
          Kokkos::parallel_scan(Kokkos::TeamThreadRange(t, h0, h1), [&](std::int64_t q, Offset& before, bool final) {
            const std::int64_t p = first_at_least(d_entries, d0, d1, h_entries(q));
            const bool both = p < d1 && d_entries(p) == h_entries(q);
            if (final) {
              shared(q) = both ? 1 : 0;
              h_before(q) = before;
            }
            before += both ? 1 : 0;
          });
          t.team_barrier();
          Kokkos::single(Kokkos::PerTeam(t), [&]() {
            const Offset last = h1 > h0 ? h_before(h1 - 1) + static_cast<Offset>(shared(h1 - 1)) : Offset(0);
            c_row_map(i + 1) += static_cast<Offset>(h1 - h0) - last;
          });
        });
  const std::int64_t nnz = counts_to_offsets(space, c_row_map, "gustav::hybrid::merge_scan");
  c_entries = allocate_result_view<CEntries>(space, "gustav::symbolic::c_entries", nnz, false);
  // Light rows: C_D's columns as they are.
  auto a_index = s.heavy_a_index;
  auto c_ent = c_entries;
  Kokkos::parallel_for("gustav::hybrid::merge_light", RowLanes<ExecSpace>::policy(space, rows),
                       KOKKOS_LAMBDA(const Member& t) {
                         for_worker_rows<ExecSpace>(t, rows, [&](std::int64_t i) {
                           if (a_index(i) >= 0) return;
                           const auto from = d_row_map(i), to = c_row_map(i);
                           Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, d_row_map(i + 1) - from),
                                                [&](std::int64_t k) { c_ent(to + k) = d_entries(from + k); });
                         });
                       });
  // Heavy rows: each entry's position in the union is its rank in its own
  // row plus the other row's columns below it, less the shared ones counted
  // twice.
  auto d_pos = m.d_position;
  auto h_pos = m.h_position;
  if (heavy > 0)
    Kokkos::parallel_for(
        "gustav::hybrid::merge_heavy", Team(space, static_cast<int>(heavy), team_size),
        KOKKOS_LAMBDA(const Member& t) {
          const std::int64_t r = t.league_rank();
          const auto i = heavy_rows(r);
          const std::int64_t d0 = d_row_map(i), d1 = d_row_map(i + 1);
          const std::int64_t h0 = h_row_map(r), h1 = h_row_map(r + 1);
          const std::int64_t c0 = c_row_map(i);
          const std::int64_t shared_total =
              h1 > h0 ? static_cast<std::int64_t>(h_before(h1 - 1)) + shared(h1 - 1) : 0;
          const auto slot0 = d_start(r);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, d0, d1), [&](std::int64_t p) {
            const std::int64_t q = first_at_least(h_entries, h0, h1, d_entries(p));
            const std::int64_t shared_below = q < h1 ? static_cast<std::int64_t>(h_before(q)) : shared_total;
            const std::int64_t at = c0 + (p - d0) + (q - h0) - shared_below;
            d_pos(slot0 + (p - d0)) = static_cast<Offset>(at);
            c_ent(at) = d_entries(p);
          });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, h0, h1), [&](std::int64_t q) {
            const std::int64_t p = first_at_least(d_entries, d0, d1, h_entries(q));
            const std::int64_t at = c0 + (p - d0) + (q - h0) - static_cast<std::int64_t>(h_before(q));
            if (!shared(q)) c_ent(at) = h_entries(q);
            h_pos(q) = static_cast<Offset>(at);
          });
        });
  return m;
}

/// C's values: C_D's rows into place, then C_H's values added where C_D's
/// row holds the column and stored where it does not.
template <class ExecSpace, class Split, class Merge, class DRowMap, class DValues, class HValues, class CRowMap,
          class CValues>
void merge_values(const ExecSpace& space, const Split& s, const Merge& m, const DRowMap& d_row_map,
                  const DValues& d_values, const HValues& h_values, const CRowMap& c_row_map, const CValues& c_values) {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  const std::int64_t rows = static_cast<std::int64_t>(c_row_map.extent(0)) - 1;
  auto a_index = s.heavy_a_index;
  auto d_start = m.heavy_d_start;
  auto d_pos = m.d_position;
  Kokkos::parallel_for("gustav::hybrid::merge_device_values", RowLanes<ExecSpace>::policy(space, rows),
                       KOKKOS_LAMBDA(const Member& t) {
                         for_worker_rows<ExecSpace>(t, rows, [&](std::int64_t i) {
                           if (a_index(i) >= 0) return;
                           const auto from = d_row_map(i);
                           const auto to = c_row_map(i);
                           Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, d_row_map(i + 1) - from),
                                                [&](std::int64_t k) { c_values(to + k) = d_values(from + k); });
                         });
                       });
  // Heavy rows (hubs, up to a row of B each) a team apiece: a worker's
  // lanes took 2.6 ms a launch over rmat:16:8's longest rows.
  const std::int64_t heavy = s.heavy_a_rows_count;
  auto heavy_rows = s.heavy_a_rows;
  if (heavy > 0)
    Kokkos::parallel_for(
        "gustav::hybrid::merge_heavy_values",
        Kokkos::TeamPolicy<ExecSpace>(space, static_cast<int>(heavy), is_host_space<ExecSpace>() ? 1 : 256),
        KOKKOS_LAMBDA(const Member& t) {
          const std::int64_t r = t.league_rank();
          const auto i = heavy_rows(r);
          const auto from = d_row_map(i);
          const auto slot0 = d_start(r);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, d_row_map(i + 1) - from),
                               [&](std::int64_t k) { c_values(d_pos(slot0 + k)) = d_values(from + k); });
        });
  auto h_pos = m.h_position;
  auto shared = m.h_shared;
  const std::int64_t h_nnz = static_cast<std::int64_t>(h_values.extent(0));
  if (h_nnz > 0)
    Kokkos::parallel_for(
        "gustav::hybrid::merge_host_values", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, h_nnz),
        KOKKOS_LAMBDA(std::int64_t q) {
          if (shared(q)) {
            c_values(h_pos(q)) += h_values(q);
          } else {
            c_values(h_pos(q)) = h_values(q);
          }
        });
}

}  // namespace gustav::detail
