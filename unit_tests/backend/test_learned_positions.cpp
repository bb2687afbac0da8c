// Plans that learn their hash bins' product positions from the first
// numeric call (SpgemmOptions::learn_product_positions, on by default on
// the hierarchical mapping): symbolic keeps none, the first call sums by
// the tables and learns them, later calls sum from them and match the
// reference, copies of the plan share them, and the default contract
// holds: a structure whose products stay inside C's is summed (and the
// positions dropped), one whose products leave it raises plan_mismatch.
// The repeats add in scratch with atomics on GPUs (any order), so values
// are compared with the reference's tolerance, not to the bit.
#include <string>

#include "support/kept_products_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class LearnedPositions : public KeptProductsTest<C> {
 protected:
  using typename KeptProductsTest<C>::Host;
  using Run = UnderTest<C>;

  /// The hierarchical mapping (the GPUs'); masks off unless asked, so that
  /// positions take every hash bin.
  static SpgemmOptions hierarchical(bool positions = true, bool masks = false) {
    SpgemmOptions o;
    o.cpu_mapping = CpuMapping::hierarchical;
    o.learn_entry_masks = masks;
    o.learn_product_positions = positions;
    return o;
  }

  /// The first numeric call on `plan`, then two repeats with new values:
  /// each product against the reference.
  template <class Plan>
  void expect_sums_match(const Plan& plan, const Host& A, const Host& B, std::uint64_t seed) {
    auto product = Run::numeric(plan, this->device(A), this->device(B));
    EXPECT_TRUE(this->matches(product, A, B)) << "first numeric";
    for (std::uint64_t round = 0; round < 2; ++round) {
      const auto A2 = with_new_values(A, seed + 2 * round);
      const auto B2 = with_new_values(B, seed + 2 * round + 1);
      Run::refill(plan, this->device(A2), this->device(B2), product);
      EXPECT_TRUE(this->matches(product, A2, B2)) << "repeat " << round;
    }
  }
};
TYPED_TEST_SUITE(LearnedPositions, AllConfigs, ConfigNames);

TYPED_TEST(LearnedPositions, TheFirstNumericCallLearnsThemAndRepeatsMatch) {
  // Rows of C from a few entries to a few hundred (one-byte positions, the
  // worker bins), rectangular, empty rows, and a long row of A.
  RandomShape a_shape;
  a_shape.empty_rows = 0.2;
  a_shape.long_row = 7;
  a_shape.long_row_length = 120;
  const auto A = this->random(700, 500, 9, 610, a_shape);
  const auto B = this->random(500, 900, 9, 611);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  EXPECT_EQ(plan.stats().learned_positions_bytes, 0u) << "symbolic records nothing";
  this->expect_sums_match(plan, A, B, 612);
  EXPECT_GT(plan.stats().learned_positions_bytes, 0u);
  EXPECT_GE(plan.stats().numeric_peak_temp_bytes, plan.stats().learned_positions_bytes);
}

TYPED_TEST(LearnedPositions, RowsOfCPastTwoHundredFiftySixEntriesTakeTwoBytes) {
  // Rows of A of about 40 entries over rows of B of about 20: rows of C of
  // several hundred entries (the team bins' tables), and a few longer.
  RandomShape a_shape;
  a_shape.long_row = 3;
  a_shape.long_row_length = 300;
  const auto A = this->random(300, 2000, 40, 620, a_shape);
  const auto B = this->random(2000, 4000, 20, 621);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  this->expect_sums_match(plan, A, B, 622);
  EXPECT_GT(plan.stats().learned_positions_bytes, 0u);
}

TYPED_TEST(LearnedPositions, RowsOfFarMoreProductsThanAWorkerTakesAreSummedByATeam) {
  // Rows of B of about 40 entries over 600 columns, rows of A of about 6,
  // and one of 250 (some 10,000 products onto at most 600 columns of C):
  // more products than a worker's lanes take (bin_positions_long_row), so
  // a team learns and sums that row while workers take the others.
  RandomShape a_shape;
  a_shape.long_row = 11;
  a_shape.long_row_length = 250;
  const auto A = this->random(900, 300, 6, 625, a_shape);
  const auto B = this->random(300, 600, 40, 626);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  this->expect_sums_match(plan, A, B, 627);
  EXPECT_GT(plan.stats().learned_positions_bytes, 0u);
  EXPECT_GT(plan.stats().learned_positions_team_rows, 0);
}

TYPED_TEST(LearnedPositions, BesideLearnedMasks) {
  // Short rows of C (masks) beside a row past 128 entries (positions).
  RandomShape a_shape;
  a_shape.long_row = 5;
  a_shape.long_row_length = 40;
  const auto A = this->random(800, 400, 5, 630, a_shape);
  const auto B = this->random(400, 3000, 6, 631);
  const auto plan =
      TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical(true, true));
  this->expect_sums_match(plan, A, B, 632);
  EXPECT_GT(plan.stats().masks_bytes, 0u);
  EXPECT_GT(plan.stats().learned_positions_bytes, 0u);
}

TYPED_TEST(LearnedPositions, CopiesOfThePlanShareThem) {
  const auto A = this->random(400, 400, 12, 640);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical());
  const auto copy = plan;
  auto product = TestFixture::Run::numeric(plan, this->device(A), this->device(A));
  ASSERT_GT(plan.stats().learned_positions_bytes, 0u);
  const auto A2 = with_new_values(A, 641);
  TestFixture::Run::refill(copy, this->device(A2), this->device(A2), product);
  EXPECT_TRUE(this->matches(product, A2, A2));
  EXPECT_EQ(copy.stats().learned_positions_bytes, plan.stats().learned_positions_bytes);
}

TYPED_TEST(LearnedPositions, AChangedStructureKeepsTheDefaultContract) {
  // B wide enough that some column is out of reach of a row of B's users.
  const auto A = this->random(200, 150, 12, 650);
  const auto B = this->random(150, 3000, 12, 651);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  auto product = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
  ASSERT_GT(plan.stats().learned_positions_bytes, 0u);
  // Two columns of a row of B swapped: every product still inside C, but
  // not where the positions place it.
  const auto swapped = TestFixture::with_two_swapped(B, TestFixture::first_row_of_two(B));
  EXPECT_NO_THROW(TestFixture::Run::refill(plan, this->device(A), this->device(swapped), product));
  EXPECT_TRUE(this->matches(product, A, swapped));
  EXPECT_EQ(plan.stats().learned_positions_bytes, 0u) << "the positions are dropped";
  const auto outside = TestFixture::with_a_product_outside(A, B);
  EXPECT_THROW(TestFixture::Run::refill(plan, this->device(A), this->device(outside), product),
               gustav::plan_mismatch);
  const auto A2 = with_new_values(A, 652);
  TestFixture::Run::refill(plan, this->device(A2), this->device(B), product);
  EXPECT_TRUE(this->matches(product, A2, B));
  EXPECT_EQ(plan.stats().learned_positions_bytes, 0u);
}

TYPED_TEST(LearnedPositions, AProductOutsideCInTheFirstCallIsRefusedAndNothingLearned) {
  const auto A = this->random(150, 150, 10, 660);
  const auto B = this->random(150, 3000, 10, 661);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(TestFixture::with_a_product_outside(A, B))),
               gustav::plan_mismatch);
  EXPECT_EQ(plan.stats().learned_positions_bytes, 0u);
  this->expect_sums_match(plan, A, B, 662);
  EXPECT_EQ(plan.stats().learned_positions_bytes, 0u) << "a plan that refused does not learn later";
}

TYPED_TEST(LearnedPositions, NotLearnedWhereOff) {
  const auto A = this->random(300, 200, 10, 670);
  const auto B = this->random(200, 300, 10, 671);
  const auto off = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical(false));
  this->expect_sums_match(off, A, B, 672);
  EXPECT_EQ(off.stats().learned_positions_bytes, 0u);
}

TYPED_TEST(LearnedPositions, ABudgetTooSmallForThemLearnsNothing) {
  const auto A = this->random(2000, 2000, 12, 680);
  const auto learning = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical());
  TestFixture::Run::numeric(learning, this->device(A), this->device(A));
  ASSERT_GT(learning.stats().learned_positions_bytes, 0u);
  const auto plain = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical(false));
  TestFixture::Run::numeric(plain, this->device(A), this->device(A));
  // Room for the default call's temporaries and a little of the positions
  // (set after gustav::symbolic, whose own temporaries may need more).
  auto tight = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical());
  tight.options_.memory_budget_bytes = plain.stats().numeric_peak_temp_bytes + 64;
  this->expect_sums_match(tight, A, A, 681);
  EXPECT_EQ(tight.stats().learned_positions_bytes, 0u);
  EXPECT_LE(tight.stats().numeric_peak_temp_bytes, tight.options_.memory_budget_bytes);
}

}  // namespace
}  // namespace gustav::test
