// Plans that learn their entries' masks from the first numeric call
// (SpgemmOptions::learn_entry_masks, on by default on the hierarchical
// mapping): symbolic keeps none, the first call sums correctly while it
// learns them, later calls sum from them and match the reference, copies
// of the plan share them, and the default contract holds: a structure
// whose products stay inside C's is summed (and the masks dropped), one
// whose products leave it raises plan_mismatch.
#include <algorithm>
#include <set>
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

  /// The hierarchical mapping (the GPUs'), default options otherwise.
  static SpgemmOptions hierarchical(bool learn = true) {
    SpgemmOptions o;
    o.cpu_mapping = CpuMapping::hierarchical;
    o.learn_entry_masks = learn;
    return o;
  }

  /// Rows of C past the masks' width take the default path, whose GPU
  /// tables add with atomics (any order); CPUs sum every row in one order.
  static std::int64_t same_bits_up_to() {
    return gustav::detail::is_host_space<TestSpace>() ? -1 : gustav::detail::EntryMasks<Kokkos::HostSpace>::max_row;
  }

  /// B with the first entry of one of its rows moved to a column that no
  /// row of C using that row of B has: a product outside the plan's C.
  Host with_a_product_outside(const Host& A, const Host& B) {
    const auto k = static_cast<O>(this->first_row_of_two(B));
    std::set<std::int64_t> reached;
    for (std::size_t i = 0; i + 1 < A.row_map.size(); ++i) {
      bool uses = false;
      for (auto j = A.row_map[i]; j < A.row_map[i + 1]; ++j) uses = uses || A.entries[j] == k;
      if (!uses) continue;
      for (auto j = A.row_map[i]; j < A.row_map[i + 1]; ++j) {
        const auto r = static_cast<std::size_t>(A.entries[j]);
        for (auto p = B.row_map[r]; p < B.row_map[r + 1]; ++p) reached.insert(static_cast<std::int64_t>(B.entries[p]));
      }
    }
    std::int64_t outside = 0;
    while (reached.count(outside)) ++outside;
    EXPECT_LT(outside, B.num_cols) << "every column is reached";
    Host moved = B;
    moved.entries[static_cast<std::size_t>(B.row_map[k])] = static_cast<O>(outside);
    return moved;
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
  const auto A = this->random(400, 400, 6, 550);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::hierarchical());
  const auto copy = plan;
  auto product = TestFixture::Run::numeric(plan, this->device(A), this->device(A));
  EXPECT_GT(plan.stats().masks_bytes, 0u);
  const auto A2 = with_new_values(A, 551);
  TestFixture::Run::refill(copy, this->device(A2), this->device(A2), product);
  EXPECT_TRUE(this->matches(product, A2, A2));
  EXPECT_EQ(copy.stats().masks_bytes, plan.stats().masks_bytes);
}

TYPED_TEST(LearnedMasks, AChangedStructureKeepsTheDefaultContract) {
  const auto A = this->random(150, 150, 8, 560);
  const auto B = this->random(150, 150, 8, 561);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  auto product = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
  ASSERT_GT(plan.stats().masks_bytes, 0u);
  // Two columns of a row of B swapped: every product stays inside C's
  // structure, so the default path sums it; the masks no longer say where.
  const auto swapped = this->with_two_swapped(B, this->first_row_of_two(B));
  EXPECT_NO_THROW(TestFixture::Run::refill(plan, this->device(A), this->device(swapped), product));
  EXPECT_TRUE(this->matches(product, A, swapped));
  EXPECT_EQ(plan.stats().masks_bytes, 0u) << "the masks are dropped";
  // A product outside C is refused, as without masks.
  const auto outside = this->with_a_product_outside(A, B);
  EXPECT_THROW(TestFixture::Run::refill(plan, this->device(A), this->device(outside), product), gustav::plan_mismatch);
  // And the plan goes on by the default path.
  const auto A2 = with_new_values(A, 562);
  TestFixture::Run::refill(plan, this->device(A2), this->device(B), product);
  EXPECT_TRUE(this->matches(product, A2, B));
  EXPECT_EQ(plan.stats().masks_bytes, 0u);
}

TYPED_TEST(LearnedMasks, AProductOutsideCInTheFirstCallIsRefusedAndNothingLearned) {
  const auto A = this->random(150, 150, 8, 570);
  const auto B = this->random(150, 150, 8, 571);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::hierarchical());
  const auto outside = this->with_a_product_outside(A, B);
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(outside)), gustav::plan_mismatch);
  EXPECT_EQ(plan.stats().masks_bytes, 0u);
  this->expect_repeats_match(plan, A, B, 572, TestFixture::same_bits_up_to());
  EXPECT_EQ(plan.stats().masks_bytes, 0u);
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
      auto unordered = ordered;
      const std::size_t r = this->first_row_of_two(ordered);
      if (repeated) {
        const auto at = static_cast<std::size_t>(ordered.row_map[r]);
        unordered.entries[at + 1] = unordered.entries[at];
      } else {
        unordered = this->with_two_swapped(ordered, r);
      }
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
