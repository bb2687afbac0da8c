// The colouring numeric phase (Accumulator::mcr and mcw, seed 002's KKMCR
// and KKMCW) on every backend: one-shot and planned products against the
// reference, reuse, the shapes that have no rows, columns or entries, hub
// columns that force a colour per row and many groups, a memory budget that
// takes fewer colours at a time, a structure that changed under the plan,
// and a product whose colouring would cost too much.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gustav/colouring/colour_schedule.hpp"
#include "gustav/errors.hpp"
#include "support/new_values.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

constexpr Accumulator colouring_accumulators[] = {Accumulator::mcr, Accumulator::mcw};

inline const char* name_of_colouring(Accumulator a) { return a == Accumulator::mcr ? "mcr" : "mcw"; }

template <class C>
class ColouringNumeric : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;
  using typename SpgemmTest<C>::O;
  using typename SpgemmTest<C>::Z;

  static SpgemmOptions options_for(Accumulator a) {
    SpgemmOptions o;
    o.accumulator = a;
    return o;
  }

  /// Both one-shot and planned products of A and B match the reference
  /// under each colouring accumulator.
  void expect_both_match(const Host& A, const Host& B) {
    for (const Accumulator a : colouring_accumulators) {
      SCOPED_TRACE(name_of_colouring(a));
      EXPECT_TRUE(this->multiply_matches(A, B, options_for(a)));
      EXPECT_TRUE(this->plan_matches(A, B, options_for(a)));
    }
  }

  /// n x n with every row holding column 0 and its own column: every pair
  /// of rows of A*B (B = this matrix) shares column 0.
  Host hub_column(std::int64_t n) {
    Host h;
    h.num_rows = h.num_cols = static_cast<O>(n);
    h.row_map.assign(1, 0);
    Rng rng(90);
    for (std::int64_t i = 0; i < n; ++i) {
      h.entries.push_back(O(0));
      h.values.push_back(random_value<S>(rng));
      if (i > 0) {
        h.entries.push_back(static_cast<O>(i));
        h.values.push_back(random_value<S>(rng));
      }
      h.row_map.push_back(static_cast<Z>(h.entries.size()));
    }
    return h;
  }
};
TYPED_TEST_SUITE(ColouringNumeric, AllConfigs, ConfigNames);

TYPED_TEST(ColouringNumeric, RandomProductMatchesReference) {
  this->expect_both_match(this->random(300, 250, 6, 400), this->random(250, 280, 6, 401));
}

TYPED_TEST(ColouringNumeric, UnsortedRowsWithDuplicatesMatchReference) {
  RandomShape shape;
  shape.sorted = false;
  shape.duplicates = true;
  this->expect_both_match(this->random(200, 150, 8, 402, shape), this->random(150, 220, 5, 403, shape));
}

TYPED_TEST(ColouringNumeric, RectangularWithEmptyRowsMatchesReference) {
  RandomShape shape;
  shape.empty_rows = 0.5;
  this->expect_both_match(this->random(40, 500, 9, 404, shape), this->random(500, 7, 3, 405, shape));
  this->expect_both_match(this->random(1, 60, 30, 406), this->random(60, 900, 4, 407));
}

TYPED_TEST(ColouringNumeric, LongRowMatchesReference) {
  RandomShape shape;
  shape.long_row = 3;
  shape.long_row_length = 3000;
  this->expect_both_match(this->random(50, 3000, 3, 408, shape), this->random(3000, 2000, 6, 409));
}

TYPED_TEST(ColouringNumeric, EmptyShapesGiveEmptyProducts) {
  using Host = typename TestFixture::Host;
  this->expect_both_match(this->random(0, 30, 3, 410), this->random(30, 20, 3, 411));  // no rows
  this->expect_both_match(this->random(25, 30, 0, 412), this->random(30, 20, 3, 413));  // A without entries
  this->expect_both_match(this->random(25, 30, 3, 414), this->random(30, 0, 0, 415));   // B without columns
  Host A = this->random(25, 0, 0, 416), B = this->random(0, 20, 0, 417);                 // inner dimension 0
  this->expect_both_match(A, B);
}

TYPED_TEST(ColouringNumeric, HubColumnNeedsAColourPerRowAndManyGroups) {
  const std::int64_t n = 300;
  const auto H = this->hub_column(n);
  this->expect_both_match(this->random(n, n, 3, 418), H);
  const auto plan = TestFixture::Run::symbolic(this->device(H), this->device(H), this->options_for(Accumulator::mcr));
  // Every row of H*H holds column 0: no two rows may share a colour.
  EXPECT_EQ(plan.stats().colours, n);
  EXPECT_GT(plan.stats().colour_groups, 1);
}

TYPED_TEST(ColouringNumeric, HubHeldByEveryRowOfALargeProductIsRefused) {
  // Every one of 5,000 rows of H*H holds column 0: 25 million row pairs for
  // 15,000 products, past the colouring's limit.
  const auto H = this->hub_column(5000);
  for (const Accumulator a : colouring_accumulators) {
    SCOPED_TRACE(name_of_colouring(a));
    try {
      TestFixture::Run::symbolic(this->device(H), this->device(H), this->options_for(a));
      ADD_FAILURE() << "gustav::symbolic coloured a product past the limit";
    } catch (const gustav::invalid_input& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("gustav::symbolic"), std::string::npos) << message;
      EXPECT_NE(message.find("Accumulator::automatic"), std::string::npos) << message;
    }
    EXPECT_THROW(TestFixture::Run::multiply(this->device(H), this->device(H), this->options_for(a)),
                 gustav::invalid_input);
  }
}

TYPED_TEST(ColouringNumeric, StatsDescribeAValidColouring) {
  const auto A = this->random(400, 400, 5, 419);
  const auto reference = reference_multiply(A, A);
  // The rows that hold a column must all differ in colour: the largest
  // such count bounds the colours from below.
  std::map<std::int64_t, std::int64_t> rows_of_column;
  std::int64_t nnz = 0;
  for (const auto& row : reference) {
    nnz += static_cast<std::int64_t>(row.size());
    for (const auto& entry : row) rows_of_column[entry.first] += 1;
  }
  std::int64_t most = 0;
  for (const auto& [column, rows] : rows_of_column) most = std::max(most, rows);
  for (const Accumulator a : colouring_accumulators) {
    SCOPED_TRACE(name_of_colouring(a));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), this->options_for(a));
    const auto& s = plan.stats();
    EXPECT_EQ(s.accumulator, name_of_colouring(a));
    EXPECT_EQ(s.nnz, nnz);
    EXPECT_GE(s.colours, most);
    EXPECT_LE(s.colours, 400);
    EXPECT_GE(s.colours_per_group, 1);
    EXPECT_LE(s.colours_per_group, s.colours);
    EXPECT_EQ(s.colour_groups, (s.colours + s.colours_per_group - 1) / s.colours_per_group);
  }
}

TYPED_TEST(ColouringNumeric, ReuseAfterValueChange) {
  const auto A = this->random(300, 250, 6, 420);
  const auto B = this->random(250, 280, 6, 421);
  for (const Accumulator a : colouring_accumulators) {
    SCOPED_TRACE(name_of_colouring(a));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), this->options_for(a));
    for (std::uint64_t round = 0; round < 3; ++round) {
      const auto A2 = with_new_values(A, 430 + round);
      const auto B2 = with_new_values(B, 440 + round);
      const auto C2 = TestFixture::Run::numeric(plan, this->device(A2), this->device(B2));
      EXPECT_TRUE(matches_reference<typename TestFixture::S>(
          to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(C2),
          reference_multiply(A2, B2), true))
          << "round " << round;
    }
  }
}

TEST(ColouringSchedule, ColoursPerGroupFollowEntriesPerColumnAndRoom) {
  // About nnz(C) / cols(C) colours a group, no more than there are colours,
  // no more than the room holds, and at least one.
  EXPECT_EQ(detail::colours_per_group_for(100, 6400, 100, 400, std::size_t(1) << 30), 64);
  EXPECT_EQ(detail::colours_per_group_for(100, 6401, 100, 400, std::size_t(1) << 30), 65);
  EXPECT_EQ(detail::colours_per_group_for(10, 6400, 100, 400, std::size_t(1) << 30), 10);
  EXPECT_EQ(detail::colours_per_group_for(100, 6400, 100, 400, 400 * 3 + 399), 3);
  EXPECT_EQ(detail::colours_per_group_for(100, 6400, 100, 400, 100), 1);
  EXPECT_EQ(detail::colours_per_group_for(100, 0, 100, 400, std::size_t(1) << 30), 1);
  EXPECT_EQ(detail::colours_per_group_for(1, 50, 0, 0, 0), 1);
}

TEST(ColouringSchedule, WorkLimitScalesWithTheProduct) {
  // 64 row pairs per product (or per entry of C, where there are more),
  // beyond an allowance of 2^24.
  const double allowance = double(std::int64_t(1) << 24);
  EXPECT_TRUE(detail::colouring_within_limit(allowance, 0, 0));
  EXPECT_FALSE(detail::colouring_within_limit(allowance + 1, 0, 0));
  EXPECT_TRUE(detail::colouring_within_limit(allowance + 64.0 * 1000, 1000, 10));
  EXPECT_FALSE(detail::colouring_within_limit(allowance + 64.0 * 1000 + 1, 1000, 10));
  EXPECT_TRUE(detail::colouring_within_limit(allowance + 64.0 * 5000, 1000, 5000));
}

TYPED_TEST(ColouringNumeric, MemoryBudgetBoundsTheColourArrays) {
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const std::int64_t n = 2000;
  const auto A = this->random(n, n, 8, 450);
  const auto structure = TestFixture::Run::symbolic(this->device(A), this->device(A));
  // What the structure's passes took, the schedule's two lists, and two
  // colours' arrays.
  const std::size_t lists = static_cast<std::size_t>(n) * (sizeof(O) + sizeof(int));
  const std::size_t array = static_cast<std::size_t>(n) * sizeof(Z);
  SpgemmOptions tight = this->options_for(Accumulator::mcr);
  tight.memory_budget_bytes = structure.stats().symbolic_peak_temp_bytes + lists + 2 * array;
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), tight);
  const auto& s = plan.stats();
  EXPECT_GE(s.colours_per_group, 2);
  EXPECT_LE(static_cast<std::size_t>(s.colours_per_group) * array + lists, tight.memory_budget_bytes);
  EXPECT_EQ(s.colour_groups, (s.colours + s.colours_per_group - 1) / s.colours_per_group);
  EXPECT_TRUE(this->plan_matches(A, A, tight));
  EXPECT_TRUE(this->multiply_matches(A, A, tight));
}

TYPED_TEST(ColouringNumeric, StructureChangeIsDetected) {
  // B = identity, then a cyclic shift: same shape and nnz, every product in
  // a column the plan does not have (and that another row of its colour may).
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const std::int64_t n = 64;
  Host I, shift;
  I.num_rows = I.num_cols = shift.num_rows = shift.num_cols = static_cast<O>(n);
  I.row_map.assign(1, 0);
  shift.row_map.assign(1, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    I.entries.push_back(static_cast<O>(i));
    shift.entries.push_back(static_cast<O>((i + 1) % n));
    I.values.push_back(typename TestFixture::S(1));
    shift.values.push_back(typename TestFixture::S(1));
    I.row_map.push_back(static_cast<Z>(i + 1));
    shift.row_map.push_back(static_cast<Z>(i + 1));
  }
  for (const Accumulator a : colouring_accumulators) {
    SCOPED_TRACE(name_of_colouring(a));
    const auto plan = TestFixture::Run::symbolic(this->device(I), this->device(I), this->options_for(a));
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(I), this->device(shift)), gustav::plan_mismatch);
  }
}

}  // namespace
}  // namespace gustav::test
