#pragma once
/// The host's cache sizes, where the C library reports them: passes that
/// choose between a larger and a smaller per-thread accumulator ask whether
/// the larger one stays in a core's own cache.
#include <cstddef>
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace gustav::detail {

/// Bytes of one core's level-2 cache. Where the system does not say, 512 KiB
/// (the smallest of the machines measured), so an unknown host takes the
/// smaller accumulator. Hardware threads of one core share it: the measured
/// hosts ran one thread a core.
inline std::size_t host_l2_bytes() {
  static const std::size_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long reported = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (reported > 0) return static_cast<std::size_t>(reported);
#endif
    return std::size_t(512) << 10;
  }();
  return bytes;
}

}  // namespace gustav::detail
