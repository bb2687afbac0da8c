// Plans that keep their products by slot (KeptLayout::slots): repeats match
// the reference and give the same bits, the slots take two bytes a product,
// a changed structure is caught, and where slots do not apply (a row of B
// with a repeated or unordered column, a row of C too long for a team's
// window) the plan keeps lists and says so.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "support/kept_products_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class KeptSlots : public KeptProductsTest<C> {
 protected:
  using typename KeptProductsTest<C>::Host;
  using typename KeptProductsTest<C>::S;
  using typename KeptProductsTest<C>::O;
  using typename KeptProductsTest<C>::Z;
  using Run = typename KeptProductsTest<C>::Run;

  /// Symbolic with `layout`, the layout it took, then numeric, a repeat with
  /// new values and a second repeat with the same values (the same bits).
  void repeats_match(const Host& A, const Host& B, KeptLayout layout, const std::string& expected_layout) {
    const auto plan = plan_of(A, B, layout);
    EXPECT_EQ(plan.stats().positions_layout, expected_layout);
    EXPECT_GT(plan.stats().positions_bytes, 0u);
    this->expect_repeats_match(plan, A, B, 301);
  }

  /// gustav::symbolic keeping the products in `layout`.
  auto plan_of(const Host& A, const Host& B, KeptLayout layout) {
    return Run::symbolic(this->device(A), this->device(B), this->keeping(layout));
  }
};
TYPED_TEST_SUITE(KeptSlots, AllConfigs, ConfigNames);

TYPED_TEST(KeptSlots, RepeatsMatchTheReferenceAndGiveTheSameBits) {
  // Short and long rows of B, rows of A from none to hundreds of entries (a
  // repeated column among them: its products add up in turn), rectangular.
  for (const double avg : {2.0, 9.0, 40.0}) {
    SCOPED_TRACE("mean row length " + std::to_string(avg));
    RandomShape a_shape;
    a_shape.duplicates = true;
    a_shape.sorted = false;
    a_shape.empty_rows = 0.2;
    a_shape.long_row = 7;
    // C's rows within every type's window (1,024 entries at least).
    a_shape.long_row_length = 50;
    const auto A = this->random(700, 500, avg, 310 + static_cast<std::uint64_t>(avg), a_shape);
    const auto B = this->random(500, 900, avg, 320 + static_cast<std::uint64_t>(avg));
    this->repeats_match(A, B, KeptLayout::slots, "slots");
  }
  // A row of A whose entries all name one long row of B, and an empty product.
  typename TestFixture::Host A, B;
  A.num_rows = 3;
  A.num_cols = 2;
  A.row_map = {0, 40, 40, 41};
  for (int t = 0; t < 40; ++t) A.entries.push_back(1);
  A.entries.push_back(0);
  B = this->random(2, 1000, 400, 330);
  Rng rng(331);
  for (std::size_t t = 0; t < A.entries.size(); ++t) A.values.push_back(random_value<typename TestFixture::S>(rng));
  this->repeats_match(A, B, KeptLayout::slots, "slots");
  EXPECT_TRUE(this->plan_matches(this->random(0, 40, 3, 332), this->random(40, 30, 3, 333),
                                 TestFixture::keeping(KeptLayout::slots)));
}

TYPED_TEST(KeptSlots, SlotsTakeAQuarterOfTheLists) {
  const auto A = this->random(2000, 2000, 12, 340);
  const auto lists = this->plan_of(A, A, KeptLayout::lists);
  const auto slots = this->plan_of(A, A, KeptLayout::slots);
  ASSERT_EQ(lists.stats().positions_layout, "lists");
  ASSERT_EQ(slots.stats().positions_layout, "slots");
  const std::size_t products = static_cast<std::size_t>(slots.stats().products);
  // Two bytes a product, four a row of A and a few per team's block, and the
  // fingerprint's parts (a word per team of its pass) as with lists.
  EXPECT_GE(slots.stats().positions_bytes, 2 * products);
  EXPECT_LE(slots.stats().positions_bytes, 2 * products + 4 * (2001 + 2001) + 64 * 1024);
  EXPECT_LT(3 * slots.stats().positions_bytes, lists.stats().positions_bytes);
  EXPECT_GE(lists.stats().positions_bytes, 8 * products);
}

TYPED_TEST(KeptSlots, WhereSlotsDoNotApplyThePlanKeepsLists) {
  // A row of B with a repeated column (two lanes would add to one slot at
  // once), and one with two columns out of order.
  const auto A = this->random(300, 200, 8, 350);
  for (const bool repeated : {true, false}) {
    SCOPED_TRACE(repeated ? "a repeated column" : "columns out of order");
    auto B = this->random(200, 300, 8, 351);
    const std::size_t r = this->first_row_of_two(B);
    if (repeated) {
      const auto at = static_cast<std::size_t>(B.row_map[r]);
      B.entries[at + 1] = B.entries[at];
    } else {
      B = this->with_two_swapped(B, r);
    }
    bool referenced = false;
    for (const auto k : A.entries) referenced = referenced || static_cast<std::size_t>(k) == r;
    ASSERT_TRUE(referenced) << "row " << r << " of B takes part in no product";
    this->repeats_match(A, B, KeptLayout::slots, "lists");
  }
  // A row of C longer than any team's window: a full row of A over an
  // identity B.
  const std::int64_t n = 20000;
  typename TestFixture::Host F, I;
  F.num_rows = 2;
  F.num_cols = static_cast<typename TestFixture::O>(n);
  F.row_map = {0, static_cast<typename TestFixture::Z>(n), static_cast<typename TestFixture::Z>(n + 1)};
  for (std::int64_t j = 0; j < n; ++j) F.entries.push_back(static_cast<typename TestFixture::O>(j));
  F.entries.push_back(3);
  I.num_rows = I.num_cols = static_cast<typename TestFixture::O>(n);
  I.row_map.assign(1, 0);
  for (std::int64_t j = 0; j < n; ++j) {
    I.entries.push_back(static_cast<typename TestFixture::O>(j));
    I.row_map.push_back(static_cast<typename TestFixture::Z>(j + 1));
  }
  Rng rng(352);
  for (auto* m : {&F, &I})
    for (std::size_t t = 0; t < m->entries.size(); ++t) m->values.push_back(random_value<typename TestFixture::S>(rng));
  this->repeats_match(F, I, KeptLayout::slots, "lists");
}

TYPED_TEST(KeptSlots, AutomaticTakesSlotsWhereEntriesHaveManyProducts) {
  // Half-full operands over an inner dimension of 160: about 48 products an
  // entry of C (slots); a sparse square: one or two (lists).
  const auto D = this->random(300, 160, 80, 360);
  const auto E = this->random(160, 100, 60, 361);
  this->repeats_match(D, E, KeptLayout::automatic, "slots");
  const auto S = this->random(1000, 1000, 3, 362);
  this->repeats_match(S, S, KeptLayout::automatic, "lists");
}

TYPED_TEST(KeptSlots, AChangedStructureIsCaught) {
  // Two columns of a row of B swapped: every product stays inside C's
  // structure but no longer at its slot.
  const auto A = this->random(150, 150, 20, 370);
  const auto B = this->random(150, 150, 20, 371);
  const auto plan = this->plan_of(A, B, KeptLayout::slots);
  ASSERT_EQ(plan.stats().positions_layout, "slots");
  EXPECT_NO_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(B)));
  const auto moved = this->with_two_swapped(B, this->first_row_of_two(B));
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(moved)), gustav::plan_mismatch);
  // A's rows redrawn with the same entry count: the walk stays within
  // every row's slots while the fingerprint says no.
  auto redrawn = this->random(150, 150, 20, 372);
  redrawn.row_map = A.row_map;
  redrawn.entries = A.entries;
  std::reverse(redrawn.entries.begin(), redrawn.entries.end());
  redrawn.values = A.values;
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(redrawn), this->device(B)), gustav::plan_mismatch);
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(plan, this->device(A), this->device(B)), A, B));
}

}  // namespace
}  // namespace gustav::test
