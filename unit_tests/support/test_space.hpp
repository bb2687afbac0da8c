#pragma once
// The execution space a backend test binary runs on, chosen by CMake.
#include <Kokkos_Core.hpp>

namespace gustav::test {

#if defined(GUSTAV_TEST_BACKEND_CUDA)
using TestSpace = Kokkos::Cuda;
#elif defined(GUSTAV_TEST_BACKEND_OPENMP)
using TestSpace = Kokkos::OpenMP;
#else
using TestSpace = Kokkos::Serial;
#endif

constexpr bool test_space_is_host =
    std::is_same_v<typename TestSpace::memory_space, Kokkos::HostSpace>;

}  // namespace gustav::test
