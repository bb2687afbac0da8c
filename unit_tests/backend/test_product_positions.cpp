// Plans that keep their products (SpgemmOptions::keep_product_positions) in
// lists: numeric repeats from the kept lists in every bin and give the same bits, a
// changed structure is caught, the lists' memory reported and held to a
// memory budget.
#include <algorithm>
#include <string>
#include <vector>

#include "gustav/spgemm/product_positions.hpp"
#include "support/kept_products_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class ProductPositions : public KeptProductsTest<C> {
 protected:
  using typename KeptProductsTest<C>::Host;
  using typename KeptProductsTest<C>::S;
  using typename KeptProductsTest<C>::O;
  using typename KeptProductsTest<C>::Z;

  /// In lists, whatever the products (slots: test_kept_slots.cpp).
  static SpgemmOptions keeping() { return KeptProductsTest<C>::keeping(KeptLayout::lists); }

  /// Rows of A from 1 to 30000 entries (with a repeated column each) over
  /// a B of about two entries per row: tiny, worker, team and long rows.
  void rows_of_every_bin(Host& A, Host& B) {
    Rng rng(90);
    const std::int64_t inner = 40000, cols = 60000;
    A.num_rows = 0;
    A.num_cols = static_cast<O>(inner);
    A.row_map.assign(1, 0);
    for (const std::int64_t len : {1, 2, 3, 5, 8, 13, 40, 120, 250, 320, 400, 1300, 3000, 9000, 30000}) {
      for (std::int64_t t = 0; t < len; ++t) {
        A.entries.push_back(static_cast<O>(rng.below(inner)));
        A.values.push_back(random_value<S>(rng));
      }
      A.entries.push_back(A.entries.back());  // a duplicate: its products add up
      A.values.push_back(random_value<S>(rng));
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
      A.num_rows += 1;
    }
    RandomShape shape;
    shape.rows = inner;
    shape.cols = cols;
    shape.avg_per_row = 2;
    shape.sorted = false;
    B = random_csr<S, O, Z>(shape, 91);
  }
};
TYPED_TEST_SUITE(ProductPositions, AllConfigs, ConfigNames);

TYPED_TEST(ProductPositions, RepeatsMatchTheReferenceInEveryBin) {
  typename TestFixture::Host A, B;
  this->rows_of_every_bin(A, B);
  const auto options = TestFixture::keeping();
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), options);
  EXPECT_GT(plan.stats().positions_bytes, 0u);
  EXPECT_GE(plan.stats().symbolic_peak_temp_bytes, plan.stats().positions_bytes);
  std::vector<std::string> levels;
  std::string bins;
  for (const auto& bin : plan.stats().numeric_bins) {
    if (bin.rows > 0) levels.push_back(bin.name.substr(0, bin.name.find('/')));
    bins += " " + bin.name + ":" + std::to_string(bin.rows);
  }
  for (const char* level : {"tiny", "worker", "team", "long"})
    EXPECT_NE(std::find(levels.begin(), levels.end(), level), levels.end()) << "no " << level << " row in" << bins;

  auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
  EXPECT_TRUE(this->matches(C, A, B)) << "first numeric";
  EXPECT_GE(plan.stats().numeric_peak_temp_bytes, plan.stats().positions_bytes);
  for (std::uint64_t round = 0; round < 2; ++round) {
    const auto A2 = with_new_values(A, 92 + round);
    const auto B2 = with_new_values(B, 94 + round);
    TestFixture::Run::refill(plan, this->device(A2), this->device(B2), C);
    EXPECT_TRUE(this->matches(C, A2, B2)) << "round " << round;
  }
}

TYPED_TEST(ProductPositions, RepeatsGiveTheSameBits) {
  // Each entry's sum runs in the order symbolic fixed, whatever the threads.
  RandomShape shape;
  shape.long_row = 3;  // a hub row: entries of C with many products each
  shape.long_row_length = 1500;
  const auto A = this->random(2000, 2000, 16, 108, shape);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::keeping());
  ASSERT_GT(plan.stats().positions_bytes, 0u);
  auto first = TestFixture::Run::numeric(plan, this->device(A), this->device(A));
  auto again = TestFixture::Run::numeric(plan, this->device(A), this->device(A));
  this->space.fence();
  const auto h1 = to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(first);
  const auto h2 = to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(again);
  ASSERT_EQ(h1.values.size(), h2.values.size());
  EXPECT_TRUE(h1.values == h2.values) << "two numeric calls on one plan differ";
  EXPECT_TRUE(this->matches(first, A, A));
}

TYPED_TEST(ProductPositions, HubEntriesWithLongListsMatchTheReference) {
  // A: a full first row and the diagonal; B: a full first column and the
  // diagonal. Entry (0, 0) of A * B has n products, the rest of row 0 two
  // each, every other row one or two: lists of every length, the longest
  // far above a warp's, with C kept small (about 3n entries).
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  for (const std::int64_t n : {40, 700, 5000, 20000}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    typename TestFixture::Host A, B;
    Rng rng(109 + static_cast<std::uint64_t>(n));
    for (auto* m : {&A, &B}) {
      m->num_rows = static_cast<O>(n);
      m->num_cols = static_cast<O>(n);
      m->row_map.assign(1, 0);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == 0) {
        for (std::int64_t j = 0; j < n; ++j) A.entries.push_back(static_cast<O>(j));
        B.entries.push_back(0);
      } else {
        A.entries.push_back(static_cast<O>(i));
        B.entries.push_back(0);
        B.entries.push_back(static_cast<O>(i));
      }
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
      B.row_map.push_back(static_cast<Z>(B.entries.size()));
    }
    for (auto* m : {&A, &B})
      for (std::size_t k = 0; k < m->entries.size(); ++k) m->values.push_back(random_value<typename TestFixture::S>(rng));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
    EXPECT_GT(plan.stats().positions_bytes, 0u);
    auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
    EXPECT_TRUE(this->matches(C, A, B));
    const auto A2 = with_new_values(A, 110);
    const auto B2 = with_new_values(B, 111);
    TestFixture::Run::refill(plan, this->device(A2), this->device(B2), C);
    EXPECT_TRUE(this->matches(C, A2, B2));
  }
}

TYPED_TEST(ProductPositions, EntriesWithManyProductsEachMatchTheReference) {
  // Half-full operands over a short inner dimension: every entry of C has
  // about inner / 4 products (4, 8, 20, 50 on average): at 4, lists summed
  // whole by one thread each and, past 32 products, in pieces by groups of
  // lanes; from 8, in chunks of products, many lists crossing a chunk's end;
  // values change between calls and the bits repeat.
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  for (const std::int64_t inner : {16, 32, 80, 200}) {
    SCOPED_TRACE("inner dimension " + std::to_string(inner));
    const double half = static_cast<double>(inner) / 2;
    const auto A = this->random(400, inner, half, 120 + static_cast<std::uint64_t>(inner));
    const auto B = this->random(inner, 300, half, 121 + static_cast<std::uint64_t>(inner));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
    ASSERT_GT(plan.stats().positions_bytes, 0u);
    auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
    EXPECT_TRUE(this->matches(C, A, B));
    const auto A2 = with_new_values(A, 122);
    const auto B2 = with_new_values(B, 123);
    TestFixture::Run::refill(plan, this->device(A2), this->device(B2), C);
    EXPECT_TRUE(this->matches(C, A2, B2)) << "after new values";
    const auto first = to_host_csr<S, O, Z>(C);
    TestFixture::Run::refill(plan, this->device(A2), this->device(B2), C);
    this->space.fence();
    const auto again = to_host_csr<S, O, Z>(C);
    EXPECT_TRUE(first.values == again.values) << "two calls with the same values differ";
  }
}

TYPED_TEST(ProductPositions, ListsAcrossChunkEndsMatchTheReference) {
  // A: three rows over an inner dimension of k (all k columns, the first
  // k / 2, column 0); B: k x 2 (column 0 full, column 1 every other row).
  // C's six entries have k, k / 2, k / 2, k / 4, 1 and 1 products: long
  // lists on average (summed in chunks), laid out from product 0, so at
  // k = chunk the first list fills the first chunk exactly, at chunk + 1 it
  // spills one product into the next, and at 2 chunk + 1 and 5000 lists
  // cross two chunk ends or cover a whole chunk.
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  using Device = Kokkos::Device<TestSpace, typename TestSpace::memory_space>;
  constexpr std::int64_t chunk = detail::ProductPositions<Device>::chunk_products;
  for (const std::int64_t k : {chunk, chunk + 1, 2 * chunk + 1, std::int64_t(5000)}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    typename TestFixture::Host A, B;
    Rng rng(130 + static_cast<std::uint64_t>(k));
    A.num_rows = 3;
    A.num_cols = static_cast<O>(k);
    A.row_map.assign(1, 0);
    for (const std::int64_t length : {k, k / 2, std::int64_t(1)}) {
      for (std::int64_t j = 0; j < length; ++j) A.entries.push_back(static_cast<O>(j));
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
    }
    B.num_rows = static_cast<O>(k);
    B.num_cols = 2;
    B.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < k; ++i) {
      B.entries.push_back(0);
      if (i % 2 == 0) B.entries.push_back(1);
      B.row_map.push_back(static_cast<Z>(B.entries.size()));
    }
    for (auto* m : {&A, &B})
      for (std::size_t t = 0; t < m->entries.size(); ++t) m->values.push_back(random_value<typename TestFixture::S>(rng));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
    ASSERT_GT(plan.stats().positions_bytes, 0u);
    auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
    EXPECT_TRUE(this->matches(C, A, B));
    const auto A2 = with_new_values(A, 131);
    const auto B2 = with_new_values(B, 132);
    TestFixture::Run::refill(plan, this->device(A2), this->device(B2), C);
    EXPECT_TRUE(this->matches(C, A2, B2)) << "after new values";
  }
}

TYPED_TEST(ProductPositions, EveryOfManyRepeatsMatchesTheReference) {
  // Long lists summed in pieces, and lists crossing a chunk's end, go
  // through partial sums that the plan holds between calls: each call must
  // make them afresh, whatever the last one left. H * H^T with a hub row in
  // H (entry (3, 3) has 1500 products: pieces; the others short lists), and
  // a half-full product of about 12 products an entry (chunks), each
  // repeated five times with new values.
  RandomShape hub;
  hub.long_row = 3;
  hub.long_row_length = 1500;
  const auto H = this->random(2000, 2000, 4, 140, hub);
  const auto Ht = reference_transpose(H);
  const auto D = this->random(300, 100, 50, 141);
  const auto E = this->random(100, 200, 50, 142);
  for (const bool chunked : {false, true}) {
    SCOPED_TRACE(chunked ? "chunks" : "lists and pieces");
    const auto& A = chunked ? D : H;
    const auto& B = chunked ? E : Ht;
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
    ASSERT_GT(plan.stats().positions_bytes, 0u);
    auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
    EXPECT_TRUE(this->matches(C, A, B));
    for (std::uint64_t round = 0; round < 5; ++round) {
      const auto A2 = with_new_values(A, 143 + 2 * round);
      const auto B2 = with_new_values(B, 144 + 2 * round);
      TestFixture::Run::refill(plan, this->device(A2), this->device(B2), C);
      EXPECT_TRUE(this->matches(C, A2, B2)) << "round " << round;
    }
  }
}

TYPED_TEST(ProductPositions, RandomProductsMatchTheReference) {
  for (const double avg : {3.0, 12.0, 40.0}) {
    SCOPED_TRACE("mean row length " + std::to_string(avg));
    RandomShape shape;
    shape.duplicates = true;
    const auto A = this->random(500, 300, avg, 96, shape);
    const auto B = this->random(300, 700, avg, 97, shape);
    EXPECT_TRUE(this->plan_matches(A, B, TestFixture::keeping()));
  }
  // Empty operands and a rectangular product with empty rows.
  RandomShape sparse;
  sparse.empty_rows = 0.5;
  EXPECT_TRUE(this->plan_matches(this->random(0, 40, 3, 98), this->random(40, 30, 3, 99), TestFixture::keeping()));
  EXPECT_TRUE(this->plan_matches(this->random(80, 40, 6, 100, sparse), this->random(40, 3, 2, 101),
                                 TestFixture::keeping()));
}

TYPED_TEST(ProductPositions, AMovedProductIsCaughtEvenWithinTheStructure) {
  // Swapping two columns within one row of B keeps every product inside
  // C's planned structure, but no longer at its recorded place.
  const auto A = this->random(150, 150, 20, 102);
  const auto B = this->random(150, 150, 20, 103);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
  EXPECT_NO_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(B)));
  const std::size_t r = this->first_row_of_two(B);
  const auto moved = this->with_two_swapped(B, r);
  bool referenced = false;
  for (const auto k : A.entries) referenced = referenced || static_cast<std::size_t>(k) == r;
  ASSERT_TRUE(referenced) << "row " << r << " of B takes part in no product";
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(moved)), gustav::plan_mismatch);
  // The structure's fingerprint is checked even with the input checks off.
  auto unchecked = TestFixture::keeping();
  unchecked.validate_indices = false;
  const auto lax = TestFixture::Run::symbolic(this->device(A), this->device(B), unchecked);
  EXPECT_THROW(TestFixture::Run::numeric(lax, this->device(A), this->device(moved)), gustav::plan_mismatch);
  // So is A's: two entries of a row swapped keep its products, not their order.
  const auto swapped = this->with_two_swapped(A, this->first_row_of_two(A));
  EXPECT_THROW(TestFixture::Run::numeric(lax, this->device(swapped), this->device(B)), gustav::plan_mismatch);
}

TYPED_TEST(ProductPositions, BTheSameArraysAsAOrACopyOfThemIsOneStructure) {
  // A * A may be given B as A's own arrays or as a copy of them: a plan
  // made either way serves the other.
  const auto A = this->random(400, 400, 9, 112);
  const auto dA = this->device(A);
  const auto copy = this->device(A);
  const auto aliased = TestFixture::Run::symbolic(dA, dA, TestFixture::keeping());
  ASSERT_GT(aliased.stats().positions_bytes, 0u);
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(aliased, dA, copy), A, A));
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(aliased, dA, dA), A, A));
  const auto copied = TestFixture::Run::symbolic(dA, copy, TestFixture::keeping());
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(copied, dA, dA), A, A));
  // Both structures the same shape and size but different: swapping the
  // operands is caught, as is giving either one twice.
  const auto B = this->with_two_swapped(A, this->first_row_of_two(A));
  const auto dB = this->device(B);
  const auto plan = TestFixture::Run::symbolic(dA, dB, TestFixture::keeping());
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(plan, dA, dB), A, B));
  EXPECT_THROW(TestFixture::Run::numeric(plan, dB, dA), gustav::plan_mismatch);
  EXPECT_THROW(TestFixture::Run::numeric(plan, dA, dA), gustav::plan_mismatch);
  EXPECT_THROW(TestFixture::Run::numeric(plan, dB, dB), gustav::plan_mismatch);
  EXPECT_THROW(TestFixture::Run::numeric(aliased, dA, dB), gustav::plan_mismatch);
}

TYPED_TEST(ProductPositions, CallsAfterACaughtChangeCheckAgain) {
  // The check's last team clears its count of teams for the next call and
  // sets or clears the flag itself: calls on the right and on a changed
  // structure, in turn and repeated, each get their own verdict.
  const auto A = this->random(3000, 2500, 12, 110);
  const auto B = this->random(2500, 2800, 9, 111);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
  auto shifted = B;
  for (auto& c : shifted.entries) c = static_cast<typename TestFixture::O>((c + 1) % 2800);
  const auto dA = this->device(A);
  const auto dB = this->device(B);
  const auto dShifted = this->device(shifted);
  for (int round = 0; round < 3; ++round) {
    EXPECT_THROW(TestFixture::Run::numeric(plan, dA, dShifted), gustav::plan_mismatch) << "round " << round;
    EXPECT_TRUE(this->matches(TestFixture::Run::numeric(plan, dA, dB), A, B)) << "round " << round;
    EXPECT_TRUE(this->matches(TestFixture::Run::numeric(plan, dA, dB), A, B)) << "round " << round;
  }
}

TYPED_TEST(ProductPositions, AProductOutsideTheStructureIsCaught) {
  const auto A = this->random(120, 100, 15, 104);
  const auto B = this->random(100, 90, 15, 105);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::keeping());
  auto shifted = B;
  for (auto& c : shifted.entries) c = static_cast<typename TestFixture::O>((c + 1) % 90);
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(shifted)), gustav::plan_mismatch);
}

TYPED_TEST(ProductPositions, PositionsStayWithinTheMemoryBudget) {
  const auto A = this->random(3000, 3000, 12, 106);
  const auto dA = this->device(A);
  auto options = TestFixture::keeping();
  auto without = options;
  without.keep_product_positions = false;
  const auto plain = TestFixture::Run::symbolic(dA, dA, without);
  const auto kept = TestFixture::Run::symbolic(dA, dA, options);
  ASSERT_GT(kept.stats().positions_bytes, 0u);
  options.memory_budget_bytes = plain.stats().symbolic_peak_temp_bytes + kept.stats().positions_bytes / 2;
  try {
    TestFixture::Run::symbolic(dA, dA, options);
    ADD_FAILURE() << "a budget below the positions' bytes was accepted";
  } catch (const gustav::allocation_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
  }
}

TYPED_TEST(ProductPositions, NoneKeptUnlessAsked) {
  const auto A = this->random(400, 400, 10, 107);
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  EXPECT_EQ(TestFixture::Run::symbolic(this->device(A), this->device(A), options).stats().positions_bytes, 0u);
  if (test_space_is_host) {
    // The thread-per-row mapping ignores the option.
    SpgemmOptions per_row;
    per_row.keep_product_positions = true;
    EXPECT_EQ(TestFixture::Run::symbolic(this->device(A), this->device(A), per_row).stats().positions_bytes, 0u);
  }
}

}  // namespace
}  // namespace gustav::test
