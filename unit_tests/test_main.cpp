// Test driver: Kokkos lives for the whole run, GoogleTest runs inside it.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Threads are not bound to cores in the tests (the OpenMP runtime has read
  // its settings already; this only keeps Kokkos' binding advice out of the
  // test list that ctest reads from this program's output).
  setenv("OMP_PROC_BIND", "false", 0);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
