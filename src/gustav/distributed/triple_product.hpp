#pragma once
/// Ac = R * A * P over row-distributed matrices, as two distributed
/// products: AP = A * P (importing P's rows), then Ac = R * AP (importing
/// AP's rows). The plan keeps both products' plans and AP, so a
/// numeric-only repeat moves values only and allocates nothing of size.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <string>

#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/distributed/distributed_product.hpp"
#include "gustav/distributed/distributed_transpose.hpp"
#include "gustav/options.hpp"

namespace gustav::distributed {

template <class ExecSpace, class Matrix>
struct TripleProductPlan {
  ProductPlan<ExecSpace, Matrix> ap;   ///< A * P
  ProductPlan<ExecSpace, Matrix> rap;  ///< R * AP
  DistributedMatrix<Matrix> AP;        ///< AP's values from the latest call
};

template <class Plan, class Matrix>
struct DistributedTripleProduct {
  Plan plan;
  DistributedMatrix<Matrix> Ac;
};

template <class Plan, class Matrix>
struct DistributedGalerkinProduct {
  DistributedMatrix<Matrix> R;  ///< P^T, to pass to triple_product_numeric
  Plan plan;
  DistributedMatrix<Matrix> Ac;
};

/// Ac = R * A * P: R's global columns are A's rows, A's columns P's rows;
/// Ac is distributed as R. Collective; errors as for multiply, naming the
/// product ("A * P" or "R * AP").
template <class ExecSpace, class Matrix>
DistributedTripleProduct<TripleProductPlan<ExecSpace, detail::Plain<Matrix>>, detail::Plain<Matrix>> triple_product(
    const ExecSpace& space, const DistributedMatrix<Matrix>& R, const DistributedMatrix<Matrix>& A,
    const DistributedMatrix<Matrix>& P, const SpgemmOptions& options = {}) {
  auto ap = multiply(space, A, P, options);
  auto rap = multiply(space, R, ap.C, options);
  return {{ap.plan, rap.plan, ap.C}, rap.C};
}

/// Ac for new values of R, A and P of the plan's structures: both numeric
/// phases, moving P's and AP's values only. Collective.
template <class ExecSpace, class Plain, class Matrix>
void triple_product_numeric(const ExecSpace& space, TripleProductPlan<ExecSpace, Plain>& plan,
                            const DistributedMatrix<Matrix>& R, const DistributedMatrix<Matrix>& A,
                            const DistributedMatrix<Matrix>& P, DistributedMatrix<Plain>& Ac) {
  numeric(space, plan.ap, A, P, plan.AP);
  numeric(space, plan.rap, R, plan.AP, Ac);
}

/// The Galerkin product Ac = P^T * A * P: P^T formed by transpose (its
/// rows, Ac's rows, distributed by `coarse_rows`, even blocks by default),
/// then triple_product. A must be square. Collective.
template <class ExecSpace, class Matrix>
auto galerkin_product(const ExecSpace& space, const DistributedMatrix<Matrix>& A, const DistributedMatrix<Matrix>& P,
                      const SpgemmOptions& options = {}, RowBlocks coarse_rows = RowBlocks()) {
  detail::fail_together(A.comm, A.global_rows() != A.global_cols(), detail::ErrorKind::invalid_input,
                        "gustav::distributed::galerkin_product: A is " + std::to_string(A.global_rows()) + " x " +
                            std::to_string(A.global_cols()) + ", not square");
  auto R = transpose(space, P, coarse_rows);
  auto t = triple_product(space, R, A, P, options);
  using Plain = detail::Plain<Matrix>;
  return DistributedGalerkinProduct<TripleProductPlan<ExecSpace, Plain>, Plain>{R, t.plan, t.Ac};
}

}  // namespace gustav::distributed
