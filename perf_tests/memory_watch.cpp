#include "memory_watch.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <atomic>
#include <mutex>

namespace gustav::bench {

namespace {

std::atomic<long long> live{0};
std::atomic<long long> peak_live{0};
std::atomic<int> watchers{0};

void note_peak() {
  long long now = live.load();
  long long p = peak_live.load();
  while (now > p && !peak_live.compare_exchange_weak(p, now)) {
  }
}

void on_allocate(const Kokkos::Tools::SpaceHandle, const char*, const void*, const uint64_t size) {
  if (watchers.load() == 0) return;
  live += static_cast<long long>(size);
  note_peak();
}

void on_deallocate(const Kokkos::Tools::SpaceHandle, const char*, const void*, const uint64_t size) {
  if (watchers.load() == 0) return;
  live -= static_cast<long long>(size);
}

void install_hooks() {
  static std::once_flag once;
  std::call_once(once, [] {
    Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocate);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(on_deallocate);
  });
}

}  // namespace

MemoryWatch::MemoryWatch() {
  install_hooks();
  live = 0;
  peak_live = 0;
  watchers += 1;
}

MemoryWatch::~MemoryWatch() { watchers -= 1; }

std::size_t MemoryWatch::peak() const { return static_cast<std::size_t>(std::max(0LL, peak_live.load())); }

void MemoryWatch::add_external(std::size_t bytes) {
  live += static_cast<long long>(bytes);
  note_peak();
  live -= static_cast<long long>(bytes);
}

}  // namespace gustav::bench
