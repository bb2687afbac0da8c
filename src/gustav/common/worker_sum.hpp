#pragma once
/// The sum of f(k), k in [0, n), over the vector lanes of the calling
/// worker, exact on the worker's first lane (on_first_lane), which is the
/// one that stores it. Lanes, when not 0, is the worker's lane count known at
/// compile time (it must equal the policy's vector length): the loop's
/// stride and the shuffle tree are then constants. LongRows: the rows are
/// known to be many rounds of the lanes long.
///
/// On CUDA, for arithmetic scalars, the lanes add their partial sums down a
/// shuffle tree to lane 0 and stop there. Kokkos' vector reduction adds a
/// broadcast of the result to every lane and a lane mask computed with an
/// integer division on every call; for the short rows of an SpMV (a few
/// products per lane) those instructions were a good part of a row's cost,
/// and only one lane needs the sum. Other backends and scalars use Kokkos'
/// ThreadVectorRange reduction. Either way the order of the additions is
/// fixed by n and the lanes, so repeated calls give the same bits.
#include <Kokkos_Core.hpp>
#include <type_traits>

namespace gustav::detail {

template <class Scalar, int Lanes = 0, bool LongRows = false, class Member, class Index, class F>
KOKKOS_INLINE_FUNCTION Scalar worker_sum(const Member& team, const Index n, const F& f) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<typename Member::execution_space, Kokkos::Cuda> && std::is_arithmetic_v<Scalar>) {
    // Kokkos' CUDA teams: blockDim.x lanes (a power of two up to 32) per
    // worker, workers along y, so a worker's lanes are consecutive threads
    // of one warp.
    KOKKOS_ASSERT(Lanes == 0 || Lanes == static_cast<int>(blockDim.x));
    const int lanes = Lanes > 0 ? Lanes : static_cast<int>(blockDim.x);
    const int lane = Lanes == 1 ? 0 : static_cast<int>(threadIdx.x);
    Scalar sum = Scalar();
    Index k = lane;
    if (LongRows && n > 4 * lanes) {
      // Rows known to be long (SpMV's listed rows, a warp each): four
      // independent loads in flight per lane, since one warp on a long row
      // waits on memory latency, not bandwidth. Only there: in the row
      // kernels the extra registers cost more than they gave (lap3d:120 on
      // 2 lanes: 0.118 ms against 0.104; brick:30 on 32: 0.064 against 0.054).
      Scalar s1 = Scalar(), s2 = Scalar(), s3 = Scalar();
      for (; k + 3 * lanes < n; k += 4 * lanes) {
        sum += f(k);
        s1 += f(k + lanes);
        s2 += f(k + 2 * lanes);
        s3 += f(k + 3 * lanes);
      }
      sum = (sum + s1) + (s2 + s3);
    }
    for (; k < n; k += lanes) sum += f(k);
    if (lanes > 1) {
      const unsigned group =
          lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u) << ((static_cast<unsigned>(threadIdx.y) * lanes) & 31u);
      for (int offset = lanes >> 1; offset > 0; offset >>= 1) sum += __shfl_down_sync(group, sum, offset, lanes);
    }
    return sum;
  }
#endif
  Scalar sum = Scalar();
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(team, n), [&](const Index k, Scalar& partial) { partial += f(k); }, sum);
  return sum;
}

/// Calls f() once per worker, on its first vector lane (the lane whose
/// worker_sum is exact).
template <int Lanes = 0, class Member, class F>
KOKKOS_INLINE_FUNCTION void on_first_lane(const Member& team, const F& f) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<typename Member::execution_space, Kokkos::Cuda>) {
    if (Lanes == 1 || threadIdx.x == 0) f();
    return;
  }
#endif
  Kokkos::single(Kokkos::PerThread(team), f);
}

}  // namespace gustav::detail
