// The distributed transpose and Galerkin product P^T * A * P against the
// serial reference, and their numeric-only repeat.
#include "distributed_support.hpp"

namespace gustav::test {
namespace {

namespace gd = gustav::distributed;

struct Hierarchy {
  Whole A, P, R;
};

Hierarchy laplace_level(std::int64_t n) {
  Hierarchy h;
  h.A = generators::laplace3d(n, 7);
  h.P = generators::jacobi_smoothed_prolongator(h.A, generators::tentative_prolongator(n, 3, 2, 1));
  h.R = generators::transpose(h.P);
  return h;
}

TEST(DistributedTranspose, MatchesReferenceOnUnevenBlocks) {
  const auto P = generators::erdos_renyi(120, 45, 3.0, 8);
  auto R = gd::transpose(DistSpace(), spread(P, uneven_blocks(120)));
  expect_block_of(R, generators::transpose(P));
  auto R2 = gd::transpose(DistSpace(), spread_evenly(P), uneven_blocks(45));
  expect_block_of(R2, generators::transpose(P));
}

TEST(DistributedGalerkin, MatchesReference) {
  const auto h = laplace_level(10);
  auto g = gd::galerkin_product(DistSpace(), spread_evenly(h.A), spread(h.P, uneven_blocks(h.P.num_rows)));
  expect_block_of(g.R, h.R);
  expect_block_of(g.Ac, generators::multiply(h.R, generators::multiply(h.A, h.P)));
}

TEST(DistributedGalerkin, ReuseAfterValueChangeMatchesReference) {
  const auto h = laplace_level(9);
  const auto P = spread_evenly(h.P);
  auto g = gd::galerkin_product(DistSpace(), spread_evenly(h.A), P);
  const auto A2 = with_new_values(h.A);
  gd::triple_product_numeric(DistSpace(), g.plan, g.R, spread_evenly(A2), P, g.Ac);
  expect_block_of(g.Ac, generators::multiply(h.R, generators::multiply(A2, h.P)));
}

TEST(DistributedTripleProduct, RectangularRestrictionMatchesReference) {
  const auto A = generators::erdos_renyi(90, 90, 4.0, 31);
  const auto P = generators::erdos_renyi(90, 30, 2.0, 32);
  const auto R = generators::erdos_renyi(20, 90, 3.0, 33);
  auto t = gd::triple_product(DistSpace(), spread(R, uneven_blocks(20)), spread_evenly(A), spread(P, uneven_blocks(90)));
  expect_block_of(t.Ac, generators::multiply(R, generators::multiply(A, P)));
}

}  // namespace
}  // namespace gustav::test
