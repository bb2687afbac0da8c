#pragma once
/// Device memory that Gustav keeps between calls.
///
/// On GPUs, Gustav's temporaries come from blocks it keeps after a call for
/// the next one (at most four, of at most 64 MiB each): an allocation and a
/// free cost a driver round trip and a device synchronisation each, which
/// products that repeat (benchmarks, multigrid set-ups, time steps) would
/// otherwise pay on every call. They are freed at Kokkos::finalize, or here.
#include "gustav/common/block_cache.hpp"

namespace gustav {

/// Frees the device blocks Gustav keeps for its next call (none are in use
/// outside a call). Safe to call at any time while Kokkos is initialised.
inline void release_cached_memory() { detail::BlockCacheRegistry::instance().clear_all(); }

}  // namespace gustav
