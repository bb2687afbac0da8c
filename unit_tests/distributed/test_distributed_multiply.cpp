// C = A * B on row-distributed matrices against the serial reference
// product, on whatever number of ranks the test runs with (ctest runs 1,
// 2, 3 and 4).
#include "distributed_support.hpp"

namespace gustav::test {
namespace {

namespace gd = gustav::distributed;

TEST(DistributedMultiply, LaplacianSquaredMatchesReference) {
  const auto A = generators::laplace3d(9, 7);
  auto product = gd::multiply(DistSpace(), spread_evenly(A), spread_evenly(A));
  expect_block_of(product.C, generators::multiply(A, A));
}

TEST(DistributedMultiply, RectangularUnevenBlocksMatchReference) {
  const auto A = generators::erdos_renyi(300, 200, 3.0, 11);
  const auto B = generators::erdos_renyi(200, 150, 4.0, 12);
  auto product = gd::multiply(DistSpace(), spread(A, uneven_blocks(300)), spread_evenly(B));
  expect_block_of(product.C, generators::multiply(A, B));
}

TEST(DistributedMultiply, RanksOwningNoRowsOfAOrB) {
  const auto A = generators::erdos_renyi(40, 30, 2.0, 3);
  const auto B = generators::erdos_renyi(30, 50, 3.0, 4);
  // Everything on the last rank, for A and for B.
  std::vector<std::int64_t> a_starts(world_size() + 1, 0), b_starts(world_size() + 1, 0);
  a_starts.back() = 40;
  b_starts.back() = 30;
  auto product = gd::multiply(DistSpace(), spread(A, gd::RowBlocks(a_starts)), spread(B, gd::RowBlocks(b_starts)));
  expect_block_of(product.C, generators::multiply(A, B));
}

TEST(DistributedMultiply, WideBRenumbersColumnsAndMapsThemBack) {
  // B has far more columns than the rows A reaches: the import numbers
  // B_ext's columns locally and C's come back global, still sorted.
  const auto A = generators::erdos_renyi(60, 40, 2.0, 41);
  const auto B = generators::erdos_renyi(40, 1000, 3.0, 42);
  auto product = gd::multiply(DistSpace(), spread(A, uneven_blocks(60)), spread_evenly(B));
  expect_block_of(product.C, generators::multiply(A, B));
  const auto B2 = with_new_values(B);
  gd::numeric(DistSpace(), product.plan, spread(A, uneven_blocks(60)), spread_evenly(B2), product.C);
  expect_block_of(product.C, generators::multiply(A, B2));
}

TEST(DistributedMultiply, PowerLawRowsMatchReference) {
  generators::RmatParams p;
  p.scale = 9;
  p.edge_factor = 8;
  const auto A = generators::rmat(p);
  auto product = gd::multiply(DistSpace(), spread(A, uneven_blocks(A.num_rows)), spread_evenly(A));
  expect_block_of(product.C, generators::multiply(A, A));
}

TEST(DistributedMultiply, SixtyFourBitIndicesMatchReference) {
  const auto A = generators::laplace2d(20, 9);
  auto product = gd::multiply(DistSpace(), spread_evenly<WideMatrix>(A), spread_evenly<WideMatrix>(A));
  expect_block_of(product.C, generators::multiply(A, A));
}

TEST(DistributedMultiply, EmptyMatrices) {
  Whole empty;
  empty.num_rows = 0;
  empty.num_cols = 0;
  auto product = gd::multiply(DistSpace(), spread_evenly(empty), spread_evenly(empty));
  expect_block_of(product.C, empty);
  // Rows and columns but no entries.
  const auto zero = generators::erdos_renyi(25, 25, 0.0, 1);
  auto none = gd::multiply(DistSpace(), spread_evenly(zero), spread_evenly(zero));
  expect_block_of(none.C, generators::multiply(zero, zero));
}

TEST(DistributedMultiply, ReuseAfterValueChangeMatchesReference) {
  const auto A = generators::erdos_renyi(200, 200, 5.0, 21);
  const auto B = generators::laplace2d(10, 5);  // 100 rows
  const auto A2 = generators::erdos_renyi(200, 100, 5.0, 22);
  auto product = gd::multiply(DistSpace(), spread(A2, uneven_blocks(200)), spread_evenly(B));
  expect_block_of(product.C, generators::multiply(A2, B));
  gd::numeric(DistSpace(), product.plan, spread(A2, uneven_blocks(200)), spread_evenly(B), product.C);
  expect_block_of(product.C, generators::multiply(A2, B));
  const auto A3 = with_new_values(A2);
  const auto B3 = with_new_values(B);
  gd::numeric(DistSpace(), product.plan, spread(A3, uneven_blocks(200)), spread_evenly(B3), product.C);
  expect_block_of(product.C, generators::multiply(A3, B3));
  (void)A;
}

TEST(DistributedMultiply, NumericMovesOnlyValues) {
  const auto A = generators::laplace3d(8, 7);
  auto product = gd::multiply(DistSpace(), spread_evenly(A), spread_evenly(A));
  const auto& stats = product.plan.communication();
  const auto& remote = product.plan.remote_;
  // Each imported row's values arrive once per numeric phase: what the
  // ranks send in all is what they receive in all.
  std::int64_t mine[2] = {remote.values_sent(), remote.values_received()}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(all[0], all[1]);
  EXPECT_EQ(stats.numeric_bytes_sent, remote.values_sent() * std::int64_t(sizeof(double)));
  if (world_size() == 1) {
    EXPECT_EQ(stats.rows_imported, 0);
    EXPECT_EQ(stats.symbolic_bytes_sent, 0);
  } else {
    // A 7-point stencil in even blocks: every rank imports a plane of rows.
    EXPECT_GT(stats.rows_imported, 0);
  }
}

TEST(DistributedMultiply, GatherWholeReassemblesTheProduct) {
  const auto A = generators::erdos_renyi(60, 60, 4.0, 5);
  auto product = gd::multiply(DistSpace(), spread(A, uneven_blocks(60)), spread_evenly(A));
  const auto whole = gd::gather_whole<double, std::int64_t, std::int64_t>(product.C);
  if (world_rank() == 0) {
    const auto want = generators::multiply(A, A);
    EXPECT_EQ(whole.row_map, want.row_map);
    EXPECT_EQ(whole.entries, want.entries);
  } else {
    EXPECT_EQ(whole.nnz(), 0);
  }
}

TEST(DistributedRowBlocks, EvenBlocksAndOwners) {
  const auto b = gd::RowBlocks::even(10, 4);
  EXPECT_EQ(b.starts(), (std::vector<std::int64_t>{0, 3, 6, 8, 10}));
  EXPECT_EQ(b.owner(0), 0);
  EXPECT_EQ(b.owner(5), 1);
  EXPECT_EQ(b.owner(6), 2);
  EXPECT_EQ(b.owner(9), 3);
  // Empty blocks own nothing: row 0 belongs to the first non-empty one.
  const gd::RowBlocks gaps({0, 0, 0, 4});
  EXPECT_EQ(gaps.owner(0), 2);
  EXPECT_THROW(gd::RowBlocks({0, 5, 3}), invalid_input);
  EXPECT_THROW(gd::RowBlocks({1, 5}), invalid_input);
}

TEST(DistributedRowBlocks, GatherFormsBlocksFromLocalCounts) {
  const auto b = gd::RowBlocks::gather(MPI_COMM_WORLD, world_rank() + 1);
  EXPECT_EQ(b.ranks(), world_size());
  EXPECT_EQ(b.rows(), std::int64_t(world_size()) * (world_size() + 1) / 2);
  EXPECT_EQ(b.count(world_rank()), world_rank() + 1);
}

}  // namespace
}  // namespace gustav::test
