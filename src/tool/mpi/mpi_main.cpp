// gustav-mpi: Gustav's distributed products on MPI ranks, timed and checked.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <string>
#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

#include "../arguments.hpp"
#include "gustav/distributed.hpp"
#include "gustav/openmp_binding.hpp"
#include "json_writer.hpp"
#include "mpi_run.hpp"
#include "operand_loading.hpp"
#include "slab_generator.hpp"
#if defined(GUSTAV_MPI_PETSC)
#include "petsc_runner.hpp"
#endif

namespace gustav::tool {
namespace {

const char* usage =
    "usage: mpirun -np P gustav-mpi multiply|rap A [B|P] [-o C.mtx] [--space openmp|cuda]\n"
    "                 [--reps N] [--json FILE] [--weak] [--check] [--peer petsc]\n"
    "  multiply: C = A * B (B defaults to A's spec product, or A).\n"
    "  rap:      Ac = P^T * A * P (P defaults to the smoothed aggregation prolongator of a grid spec).\n"
    "  A, B, P: Matrix Market files or generator specs (lap3d:40, rmat:16:8, ...); every rank\n"
    "  reads them and keeps its block of rows (even blocks).\n"
    "  --weak: A = lap3d:N[:7|27] per rank: each rank generates its own N^3 rows of an\n"
    "          N x N x (N * P) grid (and of P for rap); no rank holds the whole matrix.\n"
    "  --reps N: timed repetitions (default 5) after one untimed run; times are the slowest\n"
    "          rank's, median over the repetitions.\n"
    "  --check: compare C with the serial reference product on rank 0.\n"
    "  --peer petsc: also time PETSc's MatMatMult / MatPtAP on the same blocks (builds with PETSc).\n"
    "  GPU ranks take the GPUs of their node in turn (KOKKOS_DEVICE_ID unless already set).\n";

/// Each rank of a node on its own GPU, in turn, before Kokkos starts.
void choose_device(MPI_Comm comm) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::getenv("KOKKOS_DEVICE_ID") != nullptr) return;
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0, gpus = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0)
    setenv("KOKKOS_DEVICE_ID", std::to_string(local % gpus).c_str(), 1);
#else
  (void)comm;
#endif
}

MpiRequest parse(int argc, char** argv) {
  if (argc < 2) throw UsageError{"needs a command"};
  MpiRequest r;
  r.command = argv[1];
  if (r.command != "multiply" && r.command != "rap") throw UsageError{"unknown command '" + r.command + "'"};
  const Arguments args(argc, argv, 2, {"weak", "check"}, {"space", "reps", "json", "peer"});
  const auto& pos = args.positional();
  if (pos.empty() || pos.size() > 2) throw UsageError{r.command + " takes one or two matrices"};
  r.first = pos[0];
  r.second = pos.size() > 1 ? pos[1] : "";
  r.space = args.get("space", "");
  r.output = args.get("output", "");
  r.json = args.get("json", "");
  r.peer = args.get("peer", "");
  r.reps = static_cast<int>(args.get_int("reps", 5, 1, 1000000));
  r.weak = args.has("weak");
  r.check = args.has("check");
  if (!r.peer.empty() && r.peer != "petsc") throw UsageError{"--peer takes petsc"};
  if (r.weak && !r.second.empty()) throw UsageError{"--weak generates B or P itself: give A only"};
  return r;
}

/// Even blocks of `rows` rows, and this rank's block of `whole`.
void spread(const generators::Matrix& whole, int ranks, int me, std::vector<std::int64_t>& starts,
            generators::Matrix& block) {
  starts = distributed::RowBlocks::even(whole.num_rows, ranks).starts();
  block = distributed::rows_of(whole, starts[me], starts[me + 1]);
}

MpiOperands load(const MpiRequest& r, int ranks, int me) {
  MpiOperands ops;
  if (r.weak) {
    Box box;
    long long n = 0;
    int points = 7;
    if (std::sscanf(r.first.c_str(), "lap3d:%lld:%d", &n, &points) < 1 || n < 1 || (points != 7 && points != 27) ||
        r.first.compare(0, 6, "lap3d:") != 0)
      throw UsageError{"--weak takes lap3d:N[:7|27], got '" + r.first + "'"};
    box.nx = box.ny = n;
    box.nz = n * ranks;
    box.points = points;
    const std::int64_t per_rank = n * n * n;
    for (int k = 0; k <= ranks; ++k) ops.first_starts.push_back(k * per_rank);
    ops.second_starts = ops.first_starts;
    const std::int64_t first = me * per_rank, end = first + per_rank;
    ops.first_block = laplace_box_rows(box, first, end);
    ops.first_cols = box.rows();
    if (r.command == "multiply") {
      ops.second_block = ops.first_block;
      ops.second_cols = box.rows();
    } else {
      ops.second_block = smoothed_prolongator_box_rows(box, 2, 2.0 / 3.0, first, end);
      ops.second_cols = box_aggregates(box, 2);
    }
    ops.name = r.first + " per rank (" + std::to_string(n) + " x " + std::to_string(n) + " x " +
               std::to_string(box.nz) + ")";
    return ops;
  }
  bench::Operands whole;
  if (r.command == "rap" && r.second.empty()) {
    if (!bench::is_spec(r.first) || r.first.find('/') != std::string::npos)
      throw UsageError{"rap needs P, or a grid spec (lap2d, lap3d, brick) whose prolongator it builds"};
    whole = bench::load_operands(r.first + "/ap", "");
  } else {
    whole = bench::load_operands(r.first, r.second);
  }
  ops.name = whole.name;
  ops.whole_known = true;
  ops.first_whole = whole.A;
  ops.second_whole = whole.B;
  ops.first_cols = whole.A.num_cols;
  ops.second_cols = whole.B.num_cols;
  spread(whole.A, ranks, me, ops.first_starts, ops.first_block);
  spread(whole.B, ranks, me, ops.second_starts, ops.second_block);
  return ops;
}

void report(const MpiRequest& r, const MpiOperands& ops, const MpiOutcome& o, int ranks) {
  const double flops = 2.0 * static_cast<double>(o.products);
  std::printf("gustav-mpi %s %s on %d ranks (%s, %d threads a rank)\n", r.command.c_str(), ops.name.c_str(), ranks,
              r.space.c_str(), Kokkos::DefaultHostExecutionSpace::concurrency());
  std::printf("  C: %lld x %lld, nnz %lld; products %lld\n", (long long)o.c_rows, (long long)o.c_cols,
              (long long)o.c_nnz, (long long)o.products);
  std::printf("  from scratch %.3f ms (%.2f GFLOP/s), numeric-only repeat %.3f ms (%.2f GFLOP/s)\n",
              o.first_seconds * 1e3, flops / o.first_seconds * 1e-9, o.reuse_seconds * 1e3,
              flops / o.reuse_seconds * 1e-9);
  std::printf("  sent by all ranks: %lld bytes in the symbolic phase, %lld bytes in each numeric phase\n",
              (long long)o.symbolic_bytes, (long long)o.numeric_bytes);
  std::printf("  phases (slowest rank, ms):\n");
  for (const auto& p : o.phases) std::printf("    %-36s %10.3f\n", p.name.c_str(), p.seconds * 1e3);
  if (!o.check.empty()) std::printf("  check against the serial reference: %s\n", o.check.c_str());
  if (r.peer == "petsc") {
    if (o.peer_ran) {
      std::printf("  petsc %s: from scratch %.3f ms, repeat %.3f ms; Gustav's speed %.2fx and %.2fx; result %s\n",
                  r.command == "multiply" ? "MatMatMult" : "MatPtAP", o.peer_first_seconds * 1e3,
                  o.peer_reuse_seconds * 1e3, o.peer_first_seconds / o.first_seconds,
                  o.peer_reuse_seconds / o.reuse_seconds, o.peer_check.c_str());
    } else {
      std::printf("  petsc: did not run: %s\n", o.peer_error.c_str());
    }
  }
  if (!r.json.empty()) {
    bench::JsonWriter j;
    j.begin_object();
    j.field("command", r.command).field("input", ops.name).field("ranks", ranks).field("space", r.space);
    j.field("threads_per_rank", Kokkos::DefaultHostExecutionSpace::concurrency());
    j.field("c_rows", o.c_rows).field("c_cols", o.c_cols).field("c_nnz", o.c_nnz).field("products", o.products);
    j.field("first_seconds", o.first_seconds).field("reuse_seconds", o.reuse_seconds);
    j.field("first_gflops", flops / o.first_seconds * 1e-9).field("reuse_gflops", flops / o.reuse_seconds * 1e-9);
    j.field("symbolic_bytes_sent", o.symbolic_bytes).field("numeric_bytes_sent", o.numeric_bytes);
    j.begin_object("phases_seconds");
    for (const auto& p : o.phases) j.field(p.name, p.seconds);
    j.end_object();
    if (!o.check.empty()) j.field("check", o.check);
    if (r.peer == "petsc") {
      j.begin_object("petsc").field("ran", o.peer_ran).field("error", o.peer_error);
      j.field("first_seconds", o.peer_first_seconds).field("reuse_seconds", o.peer_reuse_seconds);
      j.field("result", o.peer_check).end_object();
    }
    j.end_object();
    std::ofstream(r.json) << j.str() << "\n";
  }
}

int run(int argc, char** argv) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int me = distributed::detail::comm_rank(comm), ranks = distributed::detail::comm_size(comm);
  MpiRequest request;
  try {
    request = parse(argc, argv);
  } catch (const UsageError& e) {
    if (me == 0) std::fprintf(stderr, "gustav-mpi: %s\n\n%s", e.message.c_str(), usage);
    return 2;
  }
#if defined(KOKKOS_ENABLE_CUDA)
  if (request.space.empty()) request.space = "cuda";
#else
  if (request.space.empty()) request.space = "openmp";
#endif
  try {
    const auto ops = load(request, ranks, me);
    MpiOutcome outcome;
    if (request.space == "openmp") {
      outcome = run_mpi_openmp(comm, request, ops);
    } else if (request.space == "cuda") {
      outcome = run_mpi_cuda(comm, request, ops);
    } else {
      throw UsageError{"--space takes openmp or cuda"};
    }
    if (me == 0) report(request, ops, outcome, ranks);
  } catch (const UsageError& e) {
    if (me == 0) std::fprintf(stderr, "gustav-mpi: %s\n\n%s", e.message.c_str(), usage);
    return 2;
  } catch (const std::exception& e) {
    // Collective errors are the same on every rank: rank 0 says it.
    if (me == 0) std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace gustav::tool

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  gustav::tool::choose_device(MPI_COMM_WORLD);
  gustav::name_openmp_binding();
  int rc = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    rc = gustav::tool::run(argc, argv);
#if defined(GUSTAV_MPI_PETSC)
    gustav::bench::petsc_finalize();
#endif
  }
  // The run's status is the worst rank's.
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
