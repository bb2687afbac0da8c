#pragma once
/// C = A * B over row-distributed matrices: the symbolic phase imports the
/// rows of B that each rank's A reaches (remote_rows.hpp) and runs Gustav's
/// symbolic phase on the local product; a numeric-only repeat moves only
/// values along the kept plan and runs Gustav's numeric phase.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>

#include "gustav/common/types.hpp"
#include "gustav/distributed/collective_errors.hpp"
#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/distributed/remote_rows.hpp"
#include "gustav/distributed/row_blocks.hpp"
#include "gustav/distributed/structure_digest.hpp"
#include "gustav/options.hpp"
#include "gustav/plan.hpp"
#include "gustav/spgemm.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::distributed {

/// What one rank sent in a product's phases, in bytes, and the rows of B it
/// imported and served.
struct CommunicationStats {
  std::int64_t symbolic_bytes_sent = 0;  ///< row requests, row lengths and column indices
  std::int64_t numeric_bytes_sent = 0;   ///< values, in each numeric phase
  std::int64_t rows_imported = 0;        ///< rows of B this rank received
  std::int64_t rows_served = 0;          ///< rows of B this rank sent
};

/// Where one rank's time went, in seconds of wall clock (each part ends with
/// the rank's work done: the device fenced, the messages complete).
struct PhaseSeconds {
  double import = 0;          ///< multiply: finding, fetching and renumbering B's rows
  double local_symbolic = 0;  ///< multiply: Gustav's symbolic phase on the local product
  double local_numeric = 0;   ///< the latest numeric phase of the local product
  double value_exchange = 0;  ///< the latest move of B's values (in multiply: the first)
};

/// The symbolic result of a distributed C = A * B on one rank: the import
/// plan, B's gathered rows, the local Gustav plan and C's global column
/// indices. A value type (reference-counted views); its numeric calls are
/// collective and must use matrices of the structure it was made for.
template <class ExecSpace, class Matrix>
class ProductPlan {
 public:
  using scalar_type = typename Matrix::non_const_value_type;
  using ordinal_type = typename Matrix::non_const_ordinal_type;
  using offset_type = typename Matrix::non_const_size_type;
  using memory_space = typename ExecSpace::memory_space;
  using local_plan_type = SpgemmPlan<ExecSpace, offset_type, ordinal_type>;

  /// C's rows (A's distribution).
  const RowBlocks& rows() const { return a_rows_; }
  /// nnz of this rank's block of C.
  std::int64_t local_nnz() const { return static_cast<std::int64_t>(local_.nnz()); }
  /// The local product's plan (its stats() describe this rank's product).
  const local_plan_type& local_plan() const { return local_; }
  const CommunicationStats& communication() const { return comm_stats_; }
  /// This rank's time in the phases of multiply and of the latest numeric.
  const PhaseSeconds& seconds() const { return seconds_; }

  // --- implementation: filled by multiply, read by numeric ------------------
  MPI_Comm comm_ = MPI_COMM_WORLD;
  RowBlocks a_rows_, b_rows_;
  std::int64_t a_cols_ = 0, b_cols_ = 0;
  std::int64_t a_nnz_ = 0, b_nnz_ = 0;
  std::uint64_t digest_ = 0;  ///< fingerprint of A's and B's blocks
  detail::RemoteRows<ExecSpace, ordinal_type, offset_type, scalar_type> remote_;
  Kokkos::View<ordinal_type*, memory_space> a_local_entries_;
  local_plan_type local_;
  Kokkos::View<ordinal_type*, memory_space> c_entries_;
  CommunicationStats comm_stats_;
  PhaseSeconds seconds_;
};

/// What multiply returns: `auto [plan, C] = gustav::distributed::multiply(...)`.
template <class Plan, class Matrix>
struct DistributedProduct {
  Plan plan;
  DistributedMatrix<Matrix> C;
};

namespace detail {

template <class Matrix>
using Plain = KokkosSparse::CrsMatrix<typename Matrix::non_const_value_type, typename Matrix::non_const_ordinal_type,
                                      typename Matrix::device_type, void, typename Matrix::non_const_size_type>;

/// Seconds since `start`, and `start` moved to now.
inline double lap(std::chrono::steady_clock::time_point& start) {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - start).count();
  start = now;
  return s;
}

/// Checks of A and B that every rank must pass before any import: one
/// communicator, agreeing row distributions and global shapes, and each
/// rank's block a valid CSR matrix of its share of rows with column indices
/// inside the global column range. Collective.
template <class ExecSpace, class MA, class MB>
void check_operands(const ExecSpace& space, const DistributedMatrix<MA>& A, const DistributedMatrix<MB>& B,
                    const std::string& who, const char* a_name, const char* b_name) {
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(A.comm, B.comm, &same);
  if (same != MPI_IDENT && same != MPI_CONGRUENT)
    throw invalid_input(who + ": " + a_name + " and " + b_name + " live on different communicators");
  MPI_Comm comm = A.comm;
  check_same_blocks(comm, A.rows, who, a_name);
  check_same_blocks(comm, B.rows, who, b_name);
  const std::int64_t mine[2] = {A.global_cols(), B.global_cols()};
  std::int64_t lo[2], hi[2];
  MPI_Allreduce(mine, lo, 2, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(mine, hi, 2, MPI_INT64_T, MPI_MAX, comm);
  fail_together(comm, lo[0] != hi[0], ErrorKind::invalid_input,
                who + ": ranks disagree on " + a_name + "'s global column count (" + std::to_string(lo[0]) + " to " +
                    std::to_string(hi[0]) + ")");
  fail_together(comm, lo[1] != hi[1], ErrorKind::invalid_input,
                who + ": ranks disagree on " + b_name + "'s global column count (" + std::to_string(lo[1]) + " to " +
                    std::to_string(hi[1]) + ")");
  fail_together(comm, A.global_cols() != B.global_rows(), ErrorKind::invalid_input,
                who + ": " + a_name + " has " + std::to_string(A.global_cols()) + " columns but " + b_name + " has " +
                    std::to_string(B.global_rows()) + " rows");
  const int me = comm_rank(comm);
  all_or_none(comm, who.c_str(), [&] {
    auto check_block = [&](const auto& M, const char* name) {
      if (static_cast<std::int64_t>(M.local.numRows()) != M.rows.count(me))
        throw invalid_input(std::string(name) + "'s block has " + std::to_string(M.local.numRows()) +
                            " rows where its row distribution gives this rank " + std::to_string(M.rows.count(me)));
      gustav::detail::validate_csr(space, csr_input(M.local), who.c_str(), name, true, true);
    };
    check_block(A, a_name);
    check_block(B, b_name);
  });
}

template <class ExecSpace, class Plan, class MA>
auto local_a(const Plan& plan, const MA& A_local) {
  return make_csr_ref(static_cast<typename Plan::ordinal_type>(A_local.numRows()),
                      static_cast<typename Plan::ordinal_type>(plan.remote_.num_rows()), A_local.graph.row_map,
                      plan.a_local_entries_, A_local.values);
}

template <class Plan>
auto local_b(const Plan& plan) {
  return make_csr_ref(static_cast<typename Plan::ordinal_type>(plan.remote_.num_rows()),
                      static_cast<typename Plan::ordinal_type>(plan.remote_.num_cols()), plan.remote_.row_map,
                      plan.remote_.entries, plan.remote_.values);
}

/// C's global column indices: the local product's, through the column map
/// where B_ext's columns were renumbered.
template <class ExecSpace, class Plan>
void map_columns_back(const ExecSpace& space, Plan& plan) {
  using View = Kokkos::View<typename Plan::ordinal_type*, typename Plan::memory_space>;
  const auto local = plan.local_.entries();
  if (!plan.remote_.columns_renumbered) {
    plan.c_entries_ = local;
    return;
  }
  const auto columns = plan.remote_.columns;
  View global = gustav::detail::allocate_view<View>(space, "gustav::distributed::C::entries", local.extent(0), false);
  Kokkos::parallel_for(
      "gustav::distributed::global_columns",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, static_cast<std::int64_t>(local.extent(0))),
      KOKKOS_LAMBDA(const std::int64_t p) { global(p) = columns(local(p)); });
  plan.c_entries_ = global;
}

}  // namespace detail

/// C = A * B, both distributed by rows over one communicator, A's global
/// columns being B's global rows. Returns the plan (for numeric-only
/// repeats) and C, distributed as A, its blocks' rows sorted by global
/// column unless options.sort_rows is false. Every rank's block is checked
/// in full (monotone row map, column indices in range) whatever
/// options.validate_indices says: the import reads them.
///
/// Collective over A.comm. Errors end every rank with the same exception
/// and message: gustav::invalid_input (different communicators, ranks that
/// disagree on a distribution or a global size, A's columns not B's rows, a
/// malformed block, naming the rank), gustav::overflow_error,
/// gustav::allocation_error.
template <class ExecSpace, class MA, class MB>
auto multiply(const ExecSpace& space, const DistributedMatrix<MA>& A, const DistributedMatrix<MB>& B,
              const SpgemmOptions& options = {}) {
  using Matrix = detail::Plain<MA>;
  using Plan = ProductPlan<ExecSpace, Matrix>;
  using Scalar = typename Plan::scalar_type;
  using Offset = typename Plan::offset_type;
  static_assert(std::is_same_v<typename Plan::ordinal_type, typename MB::non_const_ordinal_type> &&
                    std::is_same_v<Scalar, typename MB::non_const_value_type>,
                "gustav::distributed::multiply: A and B must have the same scalar and ordinal types");
  static_assert(std::is_same_v<Offset, typename MB::non_const_size_type>,
                "gustav::distributed::multiply: A and B must have the same offset type");
  const std::string who = "gustav::distributed::multiply";
  detail::check_operands(space, A, B, who, "A", "B");
  MPI_Comm comm = A.comm;

  Plan plan;
  plan.comm_ = comm;
  plan.a_rows_ = A.rows;
  plan.b_rows_ = B.rows;
  plan.a_cols_ = A.global_cols();
  plan.b_cols_ = B.global_cols();
  plan.a_nnz_ = static_cast<std::int64_t>(A.local.nnz());
  plan.b_nnz_ = static_cast<std::int64_t>(B.local.nnz());
  auto clock = std::chrono::steady_clock::now();
  auto imported = detail::build_remote_rows<Scalar, Offset>(space, comm, A.local.graph.entries, B.rows,
                                                            B.local.graph.row_map, B.local.graph.entries,
                                                            B.global_cols(), who.c_str());
  plan.remote_ = imported.first;
  plan.a_local_entries_ = imported.second;
  plan.seconds_.import = detail::lap(clock);
  detail::gather_values(space, comm, plan.remote_, B.local.graph.row_map, B.local.values);
  plan.seconds_.value_exchange = detail::lap(clock);

  Kokkos::View<Scalar*, typename Plan::memory_space> values;
  detail::all_or_none(comm, who.c_str(), [&] {
    plan.digest_ = detail::structure_digest(space, A.local, B.local);
    // Symbolic, then numeric: the plan must serve numeric-only repeats, which
    // the one-shot path's plan (it writes values while counting) does not.
    const char* local_who = "gustav::distributed::multiply (local product)";
    const auto a = detail::local_a<ExecSpace>(plan, A.local);
    const auto b = detail::local_b(plan);
    plan.local_ = gustav::detail::symbolic_for(space, a, b, options, local_who, false);
    space.fence();
    plan.seconds_.local_symbolic = detail::lap(clock);
    values = gustav::detail::allocate_view<decltype(values)>(space, "gustav::distributed::C::values",
                                                             static_cast<std::size_t>(plan.local_.nnz()), false);
    gustav::detail::numeric_for(space, plan.local_, a, b, values, local_who, true);
    space.fence();
    plan.seconds_.local_numeric = detail::lap(clock);
    detail::map_columns_back(space, plan);
    space.fence();
  });

  const auto& rr = plan.remote_;
  auto& stats = plan.comm_stats_;
  stats.rows_imported = rr.num_rows() - (rr.own_end - rr.own_first);
  stats.rows_served = static_cast<std::int64_t>(rr.served_rows.extent(0));
  stats.symbolic_bytes_sent = stats.rows_imported * static_cast<std::int64_t>(sizeof(typename Plan::ordinal_type)) +
                              stats.rows_served * static_cast<std::int64_t>(sizeof(std::int64_t)) +
                              rr.values_sent() * static_cast<std::int64_t>(sizeof(typename Plan::ordinal_type));
  stats.numeric_bytes_sent = rr.values_sent() * static_cast<std::int64_t>(sizeof(Scalar));

  DistributedMatrix<Matrix> C;
  C.comm = comm;
  C.rows = A.rows;
  C.local = Matrix("gustav::distributed::C", static_cast<typename Plan::ordinal_type>(A.local.numRows()),
                   static_cast<typename Plan::ordinal_type>(B.global_cols()),
                   static_cast<Offset>(plan.local_.nnz()), values, plan.local_.row_map(), plan.c_entries_);
  return DistributedProduct<Plan, Matrix>{plan, C};
}

/// Numeric-only repeat: C's values for new values of A and B of the
/// structure the plan was made for (checked on every rank: shapes, nnz and
/// a fingerprint of the blocks' structure; a difference anywhere raises
/// gustav::plan_mismatch on every rank). Moves only B's values, along the
/// plan. C must be the product multiply returned (its blocks' values are
/// overwritten). Collective over the plan's communicator.
template <class ExecSpace, class Matrix, class MA, class MB, class MC>
void numeric(const ExecSpace& space, ProductPlan<ExecSpace, Matrix>& plan, const DistributedMatrix<MA>& A,
             const DistributedMatrix<MB>& B, DistributedMatrix<MC>& C) {
  const std::string who = "gustav::distributed::numeric";
  MPI_Comm comm = plan.comm_;
  detail::all_or_none(comm, who.c_str(), [&] {
    auto mismatch = [&](const std::string& what) { throw plan_mismatch(what); };
    if (A.rows != plan.a_rows_ || B.rows != plan.b_rows_) mismatch("A or B is distributed unlike the plan's");
    if (A.global_cols() != plan.a_cols_ || B.global_cols() != plan.b_cols_)
      mismatch("A or B has other global columns than the plan's");
    if (static_cast<std::int64_t>(A.local.nnz()) != plan.a_nnz_ || static_cast<std::int64_t>(B.local.nnz()) != plan.b_nnz_)
      mismatch("A's or B's block has another nnz than the plan's");
    if (static_cast<std::int64_t>(C.local.values.extent(0)) != plan.local_nnz() ||
        static_cast<std::int64_t>(C.local.numRows()) != plan.a_rows_.count(detail::comm_rank(comm)))
      mismatch("C's block does not have the plan's shape and nnz");
    if (detail::structure_digest(space, A.local, B.local) != plan.digest_)
      mismatch("A's or B's block has another structure than the plan's");
  });
  auto clock = std::chrono::steady_clock::now();
  detail::gather_values(space, comm, plan.remote_, B.local.graph.row_map, B.local.values);
  plan.seconds_.value_exchange = detail::lap(clock);
  detail::all_or_none(comm, who.c_str(), [&] {
    gustav::detail::numeric_for(space, plan.local_, detail::local_a<ExecSpace>(plan, A.local), detail::local_b(plan),
                                C.local.values, "gustav::distributed::numeric (local product)", true);
    space.fence();
    plan.seconds_.local_numeric = detail::lap(clock);
  });
}

}  // namespace gustav::distributed
