#pragma once
/// The result of the symbolic phase: C's row map and column indices, the
/// numeric schedule, and the statistics. A plan is a small value type (its
/// arrays are reference-counted Kokkos views): copy it freely, keep it as
/// long as the structures of A and B stay the same, and hand it to
/// gustav::numeric as often as their values change. Copies share the
/// scratch numeric calls use (an error flag, the fingerprint's parts and
/// verdict, what the first call learns: entry masks, the long rows'
/// offsets), so one plan's numeric calls run one after another; calls that
/// must overlap take plans of their own.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>

#include "gustav/options.hpp"
#include "gustav/spgemm/numeric_schedule.hpp"
#include "gustav/stats.hpp"

namespace gustav {
namespace detail {
template <class ExecSpace, class Offset, class Ordinal>
struct HybridParts;
}  // namespace detail

template <class ExecSpace, class Offset, class Ordinal>
class SpgemmPlan {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using device_type = Kokkos::Device<ExecSpace, memory_space>;
  using offset_type = Offset;
  using ordinal_type = Ordinal;
  using row_map_type = Kokkos::View<Offset*, device_type>;
  using entries_type = Kokkos::View<Ordinal*, device_type>;

  /// Rows of C (= rows of A).
  Ordinal num_rows() const { return static_cast<Ordinal>(a_rows_); }
  /// Columns of C (= columns of B).
  Ordinal num_cols() const { return static_cast<Ordinal>(b_cols_); }
  /// nnz(C).
  Offset nnz() const { return static_cast<Offset>(c_entries_.extent(0)); }
  /// C's row map (num_rows + 1 offsets).
  row_map_type row_map() const { return c_row_map_; }
  /// C's column indices, sorted within each row unless the plan was made
  /// with SpgemmOptions::sort_rows = false.
  entries_type entries() const { return c_entries_; }
  const SpgemmStats& stats() const { return stats_; }
  const SpgemmOptions& options() const { return options_; }

  // --- implementation -------------------------------------------------------
  // Filled by gustav::symbolic, read by gustav::numeric; not for callers.
  std::int64_t a_rows_ = 0, a_cols_ = 0, a_nnz_ = 0;
  std::int64_t b_rows_ = 0, b_cols_ = 0, b_nnz_ = 0;
  row_map_type c_row_map_;
  entries_type c_entries_;
  detail::NumericSchedule<device_type, Ordinal> schedule_;
  mutable SpgemmStats stats_;  ///< the numeric fields describe the latest numeric call
  /// Set where the one-shot product wrote C's values while counting and the
  /// plan has no numeric schedule: numeric calls with it are refused.
  bool values_written_once_ = false;
  SpgemmOptions options_;
  /// Host and device together (SpgemmOptions::co_execution): the two parts'
  /// plans and the merge; null otherwise.
  std::shared_ptr<const detail::HybridParts<ExecSpace, Offset, Ordinal>> hybrid_;
};

}  // namespace gustav
