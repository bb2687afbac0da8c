#pragma once
/// The colouring numeric phase's schedule (seed 002's KKMCR and KKMCW),
/// made once by gustav::symbolic and kept in the plan: C's rows coloured
/// (colour_rows.hpp), the colours taken `colours_per_group` at a time, each
/// group's rows listed together with the array (slot) of their colour.
/// KKMCR lists a group's rows by row index, so that neighbouring threads
/// read neighbouring rows of A; KKMCW by colour and then row index, so that
/// neighbouring threads write the same colour's array.
///
/// The colouring is checked before it is used: every row of a group claims
/// its columns in its colour's array, and a column claimed twice means two
/// rows of one colour share it (the colouring is wrong, a Gustav or Kokkos
/// Kernels bug): gustav::internal_error instead of a wrong product.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gustav/colouring/colour_rows.hpp"
#include "gustav/colouring/colouring_work.hpp"
#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"
#include "gustav/spgemm/kernel_errors.hpp"
#include "gustav/spmv/row_mapping.hpp"
#include "gustav/team/levels.hpp"

namespace gustav::detail {

template <class Device, class Ordinal>
struct ColourSchedule {
  bool used = false;
  std::int64_t colours = 0;
  std::int64_t colours_per_group = 0;
  /// Group g's rows are order(group_offsets[g]) .. order(group_offsets[g+1] - 1).
  std::vector<std::int64_t> group_offsets;
  Kokkos::View<Ordinal*, Device> order;
  /// The array of each listed row's colour within its group (colour modulo
  /// colours_per_group), beside `order`.
  Kokkos::View<int*, Device> slots;
  /// Workers, lanes and rows per worker of the numeric launches.
  RowMapping mapping;
};

/// The value a colour array holds where no row has marked its column: above
/// every position of C, whatever the offset type's signedness.
template <class Offset>
KOKKOS_INLINE_FUNCTION constexpr Offset unmarked_position() {
  using Unsigned = std::make_unsigned_t<Offset>;
  if constexpr (std::is_signed_v<Offset>) return static_cast<Offset>(static_cast<Unsigned>(~Unsigned(0)) >> 1);
  return static_cast<Offset>(~Unsigned(0));
}

/// Colours handled at once: about nnz(C) / cols(C) (seed 002: enough
/// arrays for the rows of a group to fill the machine, as many bytes in all
/// as a position per entry of C), no more than there are colours, and no
/// more than `room` bytes of arrays allow (at least one).
inline std::int64_t colours_per_group_for(std::int64_t colours, std::int64_t nnz, std::int64_t cols,
                                          std::size_t array_bytes, std::size_t room) {
  const std::int64_t wanted = cols > 0 ? (nnz + cols - 1) / cols : 1;
  const auto fitting = static_cast<std::int64_t>(array_bytes > 0 ? room / array_bytes : colours);
  return std::max<std::int64_t>(1, std::min({wanted, colours, fitting}));
}

/// One group of a schedule as its kernels see it: the group's listed rows,
/// each with its colour's array (`positions` holds a group's arrays of
/// `cols` offsets one after another).
template <class Order, class Slots, class Positions>
struct ColourGroup {
  using Offset = typename Positions::value_type;
  using device_type = typename Positions::device_type;
  Order order;
  Slots slots;
  Positions positions;
  std::int64_t cols = 0;
  std::int64_t begin = 0;  ///< the group's first listed row
  std::int64_t rows = 0;   ///< the group's rows
  int rows_per_worker = 1;

  /// Calls f(row, marks) for every row of the group the calling worker
  /// owns, `marks` pointing at the row's colour's array.
  template <class Member, class F>
  KOKKOS_INLINE_FUNCTION void for_each_row(const Member& team, const F& f) const {
    for_each_worker_row(team, rows, rows_per_worker, [&](std::int64_t i) {
      Offset* marks = positions.data() + static_cast<std::int64_t>(slots(begin + i)) * cols;
      f(static_cast<std::int64_t>(order(begin + i)), marks);
    });
  }
};

/// Marks (or, with `clear`, unmarks) the columns of a group's rows in their
/// colours' arrays; a column found marked by another row of its colour
/// sets `conflicts`.
template <class ExecSpace, class RowMap, class Entries, class Group>
struct ClaimColumns {
  using Offset = std::remove_const_t<typename RowMap::value_type>;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  RowMap row_map;
  Entries entries;
  Group group;
  Kokkos::View<int, typename Group::device_type> conflicts;
  bool clear = false;

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    group.for_each_row(team, [&](std::int64_t row, Offset* marks) {
      const auto start = row_map(row), end = row_map(row + 1);
      WorkerLevel::for_each(team, static_cast<std::int64_t>(end - start), [&](std::int64_t q) {
        Offset* mark = marks + static_cast<std::int64_t>(entries(start + q));
        if (clear) {
          *mark = unmarked_position<Offset>();
        } else {
          const Offset before = Kokkos::atomic_exchange(mark, static_cast<Offset>(start + q));
          if (before != unmarked_position<Offset>()) conflicts() = 1;
        }
      });
    });
  }
};

/// Builds the schedule for the structure (row_map, entries) of C, whose
/// rows take `products` products over `a_nnz` entries of A; `by_colour`
/// lists rows by colour within a group (KKMCW), else by row (KKMCR).
/// Refuses, naming `who`, a product whose colouring would cost far more
/// than the product (colouring_work.hpp). Checks the colouring with arrays
/// from `temp` (within its budget). `array_room` caps the bytes of the
/// arrays the numeric phase will hold at once.
template <class ExecSpace, class Ordinal, class RowMap, class Entries>
ColourSchedule<typename RowMap::device_type, Ordinal> make_colour_schedule(
    const ExecSpace& space, std::int64_t num_rows, std::int64_t num_cols, const RowMap& row_map,
    const Entries& entries, std::int64_t products, std::int64_t a_nnz, bool by_colour, std::size_t array_room,
    const char* who, TempMemory& temp) {
  using Device = typename RowMap::device_type;
  using Offset = std::remove_const_t<typename RowMap::value_type>;
  ColourSchedule<Device, Ordinal> s;
  s.used = true;
  const std::int64_t nnz = static_cast<std::int64_t>(entries.extent(0));
  check_colouring_work(space, entries, num_cols, products, who, temp);
  const std::vector<std::int64_t> colours = colour_rows(space, num_rows, num_cols, row_map, entries);
  std::int64_t count = num_rows > 0 ? 1 : 0;
  for (const std::int64_t c : colours) {
    if (c < 0) throw internal_error("gustav::colouring: KokkosGraph left a row of C uncoloured");
    count = std::max(count, c + 1);
  }
  s.colours = count;
  const std::size_t array_bytes = static_cast<std::size_t>(std::max<std::int64_t>(num_cols, 1)) * sizeof(Offset);
  s.colours_per_group = colours_per_group_for(count, nnz, num_cols, array_bytes, array_room);
  const std::int64_t groups = count > 0 ? (count + s.colours_per_group - 1) / s.colours_per_group : 0;

  // A counting sort of the rows by bucket: by colour (KKMCW) or by group
  // (KKMCR). Colours are numbered group by group, so either way each
  // group's rows lie together, in row order within a bucket.
  const std::int64_t per_bucket = by_colour ? 1 : s.colours_per_group;
  const std::int64_t buckets = count > 0 ? (count + per_bucket - 1) / per_bucket : 0;
  std::vector<std::int64_t> bucket_start(static_cast<std::size_t>(buckets) + 1, 0);
  for (const std::int64_t c : colours) bucket_start[static_cast<std::size_t>(c / per_bucket) + 1]++;
  for (std::int64_t b = 0; b < buckets; ++b) bucket_start[b + 1] += bucket_start[b];
  s.group_offsets.assign(static_cast<std::size_t>(groups) + 1, 0);
  for (std::int64_t g = 0; g <= groups; ++g) {
    const std::int64_t first_bucket = std::min(buckets, g * s.colours_per_group / per_bucket);
    s.group_offsets[g] = bucket_start[first_bucket];
  }
  s.order = allocate_view<Kokkos::View<Ordinal*, Device>>(space, "gustav::colouring::order", num_rows, false);
  s.slots = allocate_view<Kokkos::View<int*, Device>>(space, "gustav::colouring::slots", num_rows, false);
  auto host_order = Kokkos::create_mirror_view(s.order);
  auto host_slots = Kokkos::create_mirror_view(s.slots);
  std::vector<std::int64_t> next(bucket_start.begin(), bucket_start.end() - 1);
  for (std::int64_t i = 0; i < num_rows; ++i) {
    const std::int64_t c = colours[static_cast<std::size_t>(i)];
    const std::int64_t at = next[static_cast<std::size_t>(c / per_bucket)]++;
    host_order(at) = static_cast<Ordinal>(i);
    host_slots(at) = static_cast<int>(c % s.colours_per_group);
  }
  Kokkos::deep_copy(space, s.order, host_order);
  Kokkos::deep_copy(space, s.slots, host_slots);

  // Lanes for the rows of B that share a worker; on CPUs a chunk of rows
  // of about a thousand products per thread.
  s.mapping = choose_row_mapping<ExecSpace>(num_rows, products);
  if constexpr (!is_host_space<ExecSpace>()) {
    s.mapping.vector_length = vector_length_for<ExecSpace>(a_nnz > 0 ? double(products) / double(a_nnz) : 0.0);
    s.mapping.team_size = row_mapping_threads_per_team / s.mapping.vector_length;
    s.mapping.rows_per_worker = 1;
  }

  if (nnz == 0) return s;
  auto positions = temp.allocate<Kokkos::View<Offset*, Device>>(
      space, "gustav::colouring::check_arrays",
      static_cast<std::size_t>(s.colours_per_group) * static_cast<std::size_t>(num_cols), false);
  Kokkos::deep_copy(space, positions, unmarked_position<Offset>());
  auto conflicts = make_error_flag<Device>(space, "gustav::colouring::conflicts");
  using Group = ColourGroup<decltype(s.order), decltype(s.slots), decltype(positions)>;
  using Claim = ClaimColumns<ExecSpace, RowMap, Entries, Group>;
  for (std::int64_t g = 0; g < groups; ++g) {
    RowMapping m = s.mapping;
    Claim claim{row_map, entries,
                Group{s.order, s.slots, positions, num_cols, s.group_offsets[g],
                      s.group_offsets[g + 1] - s.group_offsets[g], m.rows_per_worker},
                conflicts, false};
    if (claim.group.rows == 0) continue;
    const auto policy = row_policy<ExecSpace, Claim, typename Claim::Policy>(space, m, claim.group.rows, claim);
    Kokkos::parallel_for("gustav::colouring::check", policy, claim);
    claim.clear = true;
    Kokkos::parallel_for("gustav::colouring::check_clear", policy, claim);
  }
  int bad = 0;
  space.fence();
  Kokkos::deep_copy(bad, conflicts);
  temp.release(positions);
  if (bad) throw internal_error("gustav::colouring: two rows of one colour share a column of C (a wrong colouring)");
  return s;
}

}  // namespace gustav::detail
