#pragma once
// Peak memory of one region, measured the same way for every implementation:
// Kokkos' allocation hooks count every labelled allocation in the GPU's (or
// host's) memory space; allocations made outside Kokkos (cuSPARSE's buffers)
// are added by the caller.
#include <cstddef>
#include <cstdint>

namespace gustav::bench {

class MemoryWatch {
 public:
  /// Installs the hooks (once per process) and starts counting from zero.
  MemoryWatch();
  ~MemoryWatch();
  MemoryWatch(const MemoryWatch&) = delete;
  MemoryWatch& operator=(const MemoryWatch&) = delete;

  /// Peak of bytes allocated and not yet freed since construction.
  std::size_t peak() const;
  /// Adds memory allocated outside Kokkos (live now, freed before the next call).
  void add_external(std::size_t bytes);
};

}  // namespace gustav::bench
