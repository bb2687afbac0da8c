#pragma once
// What one gustav-mpi run is asked to do and what it measured, shared by
// the command-line front end and the per-space runners.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gustav/generators.hpp"

namespace gustav::tool {

struct MpiRequest {
  std::string command;     ///< "multiply" or "rap"
  std::string first;       ///< A: file or generator spec
  std::string second;      ///< B (multiply) or P (rap), may be empty
  std::string space;       ///< openmp or cuda
  std::string output;      ///< -o: C's Matrix Market file, or empty
  std::string json;        ///< --json file, or empty
  std::string peer;        ///< "petsc" or empty
  int reps = 5;
  bool weak = false;       ///< blocks generated per rank (lap3d:N per rank)
  bool check = false;      ///< compare with the serial reference on rank 0
};

/// One rank's input blocks (global column indices) and their distributions.
struct MpiOperands {
  std::string name;
  std::vector<std::int64_t> first_starts, second_starts;  ///< row blocks of A and of B / P
  generators::Matrix first_block, second_block;           ///< this rank's rows
  std::int64_t first_cols = 0, second_cols = 0;           ///< global columns
  bool whole_known = false;                               ///< every rank holds the whole matrices below
  generators::Matrix first_whole, second_whole;
};

/// A phase's time: the slowest rank's, median over the repetitions.
struct PhaseTime {
  std::string name;
  double seconds = 0;
};

struct MpiOutcome {
  double first_seconds = 0;   ///< the whole product from scratch
  double reuse_seconds = 0;   ///< numeric-only repeat
  std::vector<PhaseTime> phases;
  std::int64_t products = 0;  ///< over all ranks (flops = 2 products)
  std::int64_t c_rows = 0, c_cols = 0, c_nnz = 0;
  std::int64_t symbolic_bytes = 0, numeric_bytes = 0;  ///< sent, over all ranks
  std::string check;          ///< "agrees", "DISAGREES: ..." or empty
  bool peer_ran = false;
  std::string peer_error, peer_check;
  double peer_first_seconds = 0, peer_reuse_seconds = 0;
};

/// Runs the request on one execution space (one file per space; a rank of
/// one thread is an OpenMP rank with OMP_NUM_THREADS=1).
MpiOutcome run_mpi_openmp(MPI_Comm comm, const MpiRequest& request, const MpiOperands& operands);
MpiOutcome run_mpi_cuda(MPI_Comm comm, const MpiRequest& request, const MpiOperands& operands);

}  // namespace gustav::tool
