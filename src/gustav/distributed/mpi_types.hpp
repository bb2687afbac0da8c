#pragma once
/// The MPI datatype of each scalar and index type the distributed layer
/// sends: every message is typed, so MPI's counts are element counts.
#include <mpi.h>

#include <Kokkos_Complex.hpp>
#include <complex>
#include <cstdint>
#include <type_traits>

namespace gustav::distributed::detail {

template <class T>
inline constexpr bool always_false = false;

template <class T>
MPI_Datatype mpi_type() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>) {
    return MPI_DOUBLE;
  } else if constexpr (std::is_same_v<U, float>) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same_v<U, Kokkos::complex<double>> || std::is_same_v<U, std::complex<double>>) {
    // Both hold the real part, then the imaginary part, as C's double complex.
    return MPI_C_DOUBLE_COMPLEX;
  } else if constexpr (std::is_same_v<U, Kokkos::complex<float>> || std::is_same_v<U, std::complex<float>>) {
    return MPI_C_FLOAT_COMPLEX;
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 4) {
    return MPI_INT32_T;
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 8) {
    return MPI_INT64_T;
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 4) {
    return MPI_UINT32_T;
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U> && sizeof(U) == 8) {
    return MPI_UINT64_T;
  } else {
    static_assert(always_false<U>, "gustav::distributed: no MPI datatype for this scalar or index type");
  }
}

}  // namespace gustav::distributed::detail
