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

/// Slots of the summary array (an enum: device code may not take the
/// address of a host static member, which View's operator() would).
struct SummarySlot {
  enum : int {
    errors = 0,        ///< ErrorBits, OR-ed
    products = 1,      ///< sum of all rows' products
    max_products = 2,  ///< largest row's products
    nnz = 3,           ///< nnz(C), written by the row-map scan
    max_nnz = 4,       ///< largest row of C
    hubs = 5,          ///< hub rows of A listed by the inspection
    symbolic_rows = 8,                                  ///< rows per symbolic bin
    numeric_rows = symbolic_rows + max_row_bins,        ///< rows per numeric bin
    numeric_products = numeric_rows + max_row_bins,     ///< products per numeric bin
    symbolic_cursors = numeric_products + max_row_bins, ///< scatter cursors per bin
    numeric_cursors = symbolic_cursors + max_row_bins,
    size = numeric_cursors + max_row_bins
  };
};

template <class Device>
using SummaryView = Kokkos::View<std::int64_t*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// Where kernels OR their ErrorBits: a summary's errors slot, or a plan's
/// flag for the numeric phase.
template <class Device>
using ErrorFlag = Kokkos::View<std::int64_t, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// A device flag's value on the host (waits for `space`).
template <class ExecSpace, class Flag>
std::int64_t read_flag(const ExecSpace& space, const Flag& flag) {
  std::int64_t bits = 0;
  Kokkos::deep_copy(space, bits, flag);
  space.fence();
  return bits;
}

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
