#pragma once
// cuSPARSE's generic SpGEMM as a peer (CUDA builds): the default algorithm,
// falling back to ALG2 and then ALG3 where it refuses (typically for lack of
// memory), and the reuse API for numeric-only timings. Only 32-bit indices
// are accepted by cuSPARSE's SpGEMM.
#include <memory>

#include "bench_types.hpp"

namespace gustav::bench {

/// Device CSR arrays in cuSPARSE's 32-bit layout.
struct CusparseCsr {
  int rows = 0, cols = 0;
  long long nnz = 0;
  const int* row_map = nullptr;
  const int* entries = nullptr;
  const double* values = nullptr;
};

/// The product cuSPARSE computed (device). Its arrays are cudaMalloc'd and
/// owned by `storage`, not by Kokkos: freeing them must not throw when a
/// fault has left the device unusable.
struct CusparseProduct {
  Measurement measurement;
  Kokkos::View<int*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> row_map, entries;
  Kokkos::View<double*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> values;
  std::shared_ptr<void> storage;
  /// A fault (an illegal address, say) left the CUDA context unusable: no
  /// later device call of this process can succeed, Kokkos' included.
  bool device_lost = false;
};

/// Runs warmups + reps products of A * B. Never throws: every CUDA and
/// cuSPARSE status is checked, and a failure frees what the attempt held and
/// lands in the measurement (failed, with the call and the error).
CusparseProduct run_cusparse(const CusparseCsr& A, const CusparseCsr& B, int warmups, int reps);

}  // namespace gustav::bench
