#pragma once
/// What one SpMV call on a GPU needs besides its operands, kept between
/// calls: the list of rows left to the long-row kernel, the partial sums of
/// the segments that rows listed for teams are cut into and a finish count
/// per such row (in device memory), and the report of A's row-map end
/// points (in host memory the device writes to directly: CUDA's pinned
/// memory).
///
/// Allocating any of them on every call would cost more than a small matrix's
/// whole SpMV (a device allocation is a driver round trip, a free a device
/// synchronisation), so a call takes a workspace out of a small pool and
/// gives it back after it has waited for its kernels; concurrent calls
/// from several host threads each get their own. The pool is emptied by
/// gustav::release_cached_memory() and at Kokkos::finalize.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "gustav/common/block_cache.hpp"  // BlockCacheRegistry

namespace gustav::detail {

/// Host memory that kernels of ExecSpace can write: pinned memory for CUDA,
/// the host's own for host backends.
template <class ExecSpace>
struct ReportMemory {
  using type = Kokkos::HostSpace;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct ReportMemory<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

/// Where the SpMV kernels report a row map that does not start at 0 or end
/// at nnz (they set `bad` and the two end points, and compute nothing);
/// that a row was listed, on calls that launch the listed-rows kernel only
/// if one was (`listed`, listing_memory.hpp); and what the listed-rows
/// kernel found listed.
enum SpmvReport : int {
  report_bad = 0,
  report_first = 1,
  report_last = 2,
  report_listed = 3,
  report_warp_rows = 4,
  report_team_rows = 5,
  report_segments = 6,
  report_words = 7
};

/// Counters at the head of the list of rows: two sets of two, calls using
/// them in turn (SpmvLists names them).
constexpr std::int64_t spmv_counters_per_set = 2;
constexpr std::int64_t spmv_list_counters = 2 * spmv_counters_per_set;

/// One partial sum of a segment of a long row, for any scalar of at most
/// 16 bytes.
struct alignas(16) spmv_partial_slot {
  unsigned char bytes[16];
};

template <class ExecSpace>
struct SpmvWorkspace {
  using memory_space = typename ExecSpace::memory_space;
  /// Four counters, then room for the rows listed for warps and for those
  /// listed for teams (SpmvLists). unsigned long long:
  /// the one 64-bit type with a native atomic add on CUDA in Kokkos 3.4
  /// (others take a compare-and-swap loop, which 1000 teams counting
  /// themselves done turned into 0.4 ms on an H200).
  Kokkos::View<unsigned long long*, memory_space> list;
  /// Per row listed for a team: its first segment, and its segments summed
  /// so far (zero between calls: the team that sums a row's last segment
  /// clears it).
  Kokkos::View<unsigned long long*, memory_space> first_segment;
  Kokkos::View<unsigned long long*, memory_space> segments_done;
  /// Per segment: its partial sum (slots of the scalar's size, in an array
  /// of 16-byte elements: any scalar the SpMV takes fits).
  Kokkos::View<spmv_partial_slot*, memory_space> partials;
  Kokkos::View<std::int64_t*, typename ReportMemory<ExecSpace>::type> report;
  /// The list's counter set the next call uses; the other one holds the
  /// counts of the last call that listed rows, until the next one's
  /// listed-rows kernel clears them.
  int parity = 0;

  /// The counter set of this call (`parity`), or of the last call that
  /// listed rows (1 - parity), in the list.
  unsigned long long* counter_set(int which) const { return list.data() + spmv_counters_per_set * which; }

  /// Rows the list holds for warps.
  std::int64_t warp_capacity() const {
    const auto n = static_cast<std::int64_t>(list.extent(0)) - spmv_list_counters -
                   static_cast<std::int64_t>(first_segment.extent(0));
    return n > 0 ? n : 0;
  }
};

/// The pool of SpmvWorkspaces of one execution space.
template <class ExecSpace>
class SpmvWorkspacePool {
 public:
  static SpmvWorkspacePool& instance() {
    static SpmvWorkspacePool p;
    return p;
  }

  /// A workspace whose list holds `rows` rows for warps and `team_rows` for
  /// teams, and whose partials hold `segments` sums. The counters of its
  /// parity are zero: fresh ones are zero-filled, and each call's
  /// listed-rows kernel clears the other set.
  SpmvWorkspace<ExecSpace> take(const ExecSpace& space, std::int64_t rows, std::int64_t team_rows,
                                std::int64_t segments) {
    SpmvWorkspace<ExecSpace> w;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!kept_.empty()) {
        w = std::move(kept_.back());
        kept_.pop_back();
      }
    }
    if (w.report.extent(0) == 0) w.report = decltype(w.report)("gustav::spmv::report", report_words);
    if (static_cast<std::int64_t>(w.first_segment.extent(0)) < team_rows) {
      // The old views go before the new ones come.
      w.first_segment = decltype(w.first_segment)();
      w.segments_done = decltype(w.segments_done)();
      w.first_segment = decltype(w.first_segment)(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gustav::spmv::first_segment"), team_rows);
      w.segments_done = decltype(w.segments_done)(Kokkos::view_alloc(space, "gustav::spmv::segments_done"), team_rows);
    }
    if (w.list.extent(0) == 0 || w.warp_capacity() < rows) {
      w.list = decltype(w.list)();
      w.list = decltype(w.list)(Kokkos::view_alloc(space, "gustav::spmv::listed_rows"),
                                spmv_list_counters + rows + static_cast<std::int64_t>(w.first_segment.extent(0)));
    }
    if (static_cast<std::int64_t>(w.partials.extent(0)) < segments) {
      w.partials = decltype(w.partials)();
      w.partials = decltype(w.partials)(
          Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "gustav::spmv::segment_sums"), segments);
    }
    return w;
  }

  /// Keeps `w` for a later call. The caller has waited for every kernel
  /// that used it.
  void give(SpmvWorkspace<ExecSpace>&& w) {
    if (!Kokkos::is_initialized()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!hook_pushed_) {
      Kokkos::push_finalize_hook([] { instance().clear(true); });
      BlockCacheRegistry::instance().add([] { instance().clear(false); });
      hook_pushed_ = true;
    }
    kept_.push_back(std::move(w));
  }

 private:
  void clear(bool finalizing) {
    std::vector<SpmvWorkspace<ExecSpace>> gone;
    std::lock_guard<std::mutex> lock(mutex_);
    gone.swap(kept_);
    if (finalizing) hook_pushed_ = false;
  }

  std::mutex mutex_;
  std::vector<SpmvWorkspace<ExecSpace>> kept_;
  bool hook_pushed_ = false;
};

}  // namespace gustav::detail
