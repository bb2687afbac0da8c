#pragma once
/// The SpMV kernels: y = alpha * A * x + beta * y one row per worker, the
/// row's products summed by the worker's vector lanes through Kokkos'
/// vector-level reduction (warp shuffles on CUDA), and y = beta * y for
/// alpha = 0, which reads neither A nor x.
///
/// beta = 0 never reads y, so y may hold anything (NaN, uninitialised
/// memory) on entry, as BLAS callers expect.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "gustav/spmv/row_mapping.hpp"

namespace gustav::detail {

template <class ExecSpace, class Input, class XView, class YView>
struct SpmvRows {
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = typename Policy::member_type;
  using scalar = std::remove_const_t<typename decltype(Input::values)::value_type>;

  decltype(Input::row_map) row_map;
  decltype(Input::entries) entries;
  decltype(Input::values) values;
  XView x;
  YView y;
  scalar alpha;
  scalar beta;
  bool read_y = true;  ///< false when beta = 0
  std::int64_t num_rows = 0;
  int rows_per_worker = 1;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    for_each_worker_row(team, num_rows, rows_per_worker, [&](const std::int64_t i) {
      const auto begin = row_map(i);
      const auto length = row_map(i + 1) - begin;
      scalar sum = scalar();
      // Zero-based range: every backend starts its lanes at the same place.
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, length),
          [&](const auto k, scalar& partial) {
            const auto p = begin + k;
            partial += values(p) * x(entries(p));
          },
          sum);
      // The reduction leaves the sum on every lane; one lane writes.
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        y(i) = read_y ? static_cast<scalar>(beta * y(i) + alpha * sum) : static_cast<scalar>(alpha * sum);
      });
    });
  }
};

/// y = beta * y, or y = 0 without reading y when beta = 0.
template <class YView, class Scalar>
struct ScaleVector {
  YView y;
  Scalar beta;
  bool read_y = true;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    y(i) = read_y ? static_cast<Scalar>(beta * y(i)) : Scalar();
  }
};

}  // namespace gustav::detail
