#pragma once
// PETSc as a distributed peer: MatMatMult and MatPtAP timed on exactly the
// row blocks the distributed tool gives Gustav, in the same MPI run. This
// header names no PETSc type, so the tool compiles without PETSc's headers;
// only petsc_runner.cpp includes them.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gustav::bench {

/// One rank's block of rows of a global CSR matrix, global column indices,
/// rows sorted by column, no duplicates, double values.
struct RowBlock {
  std::int64_t global_rows = 0, global_cols = 0;
  std::int64_t first_row = 0;              // this rank's first global row
  std::vector<std::int64_t> row_map{0};    // local rows + 1 offsets
  std::vector<std::int64_t> entries;       // global column indices
  std::vector<double> values;
  std::int64_t local_rows() const { return static_cast<std::int64_t>(row_map.size()) - 1; }
};

struct PetscResult {
  bool ran = false;            // false when PETSc failed; `error` says why
  std::string error;
  double first_seconds = 0;    // median over reps of the whole product from scratch (MAT_INITIAL_MATRIX), max over ranks of each rep
  double reuse_seconds = 0;    // median over reps of the numeric-only repeat (MAT_REUSE_MATRIX), max over ranks
  RowBlock C;                  // this rank's block of the result (from the last rep), for checking against Gustav's
};

/// PETSc initialised on `comm` once (PetscInitialize with PETSC_COMM_WORLD = comm, no options file, no signal handler)
/// and finalised by petsc_finalize(); both no-ops when called again. MPI must already be initialised, so that PETSc
/// leaves MPI_Finalize to the caller. Collective on `comm`.
void petsc_initialize(MPI_Comm comm);
void petsc_finalize();

/// C = A * B with MatMatMult (MATMPIAIJ matrices built from the blocks with their row distribution: each rank's local
/// rows = local_rows(), local columns for the column layout = PETSC_DECIDE for B's columns, but A's column layout must
/// match B's row layout, i.e. A's local column count on each rank = B's local row count on that rank).
/// Collective on `comm`; every rank gets the same `ran` and `error`.
PetscResult petsc_matmatmult(MPI_Comm comm, const RowBlock& A, const RowBlock& B, int reps);

/// Ac = P^T * A * P with MatPtAP (A square, distributed like P's rows; P's column layout PETSC_DECIDE).
/// Collective on `comm`; every rank gets the same `ran` and `error`.
PetscResult petsc_ptap(MPI_Comm comm, const RowBlock& A, const RowBlock& P, int reps);

}  // namespace gustav::bench
