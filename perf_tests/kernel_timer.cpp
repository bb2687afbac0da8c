#include "kernel_timer.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gustav::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct Recorder {
  bool active = false;    ///< kernel times (fenced)
  bool timeline = false;  ///< events, nothing fenced
  std::map<std::uint64_t, std::pair<std::string, Clock::time_point>> open;
  std::map<std::string, KernelTime> totals;
  Clock::time_point started;
  std::vector<TimelineEvent> events;
  std::uint64_t next_id = 1;
};

Recorder& recorder() {
  static Recorder r;
  return r;
}

void note(const std::string& what) {
  auto& r = recorder();
  if (r.timeline) r.events.push_back({std::chrono::duration<double>(Clock::now() - r.started).count(), what});
}

std::string bytes_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

void begin(const char* name, const uint32_t, uint64_t* id) {
  auto& r = recorder();
  *id = r.next_id++;
  note(std::string("launch ") + name);
  if (!r.active) return;
  Kokkos::fence();
  r.open[*id] = {name, Clock::now()};
}

void end(const uint64_t id) {
  auto& r = recorder();
  note("launched");
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
    tools::set_allocate_data_callback(
        [](const Kokkos::Tools::SpaceHandle, const char* label, const void*, const uint64_t bytes) {
          note(std::string("allocated ") + label + " " + bytes_text(bytes));
        });
    tools::set_deallocate_data_callback(
        [](const Kokkos::Tools::SpaceHandle, const char* label, const void*, const uint64_t bytes) {
          note(std::string("free ") + label + " " + bytes_text(bytes));
        });
    tools::set_begin_deep_copy_callback([](Kokkos::Tools::SpaceHandle dst, const char* dst_label, const void*,
                                           Kokkos::Tools::SpaceHandle src, const char*, const void*,
                                           uint64_t bytes) {
      note(std::string("copy ") + src.name + " -> " + dst.name + " " + dst_label + " " + bytes_text(bytes));
    });
    tools::set_end_deep_copy_callback([]() { note("copied"); });
    tools::set_begin_fence_callback([](const char* name, const uint32_t, uint64_t*) {
      note(std::string("fence ") + name);
    });
    tools::set_end_fence_callback([](uint64_t) { note("fenced"); });
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

Timeline::Timeline() {
  install();
  recorder().events.clear();
  recorder().started = Clock::now();
  recorder().timeline = true;
}

Timeline::~Timeline() { recorder().timeline = false; }

std::vector<TimelineEvent> Timeline::events() const { return recorder().events; }

void print_timeline(const std::vector<TimelineEvent>& events) {
  std::map<std::string, std::pair<int, double>> by_kind;
  double last = 0;
  std::printf("  %10s %10s  %s\n", "at us", "+us", "event");
  for (const auto& e : events) {
    const double gap = e.seconds - last;
    std::printf("  %10.1f %10.1f  %s\n", e.seconds * 1e6, gap * 1e6, e.what.c_str());
    auto& k = by_kind[e.what.substr(0, e.what.find(' '))];
    k.first += 1;
    k.second += gap;
    last = e.seconds;
  }
  std::printf("  host time before each kind of event:\n");
  for (const auto& [kind, k] : by_kind) std::printf("  %-12s %5d events %10.1f us\n", kind.c_str(), k.first, k.second * 1e6);
}

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
