#pragma once
// Where a multiplication spends its time, through Kokkos' profiling hooks;
// for finding it, not for the headline numbers.
//   KernelTimer  per-kernel wall time by label: every parallel_for / reduce /
//                scan is fenced before and after, so the times add up to the
//                region's time (at the cost of the fences);
//   Timeline     every kernel launch, allocation, free, copy and fence with
//                the host's clock, nothing fenced: where the host waits
//                (allocations, frees, copies to the host) between launches.
#include <string>
#include <vector>

namespace gustav::bench {

struct KernelTime {
  std::string label;
  int launches = 0;
  double seconds = 0;
};

class KernelTimer {
 public:
  KernelTimer();   ///< starts recording (one timer at a time)
  ~KernelTimer();  ///< stops recording
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  /// Kernels by total time, longest first.
  std::vector<KernelTime> times() const;
};

/// Prints `times` as a table, dropping kernels below 0.5% of the total.
void print_kernel_times(const std::vector<KernelTime>& times);

struct TimelineEvent {
  double seconds = 0;  ///< host clock, since the timeline started
  std::string what;    ///< "launch NAME", "alloc LABEL BYTES", "free ...", "copy ...", "fence ..."
};

class Timeline {
 public:
  Timeline();   ///< starts recording (one timer or timeline at a time)
  ~Timeline();  ///< stops recording
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  std::vector<TimelineEvent> events() const;
};

/// Prints the events with the time since the previous one, and the host
/// time spent in each kind of event (the gap before each: a launch's own
/// cost, an allocation's, a wait for the device).
void print_timeline(const std::vector<TimelineEvent>& events);

}  // namespace gustav::bench
