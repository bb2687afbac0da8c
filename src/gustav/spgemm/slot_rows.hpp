#pragma once
/// The walk of kept products by slot (product_slots.hpp), shared by the
/// symbolic phase, which records each product's slot, and the numeric
/// phase, which adds each product at its slot.
///
/// A team takes a block of consecutive rows (ProductSlots::block_start),
/// whose entries of C fit its scratch window; a worker takes a row at a
/// time, its lanes one row of B at a time. Each vector loop ends with the
/// worker's lanes synchronised, so the products of one row of B (distinct
/// columns) are added at once and those of the next after them: every
/// entry's sum runs in the order of A's entries, on every call.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "gustav/common/search.hpp"
#include "gustav/spgemm/product_slots.hpp"
#include "gustav/spgemm/product_walk.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

/// A worker's scratch copy of up to `capacity` entries of its row of A: where
/// each one's row of B starts, how long it is, and (when summing) the entry's
/// value. The lanes load the copy at once, so a row costs one round of
/// dependent global loads per `capacity` entries instead of one per entry.
/// Offsets into B in 32 bits whatever B's offset type: a plan keeps
/// products only where B has fewer than 2^32 entries (and every numeric call
/// has B's entry count checked against the plan's), and the caches take
/// scratch from the window (with 64-bit offsets, rows of B of two entries
/// left complex products a window of 512 entries instead of 1,024).
template <class Scalar>
struct SlotRowCache {
  using Index = std::uint32_t;
  static constexpr int capacity = 16;
  Scalar* a_value = nullptr;
  Index* begin = nullptr;
  Index* length = nullptr;

  /// Carves the cache from `carver` (measures it where the carver's base is null).
  KOKKOS_INLINE_FUNCTION static SlotRowCache carve(Carver& carver) {
    SlotRowCache c;
    c.a_value = carver.take<Scalar>(capacity);
    c.begin = carver.take<Index>(capacity);
    c.length = carver.take<Index>(capacity);
    return c;
  }
  /// A worker's bytes of scratch, as carve() takes them.
  KOKKOS_INLINE_FUNCTION static std::size_t bytes() {
    Carver c(nullptr);
    carve(c);
    return c.used();
  }
};

/// Walks row i's products in walk order: f(t, p, a) for product t (its
/// number in walk order, from slots.row_start(i)), entry p of B and A's
/// value a (Scalar() where `with_values` is false): a vector loop per entry
/// of A, its lanes over the entry's row of B. Must be called by all lanes
/// of the worker. Products past row_start(i + 1) (a structure changed since
/// the slots were recorded: the numeric phase's fingerprint reports it) are
/// skipped, so the walk never leaves the row's slots (two lanes may then
/// add to one slot at once: the call raises plan_mismatch and C's values
/// are not to be used). Sets `bad` where A's row or a row of B is malformed.
/// Tried and dropped for the numeric phase: the lanes loading eight
/// entries' slots and values before adding any (register arrays, then a
/// vector loop per entry to add them): 2 to 3.6 times slower on every
/// product measured (an H200, lap3d:120's A * A 0.72 -> 1.67 ms a repeat).
template <bool with_values, class Member, class Ops, class Slots, class Cache, class F>
KOKKOS_INLINE_FUNCTION void walk_slot_row(const Member& team, const Ops& ops, const Slots& slots, const Cache& cache,
                                          std::int64_t i, bool& bad, const F& f) {
  using Index = std::remove_pointer_t<decltype(cache.begin)>;
  using Scalar = std::remove_pointer_t<decltype(cache.a_value)>;
  std::int64_t a0, a1;
  if (!ops.a_row(i, a0, a1)) bad = true;
  std::int64_t t = static_cast<std::int64_t>(slots.row_start(i));
  const std::int64_t t_end = static_cast<std::int64_t>(slots.row_start(i + 1));
  for (std::int64_t first = a0; first < a1; first += Cache::capacity) {
    const int m = a1 - first < Cache::capacity ? static_cast<int>(a1 - first) : Cache::capacity;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, m), [&](const int q) {
      std::int64_t b0, b1;
      if (!ops.b_row(static_cast<std::int64_t>(ops.a_entries(first + q)), b0, b1)) bad = true;
      cache.begin[q] = static_cast<Index>(b0);
      cache.length[q] = static_cast<Index>(b1 - b0);
      if constexpr (with_values) cache.a_value[q] = Scalar(ops.a_values(first + q));
    });
    for (int q = 0; q < m; ++q) {
      const std::int64_t b0 = static_cast<std::int64_t>(cache.begin[q]);
      const std::int64_t room = t_end - t;
      const std::int64_t len = cache.length[q] < room ? static_cast<std::int64_t>(cache.length[q]) : room;
      Scalar a = Scalar();
      if constexpr (with_values) a = cache.a_value[q];
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, len), [&](const std::int64_t u) { f(t + u, b0 + u, a); });
      t += len;
    }
  }
}

/// The shape both slot kernels share: `lanes` from the slots, as many
/// workers as make 128 threads on GPUs, one thread on CPUs.
template <class ExecSpace>
struct SlotTeamShape {
  int workers = 1, lanes = 1;
  template <class Slots>
  explicit SlotTeamShape(const Slots& slots) {
    if constexpr (!is_host_space<ExecSpace>()) {
      lanes = slots.lanes;
      workers = slots.workers;
    }
  }
};

/// The symbolic phase's visit: each product's offset in C's sorted row.
template <class ExecSpace, class Types, class CRowMap, class CEntries>
struct RecordSlots {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Slots = ProductSlots<Device>;
  using Cache = SlotRowCache<char>;
  Slots slots;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CEntries c_entries;
  ErrorFlag<Device> errors;

  KOKKOS_INLINE_FUNCTION static std::size_t worker_bytes() { return Cache::bytes(); }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t b = team.league_rank();
    const std::int64_t r0 = static_cast<std::int64_t>(slots.block_start(b));
    const std::int64_t r1 = static_cast<std::int64_t>(slots.block_start(b + 1));
    char* const base = static_cast<char*>(team.team_scratch(0).get_shmem(team.team_size() * worker_bytes()));
    Carver carver(base + team.team_rank() * worker_bytes());
    const Cache cache = Cache::carve(carver);
    bool bad = false, lost = false;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, r0, r1), [&](const std::int64_t i) {
      const std::int64_t c0 = static_cast<std::int64_t>(c_row_map(i));
      const std::int64_t c1 = static_cast<std::int64_t>(c_row_map(i + 1));
      walk_slot_row<false>(team, ops, slots, cache, i, bad, [&](std::int64_t t, std::int64_t p, char) {
        const std::int64_t e = find_sorted(c_entries, c0, c1, ops.b_entries(p));
        if (e < 0) {
          lost = true;
          return;
        }
        slots.slot(t) = static_cast<typename Slots::Slot>(e - c0);
      });
    });
    if (bad) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_bad_b));
    if (lost) Kokkos::atomic_fetch_or(&errors(), std::int64_t(error_structure_changed));
  }
};

/// The numeric phase: the block's entries of C summed in the team's scratch
/// window, then written out together.
template <class ExecSpace, class Types, class CRowMap, class CValues>
struct SumKeptSlots {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Device = typename Types::device_type;
  using Slots = ProductSlots<Device>;
  using Scalar = typename Types::scalar_type;
  using Cache = SlotRowCache<Scalar>;
  Slots slots;
  ProductOperands<Types> ops;
  CRowMap c_row_map;
  CValues c_values;

  KOKKOS_INLINE_FUNCTION static std::size_t worker_bytes() { return Cache::bytes(); }
  KOKKOS_INLINE_FUNCTION static std::size_t window_bytes(std::int64_t window) { return (window * sizeof(Scalar) + 15) / 16 * 16; }
  /// The team's scratch: the window, then each worker's cache (sizes in
  /// multiples of 16 bytes, so Kokkos' rounding adds nothing).
  static std::size_t scratch_bytes(std::int64_t window, int workers) {
    return window_bytes(window) + workers * worker_bytes();
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const std::int64_t b = team.league_rank();
    const std::int64_t r0 = static_cast<std::int64_t>(slots.block_start(b));
    const std::int64_t r1 = static_cast<std::int64_t>(slots.block_start(b + 1));
    Scalar* const window = static_cast<Scalar*>(team.team_scratch(0).get_shmem(window_bytes(slots.window)));
    char* const caches = static_cast<char*>(team.team_scratch(0).get_shmem(team.team_size() * worker_bytes()));
    Carver carver(caches + team.team_rank() * worker_bytes());
    const Cache cache = Cache::carve(carver);
    const std::int64_t first = r0 < r1 ? static_cast<std::int64_t>(c_row_map(r0)) : 0;
    const std::int64_t n = r0 < r1 ? static_cast<std::int64_t>(c_row_map(r1)) - first : 0;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t k) { window[k] = Scalar(); });
    team.team_barrier();
    bool bad = false;  // the fingerprint reports a changed structure
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, r0, r1), [&](const std::int64_t i) {
      Scalar* const row = window + (static_cast<std::int64_t>(c_row_map(i)) - first);
      walk_slot_row<true>(team, ops, slots, cache, i, bad, [&](std::int64_t t, std::int64_t p, const Scalar& a) {
        row[slots.slot(t)] += a * Scalar(ops.b_values(p));
      });
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, n), [&](const std::int64_t k) { c_values(first + k) = window[k]; });
  }
};

}  // namespace gustav::detail
