#pragma once
/// Writes the rows of C on the hierarchical mapping, bin by bin of the
/// plan's numeric schedule: the structure (gustav::symbolic), columns and
/// values (gustav::multiply), or values into the plan's structure
/// (gustav::numeric). Allocates nothing but the long rows' pool (and, on a
/// plan's first numeric call, the long rows' offsets it keeps).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/concurrent_bins.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/spgemm/accumulate_rows.hpp"
#include "gustav/spgemm/launch_teams.hpp"
#include "gustav/spgemm/long_row_passes.hpp"

namespace gustav::detail {

template <RowOutput Output>
constexpr LongPass long_pass_for() {
  if constexpr (Output == RowOutput::reuse) return LongPass::reuse;
  if constexpr (Output == RowOutput::values) return LongPass::values;
  return LongPass::structure;
}

/// Scratch bytes of one numeric table of 2^log2 slots: the bins serve all
/// three outputs, so they are sized for the largest layout (reuse's, or
/// values' with the key list of rows placed by rank).
template <class Types>
std::size_t numeric_table_bytes(int log2) {
  return std::max(RowTable<Types, RowOutput::values>::bytes(log2) + KeyList<typename Types::ordinal_type>::bytes(log2),
                  RowTable<Types, RowOutput::reuse>::bytes(log2));
}

/// Scratch bytes of one worker of a numeric bin: its table and its row cache.
template <class Types>
std::size_t numeric_worker_bytes(int log2) {
  return numeric_table_bytes<Types>(log2) + RowCache<Types>::bytes();
}

/// The bins a pass sums some other way (none here), the kernel run beside
/// them, and a last word on each bin's functor before its launch:
/// write_rows_hierarchical's default.
struct NoOtherBins {
  bool takes(std::size_t) const { return false; }
  template <class Functor>
  void configure(std::size_t, Functor&) const {}
  bool has_beside() const { return false; }
  template <class ExecSpace>
  void launch_beside(const ExecSpace&) const {}
  template <class ExecSpace, class Rows>
  void run(const ExecSpace&, std::size_t, const RowBin&, const Rows&, std::int64_t, const std::string&) const {}
};

/// Returns the bytes of pool the long rows took. `other`: the bins whose
/// rows it sums itself (`takes(b)`, `run(space, b, ...)`, on the bin's stream), a kernel
/// that goes beside the bins on a stream of its own (`launch_beside`), and
/// what it sets on the other bins' functors (`configure`).
template <RowOutput Output, class Types, class ExecSpace, class Schedule, class OtherBins = NoOtherBins>
std::size_t write_rows_hierarchical(const ExecSpace& space, const Schedule& schedule, const ProductOperands<Types>& ops,
                                    const RowWriter<ExecSpace, Types, Output>& out,
                                    const ErrorFlag<typename Types::device_type>& errors, const std::string& label,
                                    TempMemory& temp, const OtherBins& other = {}) {
  std::size_t pool_bytes = 0;
  std::size_t busy_bins = other.has_beside() ? 1 : 0;
  for (std::size_t b = 0; b < schedule.bins.size(); ++b) busy_bins += schedule.offsets[b + 1] > schedule.offsets[b];
  // The bins side by side (joined before returning).
  ConcurrentBins<ExecSpace> side_by_side(space, busy_bins);
  if (other.has_beside()) other.launch_beside(side_by_side.space_for(false));
  for (std::size_t b = 0; b < schedule.bins.size(); ++b) {
    const RowBin& bin = schedule.bins[b];
    const std::int64_t first = schedule.offsets[b], n = schedule.offsets[b + 1] - first;
    if (n == 0) continue;
    const ExecSpace bin_space = side_by_side.space_for(bin.level == RowLevel::long_row);
    const RowList<Types> rows(schedule.perm.data() + first, n);
    const std::string name = label + "::" + bin.name;
    if (other.takes(b)) {
      other.run(bin_space, b, bin, rows, n, name);
      continue;
    }
    auto run = [&](auto level) {
      constexpr RowLevel L = decltype(level)::value;
      AccumulateRows<ExecSpace, Types, RowList<Types>, Output, L> f;
      f.ops = ops;
      f.out = out;
      f.rows = rows;
      f.num_rows = n;
      f.errors = errors;
      f.log2_slots = bin.log2_slots;
      f.lanes = is_host_space<ExecSpace>() ? 1 : bin.vector_length;
      other.configure(b, f);
      const int lanes = L == RowLevel::tiny ? 1 : f.lanes;
      launch_teams(bin_space, name, f, bin.team_size, lanes,
                   [&](int size) {
                     if (L == RowLevel::team) return n;
                     if (L == RowLevel::tiny) return (n + size - 1) / size;
                     return looping_league(space, (n + size - 1) / size, size * lanes);
                   },
                   [&](int size) { return f.scratch_bytes(size); });
    };
    switch (bin.level) {
      case RowLevel::tiny:
        run(std::integral_constant<RowLevel, RowLevel::tiny>{});
        break;
      case RowLevel::worker:
        run(std::integral_constant<RowLevel, RowLevel::worker>{});
        break;
      case RowLevel::team:
        run(std::integral_constant<RowLevel, RowLevel::team>{});
        break;
      case RowLevel::long_row: {
        LongRowKeptOffsets<typename Types::device_type>* kept = nullptr;
        if constexpr (Output == RowOutput::reuse) kept = schedule.long_offsets.get();
        pool_bytes += run_long_rows<long_pass_for<Output>()>(space, ops, out, rows, n, schedule.products, bin,
                                                             errors, LongRowCountOutputs<Types>{}, name, temp, kept);
        break;
      }
    }
  }
  side_by_side.join();
  return pool_bytes;
}

/// After a numeric call's error bits `bits` are read: where the long rows
/// were walked with kept offsets that no longer fit the structure, sums
/// those rows again with offsets computed anew (and kept), and returns the
/// call's error bits without that mark. The walk with the stale offsets
/// read real products only, so the errors it raised stand.
template <class Types, class ExecSpace, class Schedule>
std::int64_t sum_stale_long_rows(const ExecSpace& space, const Schedule& schedule, const ProductOperands<Types>& ops,
                                 const RowWriter<ExecSpace, Types, RowOutput::reuse>& out,
                                 const ErrorFlag<typename Types::device_type>& errors, std::int64_t bits,
                                 const std::string& label, TempMemory& temp) {
  if (!(bits & error_long_offsets_stale)) return bits;
  schedule.long_offsets->drop();
  Kokkos::deep_copy(space, errors, std::int64_t(0));
  for (std::size_t b = 0; b < schedule.bins.size(); ++b) {
    const RowBin& bin = schedule.bins[b];
    const std::int64_t first = schedule.offsets[b], n = schedule.offsets[b + 1] - first;
    if (n == 0 || bin.level != RowLevel::long_row) continue;
    run_long_rows<LongPass::reuse>(space, ops, out, RowList<Types>(schedule.perm.data() + first, n), n,
                                   schedule.products, bin, errors, LongRowCountOutputs<Types>{},
                                   label + "::" + bin.name, temp, schedule.long_offsets.get());
  }
  return (bits & ~std::int64_t(error_long_offsets_stale)) | read_flag(space, errors);
}

}  // namespace gustav::detail
