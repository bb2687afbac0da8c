#pragma once
// Per-kernel wall time by label, through Kokkos' profiling hooks: every
// parallel_for / reduce / scan is fenced before and after, so the times add
// up to the region's time (at the cost of the fences). For finding where a
// multiplication spends its time, not for the headline numbers.
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

}  // namespace gustav::bench
