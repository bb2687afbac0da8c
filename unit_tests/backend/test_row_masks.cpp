// CPU plans (the thread-per-row mapping) that learn their entries' masks
// in the first numeric call (row_masks.hpp, SpgemmOptions::
// learn_entry_masks): later calls sum from them, give the default path's
// bits, and keep its contract where the structure changes (summed by the
// default path where the products stay inside C, plan_mismatch where they
// leave it, the fault named where an operand is malformed).
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "gustav/common/launch.hpp"
#include "gustav/generators.hpp"
#include "support/kept_products_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class RowMasks : public KeptProductsTest<C> {
 protected:
  using typename KeptProductsTest<C>::Host;
  using typename KeptProductsTest<C>::O;

  void SetUp() override {
    if (!gustav::detail::is_host_space<TestSpace>())
      GTEST_SKIP() << "row masks belong to the thread-per-row mapping (host spaces)";
  }

  static SpgemmOptions learning(bool learn = true) {
    SpgemmOptions o;
    o.learn_entry_masks = learn;
    return o;
  }

  /// The longest row of the reference C = A * B.
  static std::int64_t longest_row(const Host& A, const Host& B) {
    const auto ref = reference_multiply(A, B);
    std::int64_t most = 0;
    for (const auto& row : ref) most = std::max<std::int64_t>(most, static_cast<std::int64_t>(row.size()));
    return most;
  }

  /// A generated matrix in the configuration's types.
  static Host from_generated(const generators::Matrix& g) {
    Host h;
    h.row_map.clear();
    h.num_rows = static_cast<O>(g.num_rows);
    h.num_cols = static_cast<O>(g.num_cols);
    for (const auto v : g.row_map) h.row_map.push_back(static_cast<typename Host::offset_type>(v));
    for (const auto v : g.entries) h.entries.push_back(static_cast<O>(v));
    for (const auto v : g.values) h.values.push_back(static_cast<typename Host::scalar_type>(v));
    return h;
  }

  /// Bytes of masks a plan learns for A: a word per entry, 4 or 8 bytes.
  static std::size_t mask_bytes_for(const Host& A, std::int64_t longest) {
    return A.entries.size() * (longest <= 32 ? 4u : 8u);
  }
};
TYPED_TEST_SUITE(RowMasks, AllConfigs, ConfigNames);

TYPED_TEST(RowMasks, TheFirstCallLearnsThemInWordsOfEitherWidth) {
  // Rectangular operands with empty rows; rows of C up to 32 entries (4-byte
  // words) and from 33 to 64 (8-byte words).
  struct Case {
    double a_row, b_row;
    bool wide;
  };
  // Row lengths are uniform in [0, 2 * mean]: rows of A of at most 5 over
  // rows of B of at most 12 make rows of C of at most 60.
  for (const Case c : {Case{2.0, 3.0, false}, Case{2.5, 6.0, true}}) {
    SCOPED_TRACE("rows of A of about " + std::to_string(c.a_row) + ", of B " + std::to_string(c.b_row));
    RandomShape shape;
    shape.empty_rows = 0.2;
    const auto A = this->random(700, 500, c.a_row, 600 + static_cast<std::uint64_t>(c.b_row), shape);
    const auto B = this->random(500, 900, c.b_row, 610 + static_cast<std::uint64_t>(c.b_row));
    const std::int64_t longest = TestFixture::longest_row(A, B);
    ASSERT_EQ(longest > 32, c.wide) << "the case's rows of C: " << longest;
    ASSERT_LE(longest, 64);
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::learning());
    EXPECT_EQ(plan.stats().masks_bytes, 0u) << "symbolic learns nothing";
    this->expect_repeats_match(plan, A, B, 620);
    EXPECT_EQ(plan.stats().masks_bytes, TestFixture::mask_bytes_for(A, longest));
    EXPECT_GE(plan.stats().numeric_peak_temp_bytes, plan.stats().masks_bytes);
  }
}

TYPED_TEST(RowMasks, RepeatsGiveTheDefaultPathsBits) {
  // A streaming through B (the stencils' case) and random rows.
  const auto stencil = TestFixture::from_generated(generators::laplace2d(40, 9));
  const auto A = this->random(800, 800, 3, 630);
  for (const auto* m : {&stencil, &A}) {
    const auto masked = TestFixture::Run::symbolic(this->device(*m), this->device(*m), TestFixture::learning());
    const auto plain = TestFixture::Run::symbolic(this->device(*m), this->device(*m), TestFixture::learning(false));
    auto with_masks = TestFixture::Run::numeric(masked, this->device(*m), this->device(*m));
    auto without = TestFixture::Run::numeric(plain, this->device(*m), this->device(*m));
    ASSERT_GT(masked.stats().masks_bytes, 0u);
    EXPECT_EQ(plain.stats().masks_bytes, 0u);
    const auto m2 = with_new_values(*m, 631);
    TestFixture::Run::refill(masked, this->device(m2), this->device(m2), with_masks);
    TestFixture::Run::refill(plain, this->device(m2), this->device(m2), without);
    this->space.fence();
    const auto a = to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(with_masks);
    const auto b = to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(without);
    EXPECT_TRUE(a.entries == b.entries);
    EXPECT_TRUE(a.values == b.values) << "the masks' sums differ from the default path's in their bits";
    EXPECT_TRUE(this->matches(with_masks, m2, m2));
  }
}

TYPED_TEST(RowMasks, CopiesOfThePlanShareThem) {
  this->expect_copies_share_masks(TestFixture::learning(), this->random(400, 400, 3, 640), 641);
}

TYPED_TEST(RowMasks, AChangedStructureKeepsTheDefaultContract) {
  const auto A = this->random(150, 150, 3, 650);
  const auto B = this->random(150, 150, 3, 651);
  ASSERT_LE(TestFixture::longest_row(A, B), 64);
  this->expect_changed_structure_keeps_the_default_contract(TestFixture::learning(), A, B, 652);
}

TYPED_TEST(RowMasks, ChangesAfterLearningBehaveAsTheDefaultPath) {
  // On a plan that has learned, each change gives what a plan without
  // masks gives: the same error, or the same values to the bit.
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const auto A = this->random(200, 200, 3, 660);
  const auto B = this->random(200, 200, 3, 661);
  ASSERT_LE(TestFixture::longest_row(A, B), 64);
  // Row r of A loses its last entry to row r + 1 (same nnz).
  auto shifted = A;
  std::size_t r = 0;
  while (r + 1 < static_cast<std::size_t>(A.num_rows) && A.row_map[r + 1] == A.row_map[r]) ++r;
  shifted.row_map[r + 1] -= 1;
  // An entry of A names another row of B.
  auto renamed = A;
  renamed.entries[A.entries.size() / 3] = static_cast<O>((A.entries[A.entries.size() / 3] + 1) % B.num_rows);
  // A column of B one step on, where that column is free in its row.
  auto moved = B;
  for (std::size_t k = 0; k < static_cast<std::size_t>(B.num_rows); ++k) {
    const auto at = static_cast<std::size_t>(B.row_map[k]);
    if (B.row_map[k + 1] - B.row_map[k] >= 2 && B.entries[at] + 1 < B.entries[at + 1]) {
      moved.entries[at] += 1;
      break;
    }
  }
  int threw = 0, summed = 0;
  for (const auto& [name, a, b] : {std::make_tuple("two columns of B swapped", A,
                                                   this->with_two_swapped(B, this->first_row_of_two(B))),
                                   std::make_tuple("A's row map shifted", shifted, B),
                                   std::make_tuple("an entry of A renamed", renamed, B),
                                   std::make_tuple("a column of B moved", A, moved)}) {
    SCOPED_TRACE(name);
    const auto masked = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::learning());
    const auto plain = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::learning(false));
    auto with_masks = TestFixture::Run::numeric(masked, this->device(A), this->device(B));
    auto without = TestFixture::Run::numeric(plain, this->device(A), this->device(B));
    ASSERT_GT(masked.stats().masks_bytes, 0u);
    bool plain_threw = false;
    try {
      TestFixture::Run::refill(plain, this->device(a), this->device(b), without);
    } catch (const gustav::plan_mismatch&) {
      plain_threw = true;
    }
    if (plain_threw) {
      ++threw;
      EXPECT_THROW(TestFixture::Run::refill(masked, this->device(a), this->device(b), with_masks), gustav::plan_mismatch);
    } else {
      ++summed;
      EXPECT_NO_THROW(TestFixture::Run::refill(masked, this->device(a), this->device(b), with_masks));
      this->space.fence();
      EXPECT_TRUE((to_host_csr<S, O, Z>(with_masks).values == to_host_csr<S, O, Z>(without).values));
      EXPECT_TRUE(this->matches(with_masks, a, b));
    }
  }
  EXPECT_GT(threw, 0) << "no change left C";
  EXPECT_GT(summed, 0) << "every change left C";
}

TYPED_TEST(RowMasks, AProductOutsideCInTheFirstCallIsRefusedAndNothingLearned) {
  this->expect_a_first_call_outside_c_learns_nothing(TestFixture::learning(), this->random(150, 150, 3, 670),
                                                     this->random(150, 150, 3, 671), 672);
}

TYPED_TEST(RowMasks, AMalformedOperandIsNamedAsWithoutThem) {
  const auto A = this->random(150, 150, 3, 680);
  auto bad = A;
  bad.entries[bad.entries.size() / 2] = static_cast<typename TestFixture::O>(A.num_cols + 5);  // no row of B
  for (const bool learned_first : {false, true}) {
    SCOPED_TRACE(learned_first ? "after learning" : "in the learning call");
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::learning());
    if (learned_first) {
      TestFixture::Run::numeric(plan, this->device(A), this->device(A));
      ASSERT_GT(plan.stats().masks_bytes, 0u);
    }
    auto C = TestFixture::Run::numeric(TestFixture::Run::symbolic(this->device(A), this->device(A)), this->device(A),
                                       this->device(A));
    EXPECT_THROW(TestFixture::Run::refill(plan, this->device(bad), this->device(A), C), gustav::invalid_input);
  }
}

TYPED_TEST(RowMasks, NotLearnedWhereOffRowsOfBOutOfOrderOrRowsOfCTooLong) {
  const auto A = this->random(300, 200, 2, 690);
  const auto B = this->random(200, 300, 3, 691);
  const auto off = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::learning(false));
  this->expect_repeats_match(off, A, B, 692);
  EXPECT_EQ(off.stats().masks_bytes, 0u);
  for (const bool repeated : {true, false}) {
    SCOPED_TRACE(repeated ? "a repeated column" : "columns out of order");
    const auto unordered = TestFixture::with_an_unordered_row(B, repeated);
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(unordered), TestFixture::learning());
    this->expect_repeats_match(plan, A, unordered, 693);
    EXPECT_EQ(plan.stats().masks_bytes, 0u);
  }
  // One row of C past 64 entries: the plan keeps the default path.
  RandomShape shape;
  shape.long_row = 5;
  shape.long_row_length = 40;
  const auto L = this->random(300, 200, 2, 694, shape);
  const auto wide_b = this->random(200, 400, 4, 695);
  ASSERT_GT(TestFixture::longest_row(L, wide_b), 64);
  const auto plan = TestFixture::Run::symbolic(this->device(L), this->device(wide_b), TestFixture::learning());
  this->expect_repeats_match(plan, L, wide_b, 696);
  EXPECT_EQ(plan.stats().masks_bytes, 0u);
}

TYPED_TEST(RowMasks, ABudgetTooSmallForThemLearnsNothing) {
  // A stencil: its default path's dense rows take fewer threads' pools
  // within a budget (SpgemmOptions::memory_budget_bytes), the masks all or
  // nothing.
  const auto A = TestFixture::from_generated(generators::laplace2d(200));
  const auto learned = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::learning());
  TestFixture::Run::numeric(learned, this->device(A), this->device(A));
  ASSERT_GT(learned.stats().masks_bytes, 0u);
  // A byte less than the learning call took, set on the plan after
  // gustav::symbolic, whose own temporaries may need more.
  auto tight = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::learning());
  tight.options_.memory_budget_bytes = learned.stats().numeric_peak_temp_bytes - 1;
  try {
    this->expect_repeats_match(tight, A, A, 701);
    EXPECT_LE(tight.stats().numeric_peak_temp_bytes, tight.options_.memory_budget_bytes);
  } catch (const gustav::allocation_error& e) {
    // Wide scalars: the default path's one accumulator (a value per column
    // of B) needs more than the masks did, and says so.
    EXPECT_NE(std::string(e.what()).find("one accumulator chunk"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tight.stats().masks_bytes, 0u);
}

}  // namespace
}  // namespace gustav::test
