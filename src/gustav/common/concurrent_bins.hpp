#pragma once
/// Bins of rows launched side by side on a GPU. The bins of one pass take
/// disjoint rows, but launched one after another on one stream each waits
/// for the last teams of the one before, and on a small product (thousands
/// of rows per bin) those tails are most of the pass. Here each bin's
/// kernel goes to a stream of its own, forked from the caller's stream
/// after its work so far and joined back into it at the end (CUDA events:
/// the host waits for nothing), so the device starts the next bin's teams
/// as soon as the last one's leave room.
///
/// The side streams are the process's, made on first use (non-blocking, so
/// that they run beside the caller's stream even where that is CUDA's legacy
/// default stream) and released at Kokkos::finalize. Calls from several
/// host threads at once share them: each fork and each join happens under a
/// lock, so a pass starts after its caller's earlier work and its caller
/// waits for its bins (and at worst for another call's bins as well).
/// On host backends a bin simply runs on the caller's space.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "gustav/errors.hpp"

namespace gustav::detail {

/// Side streams a pass spreads its bins over.
constexpr int concurrent_bin_streams = 6;

#if defined(KOKKOS_ENABLE_CUDA)
/// The process's side streams, their instances and their events.
class SideStreams {
 public:
  static SideStreams& instance() {
    static SideStreams s;
    return s;
  }

  /// Makes the streams on first use; false where CUDA refused (the caller
  /// then runs every bin on its own stream).
  bool ready() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (made_) return true;
    if (failed_ || !Kokkos::is_initialized()) return false;
    auto fail = [&] {
      release_locked();
      failed_ = true;
      return false;
    };
    if (cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming) != cudaSuccess) return fail();
    for (int i = 0; i < concurrent_bin_streams; ++i) {
      cudaStream_t s = nullptr;
      cudaEvent_t e = nullptr;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return fail();
      streams_.push_back(s);
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return fail();
      joins_.push_back(e);
      spaces_.push_back(Kokkos::Cuda(s));
    }
    Kokkos::push_finalize_hook([] { instance().release(); });
    made_ = true;
    return true;
  }

  const Kokkos::Cuda& space(int i) const { return spaces_[static_cast<std::size_t>(i)]; }

  /// Side streams [first, last) wait for `main`'s work so far. Under the
  /// lock, so that another thread's fork cannot re-record the event in
  /// between.
  cudaError_t fork(cudaStream_t main, int first, int last) {
    std::lock_guard<std::mutex> lock(mutex_);
    cudaError_t e = cudaEventRecord(fork_, main);
    for (int i = first; e == cudaSuccess && i < last; ++i)
      e = cudaStreamWaitEvent(streams_[static_cast<std::size_t>(i)], fork_, 0);
    return e;
  }

  /// `main` waits for the first `used` side streams' work so far (or, where
  /// CUDA refuses, the host does).
  void join(cudaStream_t main, int used) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < streams_.size() && static_cast<int>(i) < used; ++i)
      if (cudaEventRecord(joins_[i], streams_[i]) != cudaSuccess ||
          cudaStreamWaitEvent(main, joins_[i], 0) != cudaSuccess)
        cudaStreamSynchronize(streams_[i]);
  }

 private:
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_locked();
    made_ = false;
  }
  void release_locked() {
    spaces_.clear();  // the instances first: they use the streams
    for (auto s : streams_) cudaStreamDestroy(s);
    for (auto e : joins_) cudaEventDestroy(e);
    if (fork_) cudaEventDestroy(fork_);
    streams_.clear();
    joins_.clear();
    fork_ = nullptr;
  }

  std::mutex mutex_;
  bool made_ = false;
  bool failed_ = false;
  cudaEvent_t fork_ = nullptr;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> joins_;
  std::vector<Kokkos::Cuda> spaces_;
};
#endif

/// One pass's bins: space_for() gives the space for the next bin, round
/// robin over the side streams on CUDA (the caller's space elsewhere); the
/// destructor makes the caller's stream wait for every side stream used.
/// The caller must not wait on the host for a bin's work before the join;
/// a fork that fails throws before any bin is launched.
template <class ExecSpace>
class ConcurrentBins {
 public:
  /// `busy_bins`: the pass's bins that have rows (with one, there is
  /// nothing to run beside it, and no fork is paid for).
  ConcurrentBins(const ExecSpace& space, std::size_t busy_bins) : space_(space), busy_bins_(busy_bins) {}
  ConcurrentBins(const ConcurrentBins&) = delete;
  ConcurrentBins& operator=(const ConcurrentBins&) = delete;

  /// The space for the next bin: a side stream, or the caller's own where
  /// the pass has one busy bin or where `on_callers_stream` (the long rows,
  /// whose host reads then wait for nothing else).
  ExecSpace space_for(bool on_callers_stream) { return busy_bins_ > 1 && !on_callers_stream ? next() : space_; }

  /// The caller's stream waits for the bins launched so far (the
  /// destructor's join, early).
  void join() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      if (waited_ > 0) SideStreams::instance().join(space_.cuda_stream(), used_);
    }
#endif
    used_ = 0;
    waited_ = 0;
  }

  ~ConcurrentBins() { join(); }

 private:
  /// The fork makes only the streams the pass will use wait (as many as
  /// its busy bins, up to all of them): each wait is a host call, and a
  /// small product's pass is made of host calls. A pass that asks for more
  /// bins than it said forks again for each further stream.
  ExecSpace next() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
      auto& sides = SideStreams::instance();
      if (waited_ == 0 && !sides.ready()) return space_;
      const int stream = used_ % concurrent_bin_streams;
      if (stream >= waited_) {
        const int said = static_cast<int>(std::min<std::size_t>(busy_bins_, concurrent_bin_streams));
        const int last = std::min(concurrent_bin_streams, std::max(stream + 1, said));
        const cudaError_t e = sides.fork(space_.cuda_stream(), waited_, last);
        if (e != cudaSuccess) throw internal_error(std::string("gustav: forking the bins' streams: ") + cudaGetErrorString(e));
        waited_ = last;
      }
      ++used_;
      return sides.space(stream);
    }
#endif
    return space_;
  }

  ExecSpace space_;
  std::size_t busy_bins_ = 0;
  int used_ = 0;
  int waited_ = 0;  ///< side streams [0, waited_) wait for the fork (none: not forked)
};

}  // namespace gustav::detail
