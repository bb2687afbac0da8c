// Test driver for the distributed layer: MPI, then Kokkos, then GoogleTest,
// on every rank. Only rank 0 prints the test list and results, unless a
// test fails on another rank (its failures are printed there). Exits
// non-zero on every rank when any rank failed, so mpirun reports it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  setenv("OMP_PROC_BIND", "false", 0);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    // Other ranks report failures only.
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    failed = RUN_ALL_TESTS();
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank != 0 && failed != 0) std::fprintf(stderr, "rank %d: a test failed\n", rank);
  MPI_Finalize();
  return any_failed != 0 ? 1 : 0;
}
