// gustav-mpi's runner on Kokkos::Cuda (a file of its own: each compiles the
// whole pipeline, in parallel with the others).
#include "mpi_runner.hpp"

namespace gustav::tool {

MpiOutcome run_mpi_cuda(MPI_Comm comm, const MpiRequest& request, const MpiOperands& operands) {
#if defined(KOKKOS_ENABLE_CUDA)
  return run_mpi_on<Kokkos::Cuda>(comm, request, operands);
#else
  (void)comm, (void)request, (void)operands;
  throw invalid_input("gustav-mpi: this build has no cuda space");
#endif
}

}  // namespace gustav::tool
