// gustav-mpi's runner on Kokkos::OpenMP (a file of its own: each compiles the
// whole pipeline, in parallel with the others).
#include "mpi_runner.hpp"

namespace gustav::tool {

MpiOutcome run_mpi_openmp(MPI_Comm comm, const MpiRequest& request, const MpiOperands& operands) {
#if defined(KOKKOS_ENABLE_OPENMP)
  return run_mpi_on<Kokkos::OpenMP>(comm, request, operands);
#else
  (void)comm, (void)request, (void)operands;
  throw invalid_input("gustav-mpi: this build has no openmp space");
#endif
}

}  // namespace gustav::tool
