#pragma once
// Times Gustav on one product: symbolic, numeric, total (both, with every
// allocation) and numeric-only reuse, each fenced, after warm-up runs.
#include <Kokkos_Core.hpp>

#include "bench_types.hpp"
#include "gustav/spgemm.hpp"
#include "timing.hpp"

namespace gustav::bench {

template <class Space, class Offset>
struct GustavRun {
  Measurement measurement;
  SpgemmStats stats;
  DeviceMatrix<Space, Offset> C;  ///< the last product computed
};

template <class Space, class Offset>
GustavRun<Space, Offset> run_gustav(const Space& space, const DeviceMatrix<Space, Offset>& A,
                                    const DeviceMatrix<Space, Offset>& B, const SpgemmOptions& options,
                                    const std::string& name, int warmups, int reps) {
  GustavRun<Space, Offset> run;
  Measurement& m = run.measurement;
  m.implementation = name;
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
      m.total.push_back(t_symbolic + t_numeric);
      m.reuse.push_back(t_reuse);
    }
    run.stats = plan.stats();
    run.C = C;
  }
  m.ran = true;
  m.agrees = true;
  m.nnz_c = run.stats.nnz;
  m.peak_temp_bytes = std::max(run.stats.symbolic_peak_temp_bytes, run.stats.numeric_peak_temp_bytes);
  return run;
}

}  // namespace gustav::bench
