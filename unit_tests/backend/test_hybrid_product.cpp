// Host and device together (SpgemmOptions::co_execution, seed 001's HH-CPU)
// on every backend: the split into heavy and light parts, the two products
// and their merge against the reference, one-shot and planned, with reuse,
// thresholds that make nothing heavy, everything heavy or only one operand
// heavy, unsorted rows with duplicates, empty shapes, a structure changed
// under the plan, and the automatic choice of thresholds. On a host
// execution space both parts run there one after the other; on a GPU the
// host's part runs on Kokkos' default host space beside it.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/common/types.hpp"
#include "gustav/hybrid/heavy_rows.hpp"
#include "gustav/spgemm/symbolic.hpp"  // heavy_thresholds (hybrid_product.hpp)
#include "support/new_values.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class HybridProduct : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;
  using typename SpgemmTest<C>::O;
  using typename SpgemmTest<C>::Z;

  static SpgemmOptions split(long long ta, long long tb) {
    SpgemmOptions o;
    o.co_execution = CoExecution::always;
    o.heavy_a_row_nnz = ta;
    o.heavy_b_row_nnz = tb;
    return o;
  }

  /// rows x cols, about `avg` random entries a row, rows 0..hubs-1 holding
  /// about a third of the columns, and columns 0..hubs-1 held by about a
  /// third of the rows: a small power-law-like matrix.
  Host with_hubs(std::int64_t rows, std::int64_t cols, double avg, std::int64_t hubs, std::uint64_t seed,
                 bool sorted = true, bool duplicates = false) {
    Rng rng(seed);
    Host h;
    h.num_rows = static_cast<O>(rows);
    h.num_cols = static_cast<O>(cols);
    h.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < rows; ++i) {
      std::vector<std::int64_t> row;
      const std::int64_t len = i < hubs ? cols / 3 : rng.below(static_cast<std::int64_t>(2 * avg) + 1);
      for (std::int64_t t = 0; t < len; ++t) row.push_back(rng.below(cols));
      for (std::int64_t c = 0; c < hubs && c < cols; ++c)
        if (rng.below(3) == 0) row.push_back(c);
      if (!duplicates) {
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
      }
      if (!sorted) std::reverse(row.begin(), row.end());
      for (auto c : row) {
        h.entries.push_back(static_cast<O>(c));
        h.values.push_back(random_value<S>(rng));
      }
      h.row_map.push_back(static_cast<Z>(h.entries.size()));
    }
    return h;
  }

  void expect_both_match(const Host& A, const Host& B, const SpgemmOptions& o) {
    EXPECT_TRUE(this->multiply_matches(A, B, o));
    EXPECT_TRUE(this->plan_matches(A, B, o));
  }
};
TYPED_TEST_SUITE(HybridProduct, AllConfigs, ConfigNames);

TYPED_TEST(HybridProduct, HubRowsSplitAndMergeMatchReference) {
  const auto A = this->with_hubs(400, 300, 4, 6, 800), B = this->with_hubs(300, 350, 4, 6, 801);
  const auto o = this->split(40, 40);
  this->expect_both_match(A, B, o);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), o);
  const auto& s = plan.stats();
  EXPECT_EQ(s.co_execution, "host and device");
  EXPECT_EQ(s.heavy_a_row_nnz, 40);
  EXPECT_EQ(s.heavy_a_rows, 6);
  EXPECT_EQ(s.heavy_b_rows, 6);
  EXPECT_GT(s.host_products, 0);
  EXPECT_LT(s.host_products, s.products);
  // Every product is counted once, by one part or the other.
  std::int64_t products = 0;
  for (std::int64_t i = 0; i < A.num_rows; ++i)
    for (auto j = A.row_map[i]; j < A.row_map[i + 1]; ++j)
      products += static_cast<std::int64_t>(B.row_map[A.entries[j] + 1] - B.row_map[A.entries[j]]);
  EXPECT_EQ(s.products, products);
}

TYPED_TEST(HybridProduct, ChosenThresholdsMatchReference) {
  const auto A = this->with_hubs(600, 600, 3, 5, 802);
  SpgemmOptions o = this->split(0, 0);
  o.host_share = 0.5;
  this->expect_both_match(A, A, o);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), o);
  EXPECT_EQ(plan.stats().co_execution, "host and device");
  EXPECT_GT(plan.stats().heavy_a_rows, 0);
  EXPECT_LE(static_cast<double>(plan.stats().host_products), 0.5 * static_cast<double>(plan.stats().products));
}

TYPED_TEST(HybridProduct, ReuseWithNewValuesMatchesReference) {
  const auto A = this->with_hubs(300, 300, 4, 4, 803);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), this->split(30, 30));
  for (std::uint64_t round = 0; round < 3; ++round) {
    const auto A2 = with_new_values(A, 900 + round);
    const auto C = TestFixture::Run::numeric(plan, this->device(A2), this->device(A2));
    this->space.fence();
    EXPECT_TRUE(matches_reference<typename TestFixture::S>(
        to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(C),
        reference_multiply(A2, A2), true));
  }
}

TYPED_TEST(HybridProduct, NothingEverythingOrOneOperandHeavyMatchesReference) {
  const auto A = this->with_hubs(250, 200, 4, 3, 804), B = this->with_hubs(200, 260, 4, 3, 805);
  {
    SCOPED_TRACE("no row heavy");
    this->expect_both_match(A, B, this->split(1000000, 1000000));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), this->split(1000000, 1000000));
    EXPECT_EQ(plan.stats().heavy_a_rows, 0);
    EXPECT_EQ(plan.stats().host_products, 0);
  }
  {
    SCOPED_TRACE("every row heavy: the host computes everything");
    this->expect_both_match(A, B, this->split(1, 1));
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), this->split(1, 1));
    EXPECT_EQ(plan.stats().host_products, plan.stats().products);
  }
  {
    SCOPED_TRACE("heavy rows of A only");
    this->expect_both_match(A, B, this->split(30, 1000000));
  }
  {
    SCOPED_TRACE("heavy rows of B only");
    this->expect_both_match(A, B, this->split(1000000, 30));
  }
}

TYPED_TEST(HybridProduct, UnsortedRowsWithDuplicatesMatchReference) {
  const auto A = this->with_hubs(200, 180, 5, 4, 806, false, true);
  const auto B = this->with_hubs(180, 220, 5, 4, 807, false, true);
  this->expect_both_match(A, B, this->split(25, 25));
}

TYPED_TEST(HybridProduct, RectangularAndEmptyShapesMatchReference) {
  this->expect_both_match(this->with_hubs(30, 500, 6, 2, 808), this->with_hubs(500, 9, 2, 2, 809), this->split(20, 3));
  this->expect_both_match(this->random(0, 30, 3, 810), this->random(30, 20, 3, 811), this->split(2, 2));
  this->expect_both_match(this->random(25, 30, 0, 812), this->random(30, 20, 3, 813), this->split(2, 2));
  this->expect_both_match(this->random(25, 30, 3, 814), this->random(30, 0, 0, 815), this->split(2, 2));
  this->expect_both_match(this->random(25, 0, 0, 816), this->random(0, 20, 0, 817), this->split(2, 2));
}

TYPED_TEST(HybridProduct, ChangedStructureRaisesPlanMismatch) {
  auto A = this->with_hubs(200, 200, 4, 4, 818);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), this->split(30, 30));
  // Move one entry of a heavy row to a column its row lacks: the split no
  // longer describes A.
  auto moved = A;
  const auto begin = moved.row_map[0], end = moved.row_map[1];
  ASSERT_GT(end, begin);
  std::vector<bool> held(static_cast<std::size_t>(moved.num_cols), false);
  for (auto j = begin; j < end; ++j) held[static_cast<std::size_t>(moved.entries[j])] = true;
  std::int64_t free_col = 0;
  while (held[static_cast<std::size_t>(free_col)]) ++free_col;
  moved.entries[begin] = static_cast<typename TestFixture::O>(free_col);
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(moved), this->device(A)), gustav::plan_mismatch);
  // A's rows regrouped with the same nnz.
  auto regrouped = A;
  regrouped.row_map[1] += 1;
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(regrouped), this->device(A)), gustav::plan_mismatch);
  // The plan still serves the structure it was made for.
  const auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(A));
  this->space.fence();
  EXPECT_TRUE(matches_reference<typename TestFixture::S>(
      to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(C),
      reference_multiply(A, A), true));
}

TYPED_TEST(HybridProduct, AutomaticDeclinesWhereTheSplitCannotPay) {
  SpgemmOptions o;
  o.co_execution = CoExecution::automatic;
  // No hub rows: nothing to split.
  const auto A = this->random(300, 300, 4, 819);
  EXPECT_TRUE(this->multiply_matches(A, A, o));
  EXPECT_EQ(TestFixture::Run::symbolic(this->device(A), this->device(A), o).stats().co_execution, "device only");
  // Hub rows, but a product far too small for the host's part to pay (and,
  // on a host space, no second processor to give it to).
  const auto H = this->with_hubs(400, 400, 3, 4, 820);
  EXPECT_TRUE(this->plan_matches(H, H, o));
  const auto plan = TestFixture::Run::symbolic(this->device(H), this->device(H), o);
  EXPECT_EQ(plan.stats().co_execution, "device only");
  EXPECT_EQ(plan.stats().host_products, 0);
}

TYPED_TEST(HybridProduct, GivenThresholdsAreCostedExactly) {
  // The automatic choice weighs the host's share of the products; with
  // thresholds given (one or both) that share is counted for them, not
  // taken from the histogram's own pair (which left it 0: never split).
  const auto A = this->with_hubs(400, 300, 4, 6, 830), B = this->with_hubs(300, 350, 4, 6, 831);
  const auto dA = this->device(A), dB = this->device(B);
  auto input = [](const auto& m) {
    detail::CsrInput<decltype(m.graph.row_map), decltype(m.graph.entries), decltype(m.values)> in;
    in.num_rows = m.numRows();
    in.num_cols = m.numCols();
    in.row_map = m.graph.row_map;
    in.entries = m.graph.entries;
    in.values = m.values;
    return in;
  };
  auto heavy_products = [&](std::int64_t ta, std::int64_t tb) {
    std::int64_t n = 0;
    if (ta <= 0 || tb <= 0) return n;
    for (std::int64_t i = 0; i < A.num_rows; ++i) {
      if (static_cast<std::int64_t>(A.row_map[i + 1] - A.row_map[i]) < ta) continue;
      for (auto j = A.row_map[i]; j < A.row_map[i + 1]; ++j) {
        const auto len = static_cast<std::int64_t>(B.row_map[A.entries[j] + 1] - B.row_map[A.entries[j]]);
        if (len >= tb) n += len;
      }
    }
    return n;
  };
  const std::int64_t all = heavy_products(1, 1);
  for (const auto& given : std::vector<std::pair<long long, long long>>{{40, 40}, {40, 0}, {0, 40}, {1, 1}, {1000000, 1}}) {
    SCOPED_TRACE(testing::Message() << "tA " << given.first << ", tB " << given.second);
    SpgemmOptions o;
    o.co_execution = CoExecution::automatic;
    o.heavy_a_row_nnz = given.first;
    o.heavy_b_row_nnz = given.second;
    const auto t = detail::heavy_thresholds(this->space, input(dA), input(dB), o, true);
    if (given.first > 0) {
      EXPECT_EQ(t.a_row_nnz, given.first);
    }
    if (given.second > 0) {
      EXPECT_EQ(t.b_row_nnz, given.second);
    }
    EXPECT_EQ(t.products, all);
    EXPECT_EQ(t.host_products, heavy_products(t.a_row_nnz, t.b_row_nnz));
  }
  EXPECT_GT(heavy_products(40, 40), 0);
}

TEST(HeavySplit, SplitPaysOnlyWhereTheHostFinishesWellBeforeTheDevice) {
  // 16 threads: 1.76e8 heavy products a second; the device 2e10.
  EXPECT_TRUE(detail::split_pays(1000000, 1000000000000, 16));  // 8.7 ms against 25 s
  EXPECT_FALSE(detail::split_pays(20000000, 1650000000, 15));   // 121 ms against 41 ms (rmat:20:4)
  EXPECT_FALSE(detail::split_pays(0, 1000, 16));                // the fixed cost alone
}

TEST(HeavySplit, ThresholdsGiveTheLargestShareWithinTheCap) {
  using detail::length_buckets;
  std::vector<std::int64_t> hist(length_buckets * length_buckets, 0);
  auto at = [&](int a, int b) -> std::int64_t& { return hist[static_cast<std::size_t>(a) * length_buckets + b]; };
  at(2, 2) = 1000;  // rows of about 4 entries times rows of about 4
  at(8, 2) = 100;   // hub rows of A (256..511 entries) times light rows of B
  at(8, 8) = 150;   // hubs times hubs
  at(2, 8) = 50;
  const auto s = detail::choose_heavy_split(hist, 1300, 4.0, 4.0, 0.2);
  // 8 x average = 32: thresholds from 64 up; (256, 256) gives 150 of 1300.
  EXPECT_EQ(s.a_row_nnz, 256);
  EXPECT_EQ(s.b_row_nnz, 256);
  EXPECT_EQ(s.host_products, 150);
  // A cap below the hub block leaves nothing to split.
  EXPECT_EQ(detail::choose_heavy_split(hist, 1300, 4.0, 4.0, 0.05).host_products, 0);
  // Without hubs (every row near the average) nothing qualifies.
  std::vector<std::int64_t> flat(length_buckets * length_buckets, 0);
  flat[2 * length_buckets + 2] = 1000;
  EXPECT_EQ(detail::choose_heavy_split(flat, 1000, 4.0, 4.0, 0.5).host_products, 0);
  EXPECT_EQ(detail::length_bucket(0), 0);
  EXPECT_EQ(detail::length_bucket(1), 0);
  EXPECT_EQ(detail::length_bucket(2), 1);
  EXPECT_EQ(detail::length_bucket(255), 7);
  EXPECT_EQ(detail::length_bucket(256), 8);
  EXPECT_EQ(detail::min_heavy_length(4.0), 64);
}

}  // namespace
}  // namespace gustav::test
