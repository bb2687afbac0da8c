#include "kernel_timer.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>

namespace gustav::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct Recorder {
  bool active = false;
  std::map<std::uint64_t, std::pair<std::string, Clock::time_point>> open;
  std::map<std::string, KernelTime> totals;
  std::uint64_t next_id = 1;
};

Recorder& recorder() {
  static Recorder r;
  return r;
}

void begin(const char* name, const uint32_t, uint64_t* id) {
  auto& r = recorder();
  *id = r.next_id++;
  if (!r.active) return;
  Kokkos::fence();
  r.open[*id] = {name, Clock::now()};
}

void end(const uint64_t id) {
  auto& r = recorder();
  const auto it = r.open.find(id);
  if (it == r.open.end()) return;
  Kokkos::fence();
  auto& t = r.totals[it->second.first];
  t.label = it->second.first;
  t.launches += 1;
  t.seconds += std::chrono::duration<double>(Clock::now() - it->second.second).count();
  r.open.erase(it);
}

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    namespace tools = Kokkos::Tools::Experimental;
    tools::set_begin_parallel_for_callback(begin);
    tools::set_end_parallel_for_callback(end);
    tools::set_begin_parallel_reduce_callback(begin);
    tools::set_end_parallel_reduce_callback(end);
    tools::set_begin_parallel_scan_callback(begin);
    tools::set_end_parallel_scan_callback(end);
  });
}

}  // namespace

KernelTimer::KernelTimer() {
  install();
  recorder().totals.clear();
  recorder().open.clear();
  recorder().active = true;
}

KernelTimer::~KernelTimer() { recorder().active = false; }

std::vector<KernelTime> KernelTimer::times() const {
  std::vector<KernelTime> v;
  for (const auto& [label, t] : recorder().totals) v.push_back(t);
  std::sort(v.begin(), v.end(), [](const KernelTime& a, const KernelTime& b) { return a.seconds > b.seconds; });
  return v;
}

void print_kernel_times(const std::vector<KernelTime>& times) {
  // The tool's own set-up (copies of the operands to the device) is not
  // part of any product: left out, so that shares are the library's.
  auto tools_own = [](const KernelTime& t) { return t.label.find("gustav::tool::") != std::string::npos; };
  double total = 0;
  for (const auto& t : times)
    if (!tools_own(t)) total += t.seconds;
  std::printf("  %-60s %8s %10s %6s\n", "kernel", "launches", "ms", "share");
  for (const auto& t : times) {
    if (tools_own(t) || t.seconds < 0.002 * total) continue;
    std::printf("  %-60s %8d %10.3f %5.1f%%\n", t.label.c_str(), t.launches, t.seconds * 1e3,
                100.0 * t.seconds / std::max(total, 1e-12));
  }
  std::printf("  %-60s %8s %10.3f\n", "all kernels", "", total * 1e3);
}

}  // namespace gustav::bench
