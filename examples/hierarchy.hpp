#pragma once
// The setup phase of smoothed-aggregation multigrid on one execution space,
// level by level: tentative prolongator (aggregation), Jacobi-smoothed
// prolongator P, restriction R = P^T, coarse operator R * A * P, and the
// numeric-only recomputation of all three that a new A with the same
// structure (a time step, a Newton step) would need. Every step is timed.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "aggregation.hpp"
#include "gustav/gustav.hpp"
#include "gustav/transpose.hpp"

namespace gustav::examples {

struct SetupSettings {
  double omega = 2.0 / 3.0;        ///< Jacobi damping
  int reps = 3;                    ///< timed repetitions per step (median reported)
  std::int64_t coarse_rows = 300;  ///< stop once a level has at most this many rows
  int max_levels = 12;
};

/// The finest operator and how to aggregate it: on its grid (grid_dims > 0,
/// aggregates of aggregate^dims nodes, as the generators build them) or
/// greedily.
struct FineLevel {
  std::string name;
  HostMatrix A;
  int grid_dims = 0;
  std::int64_t grid_n = 0;
  int dofs_per_node = 1;
  int aggregate = 3;
};

/// Median seconds of each step of one level; zero on the coarsest level.
struct StepTimes {
  double jacobi = 0;         ///< P = (I - omega D^-1 A) P_tent, symbolic + numeric
  double transpose = 0;      ///< R = P^T
  double ap = 0;             ///< A * P alone, symbolic + numeric
  double rap = 0;            ///< R * (AP) alone, symbolic + numeric
  double triple = 0;         ///< R * A * P by gustav::triple_product
  double reuse_jacobi = 0;   ///< numeric-only Jacobi product
  double reuse_transpose = 0;
  double reuse_triple = 0;   ///< numeric-only R * A * P
  double reuse() const { return reuse_jacobi + reuse_transpose + reuse_triple; }
};

struct LevelReport {
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  std::int64_t coarse_rows = 0;  ///< columns of P (0 on the coarsest level)
  std::int64_t nnz_p = 0;
  StepTimes times;
};

/// Runs `f` once to warm up (first-touch page faults, memory pools, JIT
/// compilation on GPUs newer than the code), then `reps` times fenced, and
/// returns the median in seconds.
template <class Space, class F>
double median_seconds(const Space& space, int reps, F&& f) {
  std::vector<double> seconds;
  for (int r = 0; r <= reps; ++r) {
    space.fence();
    const auto start = std::chrono::steady_clock::now();
    f();
    space.fence();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (r > 0) seconds.push_back(elapsed.count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

template <class Space>
std::vector<LevelReport> build_hierarchy(const Space& space, const FineLevel& fine, const SetupSettings& s) {
  using Device = Kokkos::Device<Space, typename Space::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<double, int, Device, void, std::int64_t>;
  using JacobiResult = decltype(jacobi_prolongator(space, 1.0, Matrix(), Matrix()));
  using TripleResult = decltype(triple_product(space, Matrix(), Matrix(), Matrix()));

  std::vector<LevelReport> levels;
  Matrix A = to_crs<Matrix>(space, fine.A, "gustav::amg_setup::A");
  HostMatrix P_tent_host =
      fine.grid_dims > 0
          ? generators::tentative_prolongator(fine.grid_n, fine.grid_dims, fine.aggregate, fine.dofs_per_node)
          : greedy_tentative_prolongator(fine.A, fine.dofs_per_node);
  for (int level = 0;; ++level) {
    LevelReport report;
    report.rows = A.numRows();
    report.nnz = A.nnz();
    const bool coarsest = report.rows <= s.coarse_rows || level + 1 == s.max_levels ||
                          P_tent_host.num_cols == 0 || P_tent_host.num_cols >= report.rows;
    if (coarsest) {
      levels.push_back(report);
      return levels;
    }
    const auto P_tent = to_crs<Matrix>(space, P_tent_host, "gustav::amg_setup::P_tent");
    StepTimes& t = report.times;
    JacobiResult jacobi;
    t.jacobi = median_seconds(space, s.reps, [&] { jacobi = jacobi_prolongator(space, s.omega, A, P_tent); });
    const Matrix& P = jacobi.P;
    Matrix R, AP, RAP;
    t.transpose = median_seconds(space, s.reps, [&] { R = transpose(space, P); });
    t.ap = median_seconds(space, s.reps, [&] { AP = multiply(space, A, P); });
    t.rap = median_seconds(space, s.reps, [&] { RAP = multiply(space, R, AP); });
    TripleResult triple;
    t.triple = median_seconds(space, s.reps, [&] { triple = triple_product(space, R, A, P); });
    if (triple.Ac.nnz() != RAP.nnz()) throw std::logic_error("R * A * P and R * (AP) differ in nnz");

    // A new A of the same structure: every step again, numeric phases only.
    t.reuse_jacobi = median_seconds(
        space, s.reps, [&] { jacobi_prolongator_numeric(space, jacobi.plan, s.omega, A, P_tent, jacobi.P); });
    t.reuse_transpose = median_seconds(space, s.reps, [&] { R = transpose(space, P); });
    t.reuse_triple =
        median_seconds(space, s.reps, [&] { triple_product_numeric(space, triple.plan, R, A, P, triple.Ac); });

    report.coarse_rows = P.numCols();
    report.nnz_p = P.nnz();
    levels.push_back(report);
    A = triple.Ac;
    P_tent_host = greedy_tentative_prolongator(to_host_csr<double, std::int64_t, std::int64_t>(A),
                                               fine.dofs_per_node);
  }
}

}  // namespace gustav::examples
