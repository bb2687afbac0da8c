// Plans that learn their entries' masks from the first numeric call
// (SpgemmOptions::learn_entry_masks, on by default on the hierarchical
// mapping): symbolic keeps none, the first call sums correctly while it
// learns them, later calls sum from them and match the reference, copies
// of the plan share them, and the default contract holds: a structure
// whose products stay inside C's is summed (and the masks dropped), one
// whose products leave it raises plan_mismatch.
#include <algorithm>
#include <string>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "support/kept_products_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class LearnedMasks : public KeptProductsTest<C> {
 protected:
  using typename KeptProductsTest<C>::Host;
  using typename KeptProductsTest<C>::O;
  using Run = typename KeptProductsTest<C>::Run;

  /// The hierarchical mapping (the GPUs'), default options otherwise but
  /// for the learned positions (test_learned_positions.cpp tests both
  /// together), so that a plan that does not learn masks learns nothing.
  static SpgemmOptions hierarchical(bool learn = true) {
    SpgemmOptions o;
    o.cpu_mapping = CpuMapping::hierarchical;
    o.learn_entry_masks = learn;
    o.learn_product_positions = false;
    return o;
  }

  /// Rows of C past the masks' width take the default path, whose GPU
  /// tables add with atomics (any order); CPUs sum every row in one order.
  static std::int64_t same_bits_up_to() {
    return gustav::detail::is_host_space<TestSpace>() ? -1 : gustav::detail::EntryMasks<Kokkos::HostSpace>::max_row;
  }
};
TYPED_TEST_SUITE(LearnedMasks, AllConfigs, ConfigNames);

TYPED_TEST(LearnedMasks, TheFirstNumericCallLearnsThemAndRepeatsMatch) {
  // Rectangular, empty rows, and a long row of A whose row of C is too wide
  // for masks (its bin keeps the default path beside the learned ones).
  for (const double avg : {3.0, 9.0}) {
    SCOPED_TRACE("mean row length " + std::to_string(avg));
    RandomShape a_shape;
    a_shape.empty_rows = 0.2;
    a_shape.long_row = 7;
    a_shape.long_row_length = 120;
    const auto A = this->random(700, 500, avg, 510 + static_cast<std::uint64_t>(avg), a_shape);
    const auto B = this->random(500, 900, avg, 520 + static_cast<std::uint64_t>(avg));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
    EXPECT_EQ(plan.stats().masks_bytes, 0u) << "symbolic records nothing";
    this->expect_repeats_match(plan, A, B, 530, TestFixture::same_bits_up_to());
    EXPECT_GT(plan.stats().masks_bytes, 0u);
    EXPECT_GE(plan.stats().numeric_peak_temp_bytes, plan.stats().masks_bytes);
  }
}

TYPED_TEST(LearnedMasks, RowsOfEveryWidthSum) {
  // Rows of C from a few entries (the tiny bin) through one, two and four
  // words, a few past 128 entries, which take the default path (rows of A
  // of up to 14 entries over rows of B of about 10).
  const auto A = this->random(600, 400, 7, 540);
  const auto B = this->random(400, 3000, 10, 541);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  this->expect_repeats_match(plan, A, B, 542, TestFixture::same_bits_up_to());
  EXPECT_GT(plan.stats().masks_bytes, 0u);
}

TYPED_TEST(LearnedMasks, CopiesOfThePlanShareThem) {
  this->expect_copies_share_masks(TestFixture::hierarchical(), this->random(400, 400, 6, 550), 551);
}

TYPED_TEST(LearnedMasks, AChangedStructureKeepsTheDefaultContract) {
  this->expect_changed_structure_keeps_the_default_contract(
      TestFixture::hierarchical(), this->random(150, 150, 8, 560), this->random(150, 150, 8, 561), 562);
}

TYPED_TEST(LearnedMasks, AProductOutsideCInTheFirstCallIsRefusedAndNothingLearned) {
  this->expect_a_first_call_outside_c_learns_nothing(TestFixture::hierarchical(), this->random(150, 150, 8, 570),
                                                     this->random(150, 150, 8, 571), 572,
                                                     TestFixture::same_bits_up_to());
}

TYPED_TEST(LearnedMasks, NotLearnedWhereOffOrWhereRowsOfBAreOutOfOrder) {
  const auto A = this->random(300, 200, 6, 580);
  const auto B = this->random(200, 300, 6, 581);
  const auto off = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical(false));
  this->expect_repeats_match(off, A, B, 582, TestFixture::same_bits_up_to());
  EXPECT_EQ(off.stats().masks_bytes, 0u);
  // Rows of B of about 6 entries would be learned entry by entry, of about
  // 14 by the default path's kernels: a pass over B refuses both first.
  for (const double b_row : {6.0, 14.0}) {
    const auto ordered = this->random(200, 300, b_row, 584);
    for (const bool repeated : {true, false}) {
      SCOPED_TRACE(std::string(repeated ? "a repeated column" : "columns out of order") + ", rows of B of about " +
                   std::to_string(b_row));
      const auto unordered = TestFixture::with_an_unordered_row(ordered, repeated);
      const auto plan =
          TestFixture::Run::symbolic(this->device(A), this->device(unordered), TestFixture::hierarchical());
      this->expect_repeats_match(plan, A, unordered, 583, TestFixture::same_bits_up_to());
      EXPECT_EQ(plan.stats().masks_bytes, 0u);
    }
  }
}

TYPED_TEST(LearnedMasks, NotLearnedWhereRowsTooWideForThemHoldMostProducts) {
  // One row of A of 400 entries over rows of B of about 4 (a row of C far
  // past 128 entries, about 1,600 products) beside rows of about one entry
  // (about 400 products): the masks would cover a fifth of the products.
  RandomShape a_shape;
  a_shape.long_row = 3;
  a_shape.long_row_length = 400;
  const auto A = this->random(200, 600, 1, 595, a_shape);
  const auto B = this->random(600, 2000, 4, 596);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  this->expect_repeats_match(plan, A, B, 597, TestFixture::same_bits_up_to());
  EXPECT_EQ(plan.stats().masks_bytes, 0u);
}

TYPED_TEST(LearnedMasks, ABudgetTooSmallForThemLearnsNothing) {
  const auto A = this->random(2000, 2000, 6, 590);
  const auto learning = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical());
  TestFixture::Run::numeric(learning, this->device(A), this->device(A));
  ASSERT_GT(learning.stats().masks_bytes, 0u);
  const auto plain = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical(false));
  TestFixture::Run::numeric(plain, this->device(A), this->device(A));
  // A budget with room for the default numeric call's temporaries and half
  // the masks. It is set on the plan after gustav::symbolic, whose own
  // temporaries may need more.
  auto tight = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical());
  tight.options_.memory_budget_bytes = plain.stats().numeric_peak_temp_bytes + learning.stats().masks_bytes / 2;
  this->expect_repeats_match(tight, A, A, 591, TestFixture::same_bits_up_to());
  EXPECT_EQ(tight.stats().masks_bytes, 0u);
  EXPECT_LE(tight.stats().numeric_peak_temp_bytes, tight.options_.memory_budget_bytes);
}

}  // namespace
}  // namespace gustav::test
