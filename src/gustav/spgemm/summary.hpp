#pragma once
/// The few numbers the host needs from a phase's kernels (bin sizes, totals,
/// error bits), gathered in one small device array so that each phase reads
/// them with one copy: every device-to-host read is a synchronisation.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "gustav/analysis/row_bins.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

/// Slots of the summary array.
struct SummarySlot {
  static constexpr int errors = 0;        ///< ErrorBits, OR-ed
  static constexpr int products = 1;      ///< sum of all rows' products
  static constexpr int max_products = 2;  ///< largest row's products
  static constexpr int nnz = 3;           ///< nnz(C), written by the row-map scan
  static constexpr int max_nnz = 4;       ///< largest row of C
  static constexpr int symbolic_rows = 8;                         ///< rows per symbolic bin
  static constexpr int numeric_rows = symbolic_rows + max_row_bins;   ///< rows per numeric bin
  static constexpr int numeric_products = numeric_rows + max_row_bins;  ///< products per numeric bin
  static constexpr int symbolic_cursors = numeric_products + max_row_bins;  ///< scatter cursors per bin
  static constexpr int numeric_cursors = symbolic_cursors + max_row_bins;
  static constexpr int size = numeric_cursors + max_row_bins;
};

template <class Device>
using SummaryView = Kokkos::View<std::int64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Where kernels OR their ErrorBits: a summary's errors slot, or a plan's
/// flag for the numeric phase.
template <class Device>
using ErrorFlag = Kokkos::View<std::int64_t, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class Device>
ErrorFlag<Device> errors_of(const SummaryView<Device>& summary) {
  return ErrorFlag<Device>(summary.data() + SummarySlot::errors);
}

/// The host copy of a summary.
struct SummaryValues {
  std::int64_t v[SummarySlot::size] = {};
  std::int64_t operator[](int i) const { return v[i]; }
};

template <class ExecSpace, class View>
SummaryValues read_summary(const ExecSpace& space, const View& summary) {
  SummaryValues h;
  Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(h.v, SummarySlot::size);
  Kokkos::deep_copy(space, host, summary);
  space.fence();
  return h;
}

}  // namespace gustav::detail
