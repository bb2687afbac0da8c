#pragma once
/// Small helpers for launching hierarchical kernels the same way on every
/// backend.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

namespace gustav::detail {

/// True for execution spaces whose threads are CPU cores: one thread owns an
/// accumulator there and no atomics are needed. Callable from kernels too
/// (their `if constexpr` branches on it; a host-only constexpr function
/// there draws nvcc's warning 20013 in every instantiation).
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION constexpr bool is_host_space() {
  return std::is_same_v<typename ExecSpace::memory_space, Kokkos::HostSpace>;
}

/// Vector lanes for a loop whose inner trip count averages `avg`: the power
/// of two nearest below avg, between 1 and the backend's maximum (32 on
/// CUDA, 1 on CPUs, whose ThreadVectorRange is a plain loop).
template <class ExecSpace>
int vector_length_for(double avg) {
  if constexpr (is_host_space<ExecSpace>()) {
    return 1;
  } else {
    int v = 1;
    while (v < 32 && 2.0 * v <= avg) v *= 2;
    return v;
  }
}

/// How many teams of this shape the space can run at once (an upper bound:
/// registers or scratch may allow fewer).
template <class ExecSpace>
std::int64_t concurrent_teams(const ExecSpace& space, int team_size, int vector_length) {
  const std::int64_t threads = static_cast<std::int64_t>(space.concurrency());
  const std::int64_t per_team = static_cast<std::int64_t>(team_size) * (is_host_space<ExecSpace>() ? 1 : vector_length);
  return threads / per_team > 1 ? threads / per_team : 1;
}

/// `policy` with its functor passed to the kernel as an argument (up to
/// 4 KiB; larger ones go through global memory). Without the hint Kokkos'
/// CUDA backend copies functors of 512 bytes or more into constant memory,
/// and before each such launch the host waits until the previous one has
/// finished with it: every launch then costs a full host-device round trip,
/// which is most of a small product's time. No effect on host backends.
template <class Policy>
auto light_launch(const Policy& policy) {
  return Kokkos::Experimental::require(policy, Kokkos::Experimental::WorkItemProperty::HintLightWeight);
}

/// Ceil division for non-negative integers.
template <class T>
constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

}  // namespace gustav::detail
