#pragma once
// cuSPARSE's generic SpGEMM as a peer (CUDA builds): the default algorithm,
// falling back to ALG2 and then ALG3 where it refuses (typically for lack of
// memory), and the reuse API for numeric-only timings. Only 32-bit indices
// are accepted by cuSPARSE's SpGEMM.
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

/// The product cuSPARSE computed, copied into caller-visible arrays (device).
struct CusparseProduct {
  Measurement measurement;
  Kokkos::View<int*, Kokkos::CudaSpace> row_map, entries;
  Kokkos::View<double*, Kokkos::CudaSpace> values;
};

/// Runs warmups + reps products of A * B. Never throws: failures land in the
/// measurement's note.
CusparseProduct run_cusparse(const CusparseCsr& A, const CusparseCsr& B, int warmups, int reps);

}  // namespace gustav::bench
