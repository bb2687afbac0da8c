#pragma once
/// Temporary memory that Gustav keeps between calls.
///
/// Gustav's temporaries come from blocks it keeps after a call for the next
/// one: on GPUs at most four, where an allocation and a free cost a driver
/// round trip and a device synchronisation each; in host memory at most
/// sixteen, where a fresh allocation's pages are cleared by the operating
/// system on first touch. Each block is at most 64 MiB and a memory space
/// keeps at most 256 MiB. Products that repeat (benchmarks, multigrid
/// set-ups, time steps) would otherwise pay for them on every call. They are
/// freed at Kokkos::finalize, or here.
#include "gustav/common/block_cache.hpp"

namespace gustav {

/// Frees the blocks Gustav keeps for its next call (none are in use
/// outside a call). Safe to call at any time while Kokkos is initialised.
inline void release_cached_memory() { detail::BlockCacheRegistry::instance().clear_all(); }

}  // namespace gustav
