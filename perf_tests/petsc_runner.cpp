#include "petsc_runner.hpp"

#include <petsc.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <limits>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include "timing.hpp"

namespace gustav::bench {

// The blocks hold doubles and PETSc copies them as PetscScalar: a complex or
// single-precision PETSc would compute something else than Gustav does.
static_assert(std::is_same<PetscScalar, double>::value, "the PETSc peer needs a PETSc built with real double scalars");

namespace {

enum class PetscState { never_initialised, initialised, failed, finalised };

PetscState petsc_state = PetscState::never_initialised;
bool initialised_here = false;  // PETSc set up by someone else is theirs to finalise
std::string initialise_error;

std::string petsc_message(PetscErrorCode code, const char* call) {
  const char* text = nullptr;
  char* specific = nullptr;
  PetscErrorMessage(code, &text, &specific);
  std::string message = std::string(call) + " failed: " + (text ? text : "unknown PETSc error");
  if (specific && *specific) message += " (" + std::string(specific) + ")";
  return message + " [PETSc error " + std::to_string(static_cast<int>(code)) + "]";
}

std::string check(PetscErrorCode code, const char* call) { return code ? petsc_message(code, call) : std::string(); }

/// Every rank learns whether any rank failed, with the first failing rank's
/// reason, so that all ranks give up together: a rank returning alone would
/// leave the others waiting in the next collective call.
std::string agree_on_error(MPI_Comm comm, const std::string& local_error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int failing = local_error.empty() ? INT_MAX : rank;
  int first_failing = INT_MAX;
  MPI_Allreduce(&failing, &first_failing, 1, MPI_INT, MPI_MIN, comm);
  if (first_failing == INT_MAX) return {};
  std::string message = local_error;
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, first_failing, comm);
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, first_failing, comm);
  return size > 1 ? "rank " + std::to_string(first_failing) + ": " + message : message;
}

std::string not_ready_reason() {
  switch (petsc_state) {
    case PetscState::initialised: return {};
    case PetscState::never_initialised: break;
    case PetscState::failed: return "PETSc could not be initialised: " + initialise_error;
    case PetscState::finalised: return "PETSc has already been finalised";
  }
  PetscBool elsewhere = PETSC_FALSE;
  PetscInitialized(&elsewhere);
  return elsewhere ? std::string() : "petsc_initialize was not called";
}

/// A Mat destroyed on every way out, errors included.
class OwnedMat {
 public:
  OwnedMat() = default;
  OwnedMat(const OwnedMat&) = delete;
  OwnedMat& operator=(const OwnedMat&) = delete;
  ~OwnedMat() { destroy(); }
  void destroy() {
    if (mat) MatDestroy(&mat);
    mat = nullptr;
  }
  Mat mat = nullptr;
};

/// A block's CSR in PETSc's index type, row offsets counted from 0.
struct PetscIndices {
  PetscInt local_rows = 0, global_rows = 0, global_cols = 0;
  std::vector<PetscInt> row_map, entries;
};

bool fits_petsc_int(std::int64_t value) {
  return value >= 0 && value <= static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max());
}

std::string check_block_shape(const RowBlock& block, const char* name) {
  const std::string prefix = std::string(name) + ": ";
  if (block.row_map.empty()) return prefix + "row_map is empty (it needs local rows + 1 offsets)";
  const std::int64_t nnz = block.row_map.back() - block.row_map.front();
  if (nnz < 0 || static_cast<std::size_t>(nnz) != block.entries.size() || block.entries.size() != block.values.size())
    return prefix + "row_map, entries and values disagree on the number of entries";
  for (std::size_t row = 0; row + 1 < block.row_map.size(); ++row)
    if (block.row_map[row + 1] < block.row_map[row]) return prefix + "row_map decreases at local row " + std::to_string(row);
  for (const std::int64_t column : block.entries)
    if (column < 0 || column >= block.global_cols)
      return prefix + "column " + std::to_string(column) + " lies outside 0.." + std::to_string(block.global_cols - 1);
  return {};
}

/// PetscInt is 32 bits in most builds (PETSC_USE_64BIT_INDICES off): every
/// size and index must fit before the block can be handed over.
std::string to_petsc_indices(const RowBlock& block, const char* name, PetscIndices& out) {
  if (std::string shape = check_block_shape(block, name); !shape.empty()) return shape;
  const std::int64_t nnz = block.row_map.back() - block.row_map.front();
  if (!fits_petsc_int(block.global_rows) || !fits_petsc_int(block.global_cols) || !fits_petsc_int(nnz))
    return std::string(name) + ": " + std::to_string(block.global_rows) + " x " + std::to_string(block.global_cols) +
           " with " + std::to_string(nnz) + " local entries does not fit PETSc's " +
           std::to_string(8 * sizeof(PetscInt)) + "-bit PetscInt";
  out.local_rows = static_cast<PetscInt>(block.local_rows());
  out.global_rows = static_cast<PetscInt>(block.global_rows);
  out.global_cols = static_cast<PetscInt>(block.global_cols);
  out.row_map.resize(block.row_map.size());
  for (std::size_t row = 0; row < block.row_map.size(); ++row)
    out.row_map[row] = static_cast<PetscInt>(block.row_map[row] - block.row_map.front());
  // Never hand PETSc a null column array, which it may reject even for a rank without entries.
  out.entries.assign(std::max<std::size_t>(block.entries.size(), 1), 0);
  std::copy(block.entries.begin(), block.entries.end(), out.entries.begin());
  return {};
}

/// PETSc places rows by each rank's count alone, so a block whose first_row
/// is not the sum of the lower ranks' counts would silently be another block.
std::string check_distribution(MPI_Comm comm, const RowBlock& block, const char* name) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const long long local_rows = block.local_rows();
  long long rows_below = 0, total_rows = 0;
  MPI_Exscan(&local_rows, &rows_below, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(&local_rows, &total_rows, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (rank == 0) rows_below = 0;  // MPI_Exscan leaves rank 0's result undefined
  if (block.first_row != rows_below)
    return std::string(name) + ": first_row " + std::to_string(block.first_row) + " but the lower ranks hold " +
           std::to_string(rows_below) + " rows";
  if (block.global_rows != total_rows)
    return std::string(name) + ": global_rows " + std::to_string(block.global_rows) + " but the ranks hold " +
           std::to_string(total_rows) + " rows";
  // PETSc takes each rank's global column count on trust.
  const long long global_cols = block.global_cols;
  long long fewest = 0, most = 0;
  MPI_Allreduce(&global_cols, &fewest, 1, MPI_LONG_LONG, MPI_MIN, comm);
  MPI_Allreduce(&global_cols, &most, 1, MPI_LONG_LONG, MPI_MAX, comm);
  if (fewest != most)
    return std::string(name) + ": the ranks disagree on global_cols (" + std::to_string(fewest) + " to " +
           std::to_string(most) + ")";
  return {};
}

/// MATMPIAIJ from one rank's rows; `local_cols` sets the column layout
/// (PETSC_DECIDE, or the row layout of the matrix it multiplies).
std::string build_matrix(MPI_Comm comm, const RowBlock& block, const PetscIndices& indices, PetscInt local_cols,
                         OwnedMat& out) {
  static const double no_values = 0;
  const double* values = block.values.empty() ? &no_values : block.values.data();
  return check(MatCreateMPIAIJWithArrays(comm, indices.local_rows, local_cols, indices.global_rows, indices.global_cols,
                                         indices.row_map.data(), indices.entries.data(), values, &out.mat),
               "MatCreateMPIAIJWithArrays");
}

/// Both operands as MATMPIAIJ. The first operand's column layout is the
/// second's row layout, which the product needs for the two to conform.
std::string build_operands(MPI_Comm comm, const RowBlock& left, const char* left_name, const RowBlock& right,
                           const char* right_name, OwnedMat& left_mat, OwnedMat& right_mat) {
  PetscIndices left_indices, right_indices;
  std::string error = to_petsc_indices(left, left_name, left_indices);
  if (error.empty()) error = to_petsc_indices(right, right_name, right_indices);
  if (error.empty()) error = check_distribution(comm, left, left_name);
  if (error.empty()) error = check_distribution(comm, right, right_name);
  if (!(error = agree_on_error(comm, error)).empty()) return error;
  error = build_matrix(comm, left, left_indices, right_indices.local_rows, left_mat);
  if (!(error = agree_on_error(comm, error)).empty()) return error;
  return agree_on_error(comm, build_matrix(comm, right, right_indices, PETSC_DECIDE, right_mat));
}

/// This rank's rows of C, as PETSc returns them: sorted global columns.
std::string extract_block(Mat C, RowBlock& out) {
  PetscInt global_rows = 0, global_cols = 0, begin = 0, end = 0;
  if (std::string error = check(MatGetSize(C, &global_rows, &global_cols), "MatGetSize"); !error.empty()) return error;
  if (std::string error = check(MatGetOwnershipRange(C, &begin, &end), "MatGetOwnershipRange"); !error.empty())
    return error;
  out = RowBlock{};
  out.global_rows = global_rows;
  out.global_cols = global_cols;
  out.first_row = begin;
  out.row_map.reserve(static_cast<std::size_t>(end - begin) + 1);
  for (PetscInt row = begin; row < end; ++row) {
    PetscInt count = 0;
    const PetscInt* columns = nullptr;
    const PetscScalar* values = nullptr;
    if (std::string error = check(MatGetRow(C, row, &count, &columns, &values), "MatGetRow"); !error.empty())
      return error;
    out.entries.insert(out.entries.end(), columns, columns + count);
    out.values.insert(out.values.end(), values, values + count);
    out.row_map.push_back(static_cast<std::int64_t>(out.entries.size()));
    if (std::string error = check(MatRestoreRow(C, row, &count, &columns, &values), "MatRestoreRow"); !error.empty())
      return error;
  }
  return {};
}

/// The product under test: MatMatMult or MatPtAP with its operands bound.
using Product = std::function<PetscErrorCode(MatReuse, Mat*)>;

/// One rep, timed from a common start to the slowest rank's end, since the
/// product is done only when every rank is done.
std::string time_rep(MPI_Comm comm, const Product& product, const char* name, MatReuse reuse, Mat* C,
                     double& seconds) {
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  const PetscErrorCode code = product(reuse, C);
  const double elapsed = MPI_Wtime() - start;
  MPI_Allreduce(&elapsed, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return agree_on_error(comm, check(code, name));
}

/// An untimed warm-up and `reps` timed products from scratch, then the same
/// for numeric-only repeats on the last product's structure.
PetscResult time_product(MPI_Comm comm, const Product& product, const char* name, int reps) {
  PetscResult result;
  reps = std::max(reps, 1);
  OwnedMat C;
  double seconds = 0;
  std::vector<double> first, reuse;
  // Rep 0 is the warm-up: library set-up and first-touch costs stay out of the timings.
  for (int rep = 0; rep <= reps; ++rep) {
    C.destroy();
    if ((result.error = time_rep(comm, product, name, MAT_INITIAL_MATRIX, &C.mat, seconds)).empty()) {
      if (rep > 0) first.push_back(seconds);
    } else {
      return result;
    }
  }
  for (int rep = 0; rep <= reps; ++rep) {
    if ((result.error = time_rep(comm, product, name, MAT_REUSE_MATRIX, &C.mat, seconds)).empty()) {
      if (rep > 0) reuse.push_back(seconds);
    } else {
      return result;
    }
  }
  if (!(result.error = agree_on_error(comm, extract_block(C.mat, result.C))).empty()) return result;
  result.first_seconds = median(first);
  result.reuse_seconds = median(reuse);
  result.ran = true;
  return result;
}

PetscResult failed(std::string error) {
  PetscResult result;
  result.error = std::move(error);
  return result;
}

}  // namespace

void petsc_initialize(MPI_Comm comm) {
  if (petsc_state != PetscState::never_initialised) return;
  PetscBool elsewhere = PETSC_FALSE;
  PetscInitialized(&elsewhere);
  if (elsewhere) {  // someone else's PETSc, on their communicator, with their error handling
    petsc_state = PetscState::initialised;
    return;
  }
  PETSC_COMM_WORLD = comm;
  // The benchmark's PETSc must not pick up a stray .petscrc, nor take over
  // the signals that MPI and the tool handle. PETSc honours -skip_petscrc
  // only on its command line (set beforehand with PetscOptionsSetValue it is
  // ignored), so both come as arguments; PETSc keeps the array, hence static.
  static char program[] = "gustav-mpi", skip_petscrc[] = "-skip_petscrc", no_signal_handler[] = "-no_signal_handler";
  static char* arguments[] = {program, skip_petscrc, no_signal_handler, nullptr};
  static int argument_count = 3;
  static char** argument_array = arguments;
  const PetscErrorCode code = PetscInitialize(&argument_count, &argument_array, nullptr, nullptr);
  if (code) {
    initialise_error = "PetscInitialize failed with PETSc error " + std::to_string(static_cast<int>(code));
    petsc_state = PetscState::failed;
    return;
  }
  // Errors come back as codes for the runner to report, instead of a
  // traceback and MPI_Abort that would end Gustav's run too.
  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  initialised_here = true;
  petsc_state = PetscState::initialised;
}

void petsc_finalize() {
  if (petsc_state != PetscState::initialised) return;
  if (initialised_here) {
    PetscPopErrorHandler();
    PetscFinalize();
  }
  petsc_state = PetscState::finalised;
}

PetscResult petsc_matmatmult(MPI_Comm comm, const RowBlock& A, const RowBlock& B, int reps) {
  if (std::string reason = not_ready_reason(); !reason.empty()) return failed(reason);
  if (A.global_cols != B.global_rows)
    return failed("A is " + std::to_string(A.global_rows) + " x " + std::to_string(A.global_cols) + " but B has " +
                  std::to_string(B.global_rows) + " rows");
  OwnedMat a, b;
  if (std::string error = build_operands(comm, A, "A", B, "B", a, b); !error.empty()) return failed(error);
  const Mat left = a.mat, right = b.mat;
  const Product product = [left, right](MatReuse reuse, Mat* C) {
    return MatMatMult(left, right, reuse, PETSC_DEFAULT, C);
  };
  return time_product(comm, product, "MatMatMult", reps);
}

PetscResult petsc_ptap(MPI_Comm comm, const RowBlock& A, const RowBlock& P, int reps) {
  if (std::string reason = not_ready_reason(); !reason.empty()) return failed(reason);
  if (A.global_rows != A.global_cols || A.global_cols != P.global_rows)
    return failed("A is " + std::to_string(A.global_rows) + " x " + std::to_string(A.global_cols) + " but P has " +
                  std::to_string(P.global_rows) + " rows; P^T A P needs A square with P's row count");
  // P^T A P pairs A's rows with P's rows on every rank, not only its columns.
  const int same_rows = A.local_rows() == P.local_rows() ? 1 : 0;
  int everywhere = 0;
  MPI_Allreduce(&same_rows, &everywhere, 1, MPI_INT, MPI_MIN, comm);
  if (!everywhere) return failed("A and P must be distributed alike: some rank holds a different number of their rows");
  OwnedMat a, p;
  if (std::string error = build_operands(comm, A, "A", P, "P", a, p); !error.empty()) return failed(error);
  const Mat matrix = a.mat, prolongator = p.mat;
  const Product product = [matrix, prolongator](MatReuse reuse, Mat* C) {
    return MatPtAP(matrix, prolongator, reuse, PETSC_DEFAULT, C);
  };
  return time_product(comm, product, "MatPtAP", reps);
}

}  // namespace gustav::bench
