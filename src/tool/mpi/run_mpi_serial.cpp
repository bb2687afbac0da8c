// gustav-mpi's runner on Kokkos::Serial (a file of its own: each compiles the
// whole pipeline, in parallel with the others).
#include "mpi_runner.hpp"

namespace gustav::tool {

MpiOutcome run_mpi_serial(MPI_Comm comm, const MpiRequest& request, const MpiOperands& operands) {
#if defined(KOKKOS_ENABLE_SERIAL)
  return run_mpi_on<Kokkos::Serial>(comm, request, operands);
#else
  (void)comm, (void)request, (void)operands;
  throw invalid_input("gustav-mpi: this build has no serial space");
#endif
}

}  // namespace gustav::tool
