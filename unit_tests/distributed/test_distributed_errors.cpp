// Bad input ends every rank with the same exception and message, and
// never leaves one rank waiting for the others.
#include "distributed_support.hpp"

namespace gustav::test {
namespace {

namespace gd = gustav::distributed;

TEST(DistributedErrors, MismatchedShapesThrowEverywhere) {
  const auto A = generators::erdos_renyi(30, 20, 2.0, 1);
  const auto B = generators::erdos_renyi(25, 20, 2.0, 2);
  const auto message = expect_throw<invalid_input>(
      [&] { gd::multiply(DistSpace(), spread_evenly(A), spread_evenly(B)); }, "A has 20 columns but B has 25 rows");
  expect_same_on_every_rank(message);
}

TEST(DistributedErrors, RanksDisagreeingOnColumnsThrowEverywhere) {
  // Rank 0's block claims one more column than the others'.
  const auto A = generators::erdos_renyi(30, 20, 2.0, 1);
  auto dA = spread_evenly(A);
  if (world_rank() == 0)
    dA.local = DistMatrix("A", dA.local.numRows(), dA.local.numCols() + (world_size() > 1 ? 1 : 0), dA.local.nnz(),
                          dA.local.values, dA.local.graph.row_map, dA.local.graph.entries);
  const auto B = generators::erdos_renyi(20, 20, 2.0, 2);
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const auto message = expect_throw<invalid_input>([&] { gd::multiply(DistSpace(), dA, spread_evenly(B)); },
                                                   "ranks disagree on A's global column count");
  expect_same_on_every_rank(message);
}

TEST(DistributedErrors, RanksDisagreeingOnTheDistributionThrowEverywhere) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const auto A = generators::erdos_renyi(30, 30, 2.0, 1);
  auto dA = spread_evenly(A);
  if (world_rank() == 1) dA.rows = gd::RowBlocks::even(31, world_size());
  const auto message = expect_throw<invalid_input>([&] { gd::multiply(DistSpace(), dA, spread_evenly(A)); },
                                                   "ranks disagree on A's row distribution");
  expect_same_on_every_rank(message);
}

TEST(DistributedErrors, MalformedBlockOnOneRankThrowsEverywhere) {
  // The last rank's block holds a column index beyond the global columns.
  const auto A = generators::erdos_renyi(40, 40, 3.0, 4);
  auto dA = spread_evenly(A);
  const int last = world_size() - 1;
  if (world_rank() == last && dA.local.nnz() > 0) Kokkos::deep_copy(Kokkos::subview(dA.local.graph.entries, 0), 40);
  const auto message = expect_throw<invalid_input>([&] { gd::multiply(DistSpace(), dA, spread_evenly(A)); },
                                                   "A has column index 40");
  EXPECT_NE(message.find("(on rank " + std::to_string(last) + ")"), std::string::npos) << message;
  expect_same_on_every_rank(message);
}

TEST(DistributedErrors, BlockOfTheWrongRowCountThrowsEverywhere) {
  const auto A = generators::erdos_renyi(40, 40, 3.0, 4);
  auto dA = spread_evenly(A);
  dA.rows = gd::RowBlocks::even(40, world_size());
  if (world_size() > 1) {
    auto s = dA.rows.starts();
    s[1] += 1;  // every rank agrees, but rank 0's block is one row short of it
    dA.rows = gd::RowBlocks(s);
  } else {
    dA.rows = gd::RowBlocks({0, 41});
  }
  const auto message =
      expect_throw<invalid_input>([&] { gd::multiply(DistSpace(), dA, spread_evenly(A)); }, "rows where its row distribution");
  expect_same_on_every_rank(message);
}

TEST(DistributedErrors, NumericWithAnotherStructureThrowsEverywhere) {
  const auto A = generators::erdos_renyi(50, 50, 3.0, 6);
  auto product = gd::multiply(DistSpace(), spread_evenly(A), spread_evenly(A));
  // Same nnz on every rank, but rank 0's block has one column moved.
  auto moved = A;
  const auto blocks = gd::RowBlocks::even(50, world_size());
  const auto p0 = moved.row_map[blocks.end(0)] - 1;  // rank 0's last entry
  if (p0 >= 0) moved.entries[p0] = (moved.entries[p0] + 1) % 50;
  const auto message = expect_throw<plan_mismatch>(
      [&] { gd::numeric(DistSpace(), product.plan, spread_evenly(moved), spread_evenly(A), product.C); },
      "another structure than the plan's (on rank 0)");
  expect_same_on_every_rank(message);
}

TEST(DistributedErrors, UsableAfterAnError) {
  const auto A = generators::erdos_renyi(30, 20, 2.0, 1);
  EXPECT_THROW(gd::multiply(DistSpace(), spread_evenly(A), spread_evenly(A)), invalid_input);
  const auto B = generators::erdos_renyi(20, 10, 2.0, 2);
  auto product = gd::multiply(DistSpace(), spread_evenly(A), spread_evenly(B));
  expect_block_of(product.C, generators::multiply(A, B));
}

}  // namespace
}  // namespace gustav::test
