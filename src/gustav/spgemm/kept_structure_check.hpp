#pragma once
/// The structure check of a plan whose numeric phase reads no column index
/// (kept product positions, or the entries' masks of entry_masks.hpp): the
/// symbolic phase takes a fingerprint of A's and B's structure
/// (structure_fingerprint.hpp), and every numeric call compares the
/// operands' with it on a stream of its own beside the sums, the host
/// reading the verdict once all have finished.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <utility>

#include "gustav/common/allocation.hpp"
#include "gustav/spgemm/summary.hpp"
#include "gustav/validation/structure_fingerprint.hpp"

namespace gustav::detail {

/// Where a kept repeat's verdict on the structure goes: pinned host memory
/// on CUDA, which the fingerprint pass writes and the host reads after the
/// stream's fence with no copy (a copy to the host was one more host call
/// and wait on repeats of a few hundredths of a millisecond); elsewhere the
/// device's own memory.
template <class Device>
struct VerdictSpace {
  using type = typename Device::memory_space;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <class Memory>
struct VerdictSpace<Kokkos::Device<Kokkos::Cuda, Memory>> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

template <class Device>
struct KeptStructureCheck {
  /// The fingerprint the symbolic phase took, and the numeric phase's
  /// own, computed into `now` from partial sums in `parts`.
  std::uint64_t fingerprint = 0;
  Kokkos::View<std::uint64_t, Device> now;
  Kokkos::View<std::uint64_t*, Device> parts;
  /// The numeric phase's verdict: error_structure_differs or zero
  /// (VerdictSpace).
  Kokkos::View<std::int64_t, typename VerdictSpace<Device>::type> verdict;

  /// The symbolic phase's fingerprint of A's and B's structure (waits for
  /// it); its arrays count towards `temp`.
  template <class ExecSpace, class AIn, class BIn>
  void take(const ExecSpace& space, const AIn& A, const BIn& B, TempMemory& temp) {
    prepare(space, temp, "gustav::symbolic::kept::fingerprint_parts");
    launch_take(space, A, B);
    finish_take();
  }

  /// take() in three steps, so that the fingerprint can run on a stream
  /// beside other work: the arrays (the parts, zeroed, with the device
  /// scalar `now` after them: one allocation), the launch, and the read
  /// once the stream's work is done (a copy; it waits for the stream).
  template <class ExecSpace>
  void prepare(const ExecSpace& space, TempMemory& temp, const std::string& label) {
    const auto length = fingerprint_parts_length(space);
    const auto block =
        temp.allocate<decltype(parts)>(space, label, static_cast<std::size_t>(length) + 1, true);
    parts = Kokkos::subview(block, std::make_pair(std::int64_t(0), static_cast<std::int64_t>(length)));
    now = decltype(now)(block.data() + length);  // held by `parts`' allocation
    // Written by every check before it is read: nothing to initialise
    // (and no host execution space to ask, which a co-executed host
    // part's thread cannot).
    verdict = decltype(verdict)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::symbolic::kept::verdict"));
  }
  template <class ExecSpace, class AIn, class BIn>
  void launch_take(const ExecSpace& space, const AIn& A, const BIn& B) const {
    launch_fingerprint(space, A, B, parts, now, ErrorFlag<Device>(verdict.data()), 0, false,
                       "gustav::kept::structure_fingerprint");
  }
  void finish_take() { Kokkos::deep_copy(fingerprint, now); }

  /// Launches the numeric phase's comparison on `space` (no wait): the
  /// verdict's only writer, so it needs no clearing before.
  template <class ExecSpace, class AIn, class BIn>
  void launch(const ExecSpace& space, const AIn& A, const BIn& B) const {
    check_structure_fingerprint(space, A, B, fingerprint, parts, now, ErrorFlag<Device>(verdict.data()));
  }

  /// The verdict, once `space`'s work (which the check's stream joined)
  /// is done: read in place after the fence where the host can, copied
  /// otherwise.
  template <class ExecSpace>
  std::int64_t read(const ExecSpace& space) const {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename decltype(verdict)::memory_space>::accessible) {
      space.fence();
      return *static_cast<const volatile std::int64_t*>(verdict.data());
    } else {
      return read_flag(space, verdict);
    }
  }

  std::size_t bytes() const { return parts.data() ? (parts.span() + 1) * sizeof(std::uint64_t) : 0; }
};

}  // namespace gustav::detail
