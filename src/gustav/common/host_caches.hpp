#pragma once
/// The host's cache sizes, where the C library reports them: passes that
/// choose between a larger and a smaller per-thread accumulator ask whether
/// the larger one stays in a core's own cache.
#include <unistd.h>

#include <cstddef>

namespace gustav::detail {

/// Bytes of one core's level-2 cache. Where the system does not say, 512 KiB
/// (the smallest of the machines measured), so an unknown host takes the
/// smaller accumulator.
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
