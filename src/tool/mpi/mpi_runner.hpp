#pragma once
// One gustav-mpi run on one execution space: the inputs uploaded as
// distributed matrices, the product timed from scratch and as a
// numeric-only repeat (the slowest rank's time, median over the
// repetitions, after one untimed run), checked, written, and compared with
// PETSc when asked.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "gustav/distributed.hpp"
#include "gustav/matrix_market.hpp"
#include "mpi_run.hpp"
#if defined(GUSTAV_MPI_PETSC)
#include "petsc_runner.hpp"
#endif

namespace gustav::tool {
namespace mpi_detail {

inline double slowest(MPI_Comm comm, double mine) {
  double max = 0;
  MPI_Allreduce(&mine, &max, 1, MPI_DOUBLE, MPI_MAX, comm);
  return max;
}

inline std::int64_t total(MPI_Comm comm, std::int64_t mine) {
  std::int64_t sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, comm);
  return sum;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// "agrees" when `got` has `want`'s structure and values within a relative
/// 1e-10 of each row's largest; else what differs first.
inline std::string compare(const generators::Matrix& got, const generators::Matrix& want) {
  if (got.num_rows != want.num_rows || got.num_cols != want.num_cols) return "DISAGREES: shapes differ";
  if (got.row_map != want.row_map || got.entries != want.entries) return "DISAGREES: structures differ";
  for (std::int64_t i = 0; i < want.num_rows; ++i) {
    double scale = 1e-300;
    for (auto p = want.row_map[i]; p < want.row_map[i + 1]; ++p) scale = std::max(scale, std::abs(want.values[p]));
    for (auto p = want.row_map[i]; p < want.row_map[i + 1]; ++p)
      if (std::abs(got.values[p] - want.values[p]) > 1e-10 * scale)
        return "DISAGREES: row " + std::to_string(i) + " differs in value";
  }
  return "agrees";
}

/// Compares two blocks that may differ by stored zeros (PETSc keeps or
/// drops them as its kernels find them).
inline bool blocks_agree(const generators::Matrix& a, const generators::Matrix& b) {
  if (a.num_rows != b.num_rows) return false;
  for (std::int64_t i = 0; i < a.num_rows; ++i) {
    auto p = a.row_map[i], q = b.row_map[i];
    double scale = 1e-300;
    for (auto k = a.row_map[i]; k < a.row_map[i + 1]; ++k) scale = std::max(scale, std::abs(a.values[k]));
    while (p < a.row_map[i + 1] || q < b.row_map[i + 1]) {
      const auto ca = p < a.row_map[i + 1] ? a.entries[p] : INT64_MAX;
      const auto cb = q < b.row_map[i + 1] ? b.entries[q] : INT64_MAX;
      const double va = ca <= cb ? a.values[p] : 0.0, vb = cb <= ca ? b.values[q] : 0.0;
      if (std::abs(va - vb) > 1e-10 * scale) return false;
      if (ca <= cb) ++p;
      if (cb <= ca) ++q;
    }
  }
  return true;
}

}  // namespace mpi_detail

template <class Space>
MpiOutcome run_mpi_on(MPI_Comm comm, const MpiRequest& request, const MpiOperands& ops) {
  namespace gd = gustav::distributed;
  using Device = Kokkos::Device<Space, typename Space::memory_space>;
  using Matrix = KokkosSparse::CrsMatrix<double, int, Device, void, std::int64_t>;
  using mpi_detail::slowest;
  using mpi_detail::total;
  const Space space;
  const auto upload = [&](const generators::Matrix& block, const std::vector<std::int64_t>& starts,
                          std::int64_t cols, const char* label) {
    if (cols > std::numeric_limits<int>::max())
      throw invalid_input("gustav-mpi: " + std::to_string(cols) + " global columns do not fit 32-bit indices");
    generators::Matrix b = block;
    b.num_cols = cols;
    gd::DistributedMatrix<Matrix> M;
    M.comm = comm;
    M.rows = gd::RowBlocks(starts);
    M.local = to_crs<Matrix>(space, b, label);
    return M;
  };
  const auto A = upload(ops.first_block, ops.first_starts, ops.first_cols, "A");
  const auto B = upload(ops.second_block, ops.second_starts, ops.second_cols, request.command == "rap" ? "P" : "B");
  const auto timed = [&](auto&& call) {
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    call();
    space.fence();
    return slowest(comm, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  const auto phase = [&](const char* name, double mine) { return PhaseTime{name, slowest(comm, mine)}; };

  MpiOutcome out;
  std::vector<double> first, reuse;
  gd::DistributedMatrix<Matrix> C;
  if (request.command == "multiply") {
    auto product = gd::multiply(space, A, B);
    for (int r = 0; r < request.reps; ++r) first.push_back(timed([&] { product = gd::multiply(space, A, B); }));
    const auto made = product.plan.seconds();
    for (int r = 0; r < request.reps; ++r) reuse.push_back(timed([&] { gd::numeric(space, product.plan, A, B, product.C); }));
    const auto& s = product.plan.seconds();
    out.phases = {phase("multiply: import of B's rows", made.import), phase("multiply: B's values", made.value_exchange),
                  phase("multiply: local symbolic", made.local_symbolic),
                  phase("multiply: local numeric", made.local_numeric), phase("numeric: B's values", s.value_exchange),
                  phase("numeric: local numeric", s.local_numeric)};
    out.products = total(comm, product.plan.local_plan().stats().products);
    out.symbolic_bytes = total(comm, product.plan.communication().symbolic_bytes_sent);
    out.numeric_bytes = total(comm, product.plan.communication().numeric_bytes_sent);
    C = product.C;
  } else {
    auto g = gd::galerkin_product(space, A, B);
    std::vector<double> transposes;
    for (int r = 0; r < request.reps; ++r) {
      transposes.push_back(timed([&] { gd::transpose(space, B); }));
      first.push_back(timed([&] { g = gd::galerkin_product(space, A, B); }));
    }
    const auto ap_made = g.plan.ap.seconds(), rap_made = g.plan.rap.seconds();
    for (int r = 0; r < request.reps; ++r)
      reuse.push_back(timed([&] { gd::triple_product_numeric(space, g.plan, g.R, A, B, g.Ac); }));
    const auto &ap = g.plan.ap.seconds(), &rap = g.plan.rap.seconds();
    out.phases = {PhaseTime{"galerkin: transpose of P", mpi_detail::median(transposes)},
                  phase("galerkin: A*P import", ap_made.import), phase("galerkin: A*P local symbolic", ap_made.local_symbolic),
                  phase("galerkin: A*P local numeric", ap_made.local_numeric),
                  phase("galerkin: R*AP import", rap_made.import),
                  phase("galerkin: R*AP local symbolic", rap_made.local_symbolic),
                  phase("galerkin: R*AP local numeric", rap_made.local_numeric),
                  phase("numeric: P's values", ap.value_exchange), phase("numeric: A*P local", ap.local_numeric),
                  phase("numeric: AP's values", rap.value_exchange), phase("numeric: R*AP local", rap.local_numeric)};
    out.products = total(comm, g.plan.ap.local_plan().stats().products + g.plan.rap.local_plan().stats().products);
    out.symbolic_bytes = total(comm, g.plan.ap.communication().symbolic_bytes_sent +
                                         g.plan.rap.communication().symbolic_bytes_sent);
    out.numeric_bytes = total(comm, g.plan.ap.communication().numeric_bytes_sent +
                                        g.plan.rap.communication().numeric_bytes_sent);
    C = g.Ac;
  }
  out.first_seconds = mpi_detail::median(first);
  out.reuse_seconds = mpi_detail::median(reuse);
  out.c_rows = C.global_rows();
  out.c_cols = C.global_cols();
  out.c_nnz = total(comm, static_cast<std::int64_t>(C.local.nnz()));

  const int me = gd::detail::comm_rank(comm);
  if (request.check || !request.output.empty()) {
    const auto whole = gd::gather_whole<double, std::int64_t, std::int64_t>(C);
    if (me == 0 && !request.output.empty()) write_matrix_market(request.output, whole);
    if (me == 0 && request.check && ops.whole_known) {
      const auto want = request.command == "multiply"
                            ? generators::multiply(ops.first_whole, ops.second_whole)
                            : generators::multiply(generators::transpose(ops.second_whole),
                                                   generators::multiply(ops.first_whole, ops.second_whole));
      out.check = mpi_detail::compare(whole, want);
    } else if (me == 0 && request.check) {
      out.check = "not checked (weak-scaling blocks: no rank holds the whole inputs)";
    }
  }

#if defined(GUSTAV_MPI_PETSC)
  if (request.peer == "petsc") {
    const auto block_of = [&](const generators::Matrix& m, const std::vector<std::int64_t>& starts, std::int64_t cols) {
      bench::RowBlock b;
      b.global_rows = starts.back();
      b.global_cols = cols;
      b.first_row = starts[me];
      b.row_map.assign(m.row_map.begin(), m.row_map.end());
      b.entries.assign(m.entries.begin(), m.entries.end());
      b.values = m.values;
      return b;
    };
    const auto pa = block_of(ops.first_block, ops.first_starts, ops.first_cols);
    const auto pb = block_of(ops.second_block, ops.second_starts, ops.second_cols);
    bench::petsc_initialize(comm);
    const auto peer = request.command == "multiply" ? bench::petsc_matmatmult(comm, pa, pb, request.reps)
                                                    : bench::petsc_ptap(comm, pa, pb, request.reps);
    out.peer_ran = peer.ran;
    out.peer_error = peer.error;
    out.peer_first_seconds = peer.first_seconds;
    out.peer_reuse_seconds = peer.reuse_seconds;
    if (peer.ran) {
      // PETSc may distribute Ac's rows otherwise than Gustav's even blocks:
      // both are compared whole on rank 0.
      generators::Matrix mine;
      mine.num_rows = static_cast<std::int64_t>(peer.C.row_map.size()) - 1;
      mine.num_cols = peer.C.global_cols;
      mine.row_map.assign(peer.C.row_map.begin(), peer.C.row_map.end());
      mine.entries.assign(peer.C.entries.begin(), peer.C.entries.end());
      mine.values = peer.C.values;
      gd::DistributedMatrix<Matrix> PC;
      PC.comm = comm;
      PC.rows = gd::RowBlocks::gather(comm, mine.num_rows);
      PC.local = to_crs<Matrix>(space, mine, "petsc::C");
      const auto theirs = gd::gather_whole<double, std::int64_t, std::int64_t>(PC);
      const auto ours = gd::gather_whole<double, std::int64_t, std::int64_t>(C);
      if (me == 0) out.peer_check = mpi_detail::blocks_agree(ours, theirs) ? "agrees" : "DISAGREES";
    }
  }
#endif
  return out;
}

}  // namespace gustav::tool
