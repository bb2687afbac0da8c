#pragma once
// Times Gustav on one product, each call fenced, after warm-up runs:
//   total     gustav::multiply, the one-shot product with every allocation
//   symbolic  gustav::symbolic (the plan with C's structure)
//   numeric   gustav::numeric after it, C allocated
//   reuse     gustav::numeric refilling that C (numeric only, plan kept)
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "bench_types.hpp"
#include "compare_products.hpp"
#include "gustav/spgemm.hpp"
#include "timing.hpp"

namespace gustav::bench {

template <class Space, class Offset>
struct GustavRun {
  Measurement measurement;
  SpgemmStats stats;
  DeviceMatrix<Space, Offset> C;  ///< the last product computed
};

/// Largest nnz(C) for which the one-shot product is compared with the plan's.
constexpr std::int64_t one_shot_check_limit = std::int64_t(1) << 28;

template <class Space, class Offset>
GustavRun<Space, Offset> run_gustav(const Space& space, const DeviceMatrix<Space, Offset>& A,
                                    const DeviceMatrix<Space, Offset>& B, const SpgemmOptions& options,
                                    const std::string& name, int warmups, int reps) {
  GustavRun<Space, Offset> run;
  Measurement& m = run.measurement;
  m.implementation = name;
  std::string disagreement;
  // The one-shot products first, the last one's C let go before each call
  // is timed, as the peers' runners let theirs go
  // (kokkos_kernels_runner.hpp): the host's allocator then serves every
  // implementation's C in the same pattern. Made between the plan's calls,
  // Gustav's C took fresh pages for its columns on every call while Kokkos
  // Kernels' came back from the heap already mapped (two threads of an AMD
  // EPYC, 2026-12-06: a tenth of lap3d:40:27's one-shot time).
  DeviceMatrix<Space, Offset> one_shot;
  SpgemmStats one_shot_stats;
  for (int r = 0; r < warmups + reps; ++r) {
    one_shot = DeviceMatrix<Space, Offset>();
    space.fence();
    Stopwatch clock;
    one_shot = gustav::multiply(space, A, B, options, one_shot_stats);
    space.fence();
    const double t_total = clock.lap();
    if (r >= warmups) m.total.push_back(t_total);
  }
  for (int r = 0; r < warmups + reps; ++r) {
    space.fence();
    Stopwatch clock;
    const auto plan = gustav::symbolic(space, A, B, options);
    space.fence();
    const double t_symbolic = clock.lap();
    auto C = gustav::numeric(space, plan, A, B);
    space.fence();
    const double t_numeric = clock.lap();
    gustav::numeric(space, plan, A, B, C);
    space.fence();
    const double t_reuse = clock.lap();
    if (r >= warmups) {
      m.symbolic.push_back(t_symbolic);
      m.numeric.push_back(t_numeric);
      m.reuse.push_back(t_reuse);
    }
    run.stats = plan.stats();
    run.stats.write_rows = one_shot_stats.write_rows;  // the plan's own path writes no rows in one walk
    run.C = C;
    // The one-shot product and the plan's must be the same matrix (compared
    // on the host, so only where both copies fit comfortably).
    if (r + 1 == warmups + reps && plan.nnz() <= one_shot_check_limit) disagreement = compare_products(C, one_shot);
  }
  m.ran = true;
  m.agrees = disagreement.empty();
  if (!m.agrees) m.note = "multiply and symbolic + numeric differ: " + disagreement;
  m.nnz_c = run.stats.nnz;
  m.peak_temp_bytes = std::max(run.stats.symbolic_peak_temp_bytes, run.stats.numeric_peak_temp_bytes);
  return run;
}

/// gustav::multiply with `options`: the one-shot product that the benchmark
/// measures peak temporary memory on.
template <class Space, class Offset>
DeviceMatrix<Space, Offset> multiply_once(const Space& space, const DeviceMatrix<Space, Offset>& A,
                                          const DeviceMatrix<Space, Offset>& B, const SpgemmOptions& options) {
  return gustav::multiply(space, A, B, options);
}

// Each (space, offset) instance of the two functions above compiles Gustav's
// whole pipeline, minutes of nvcc; they are compiled once, each in its own
// translation unit (run_gustav_instance.cpp.in, one file per space and
// offset type), not again in every file that calls them, and in parallel.
#define GUSTAV_BENCH_RUNNER_INSTANCE(EXTERN, SPACE, OFFSET)                                                         \
  EXTERN template GustavRun<SPACE, OFFSET> run_gustav<SPACE, OFFSET>(                                                \
      const SPACE&, const DeviceMatrix<SPACE, OFFSET>&, const DeviceMatrix<SPACE, OFFSET>&, const SpgemmOptions&,   \
      const std::string&, int, int);                                                                                 \
  EXTERN template DeviceMatrix<SPACE, OFFSET> multiply_once<SPACE, OFFSET>(                                          \
      const SPACE&, const DeviceMatrix<SPACE, OFFSET>&, const DeviceMatrix<SPACE, OFFSET>&, const SpgemmOptions&);
#define GUSTAV_BENCH_RUNNER_INSTANCES(EXTERN, SPACE)  \
  GUSTAV_BENCH_RUNNER_INSTANCE(EXTERN, SPACE, int) \
  GUSTAV_BENCH_RUNNER_INSTANCE(EXTERN, SPACE, std::int64_t)

#if defined(KOKKOS_ENABLE_CUDA)
GUSTAV_BENCH_RUNNER_INSTANCES(extern, Kokkos::Cuda)
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
GUSTAV_BENCH_RUNNER_INSTANCES(extern, Kokkos::OpenMP)
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
GUSTAV_BENCH_RUNNER_INSTANCES(extern, Kokkos::Serial)
#endif

}  // namespace gustav::bench
