// Rows of A with many entries on the hierarchical mapping: hub rows (more
// than a few hundred entries on GPUs, 32 on CPUs), whose products the whole
// league counts chunk by chunk, many of them in one team's range, some with
// few or no products; and rows whose many entries bring few columns, which
// go to the multi-team long rows on GPUs however small their output.
#include <algorithm>
#include <vector>

#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class HubRows : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;
  using typename SpgemmTest<C>::O;
  using typename SpgemmTest<C>::Z;

  /// Appends a row of `len` distinct entries drawn from B's rows [lo, hi).
  static void add_row(Host& A, std::int64_t len, std::int64_t lo, std::int64_t hi, Rng& rng) {
    std::vector<std::int64_t> cols;
    for (std::int64_t t = 0; t < len; ++t) cols.push_back(lo + rng.below(hi - lo));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (const auto c : cols) {
      A.entries.push_back(static_cast<O>(c));
      A.values.push_back(random_value<S>(rng));
    }
    A.row_map.push_back(static_cast<Z>(A.entries.size()));
    A.num_rows += 1;
  }

  static std::int64_t products_of(const Host& A, const Host& B) {
    std::int64_t products = 0;
    for (const auto k : A.entries) products += static_cast<std::int64_t>(B.row_map[k + 1] - B.row_map[k]);
    return products;
  }

  void expect_right(const Host& A, const Host& B) {
    SpgemmOptions options;
    options.cpu_mapping = CpuMapping::hierarchical;
    const auto plan = UnderTest<C>::symbolic(this->device(A), this->device(B), options);
    EXPECT_EQ(plan.stats().products, products_of(A, B));
    EXPECT_TRUE(this->multiply_matches(A, B, options));
    EXPECT_TRUE(this->plan_matches(A, B, options));
  }
};
TYPED_TEST_SUITE(HubRows, AllConfigs, ConfigNames);

TYPED_TEST(HubRows, ManyHubRowsTogetherWithFewOrNoProducts) {
  // B's first 4000 rows are empty, the others hold two entries on average.
  // A's first rows are hubs over all of B (40 of 3000 entries), then hubs
  // over B's empty rows alone (no products), then hubs over empty rows but
  // for a few entries (tiny products), then ordinary rows.
  const std::int64_t inner = 20000, empty = 4000;
  const auto rest = this->random(inner - empty, 30000, 2, 92);
  typename TestFixture::Host B = rest;
  B.num_rows = static_cast<typename TestFixture::O>(inner);
  B.row_map.assign(static_cast<std::size_t>(empty), 0);
  B.row_map.insert(B.row_map.end(), rest.row_map.begin(), rest.row_map.end());
  Rng rng(93);
  typename TestFixture::Host A;
  A.num_cols = static_cast<typename TestFixture::O>(inner);
  A.row_map.assign(1, 0);
  for (int h = 0; h < 40; ++h) this->add_row(A, 3000, 0, inner, rng);
  for (int h = 0; h < 10; ++h) this->add_row(A, 400, 0, empty, rng);
  for (int h = 0; h < 10; ++h) {
    this->add_row(A, 400, 0, empty, rng);
    // Two entries over non-empty rows of B: a few products at most.
    A.row_map.pop_back();
    A.num_rows -= 1;
    for (const std::int64_t k : {empty + 10 + h, empty + 500 + h}) {
      A.entries.push_back(static_cast<typename TestFixture::O>(k));
      A.values.push_back(random_value<typename TestFixture::S>(rng));
    }
    A.row_map.push_back(static_cast<typename TestFixture::Z>(A.entries.size()));
    A.num_rows += 1;
  }
  for (int r = 0; r < 2000; ++r) this->add_row(A, 5, 0, inner, rng);
  this->expect_right(A, B);
}

TYPED_TEST(HubRows, MoreHubRowsThanOneTileOfTheirKernel) {
  // 700 hub rows (the hub kernel reads 256 at a time), interleaved with
  // short rows, of 300 to 2,600 entries: rows of one chunk and of two,
  // chunk boundaries falling inside and across the tiles, and every
  // hub's products counted exactly (the plan's products say so).
  const std::int64_t inner = 20000;
  const auto B = this->random(inner, 30000, 2, 95);
  Rng rng(96);
  typename TestFixture::Host A;
  A.num_cols = static_cast<typename TestFixture::O>(inner);
  A.row_map.assign(1, 0);
  for (int h = 0; h < 700; ++h) {
    this->add_row(A, h % 50 == 7 ? 2600 : 300 + h % 17, 0, inner, rng);
    if (h % 3 == 0) this->add_row(A, 4, 0, inner, rng);
  }
  this->expect_right(A, B);
}

TYPED_TEST(HubRows, ManyEntriesFewColumnsTakeSeveralTeams) {
  // Rows of about 2,150 and 4,700 entries of A (2,500 and 7,000 draws of
  // 8,000 rows) over rows of B with one entry among 50 columns: thousands
  // of products, at most 50 entries of C. A worker would walk A's entries
  // alone for long: on GPUs the shorter row goes to a team, the longer one
  // to the long rows' several teams.
  using Host = typename TestFixture::Host;
  const std::int64_t inner = 8000;
  Rng rng(94);
  Host B;
  B.num_rows = static_cast<typename TestFixture::O>(inner);
  B.num_cols = 50;
  B.row_map.assign(1, 0);
  for (std::int64_t k = 0; k < inner; ++k) {
    B.entries.push_back(static_cast<typename TestFixture::O>(rng.below(50)));
    B.values.push_back(random_value<typename TestFixture::S>(rng));
    B.row_map.push_back(static_cast<typename TestFixture::Z>(B.entries.size()));
  }
  Host A;
  A.num_cols = static_cast<typename TestFixture::O>(inner);
  A.row_map.assign(1, 0);
  this->add_row(A, 2500, 0, inner, rng);
  this->add_row(A, 7000, 0, inner, rng);
  for (int r = 0; r < 100; ++r) this->add_row(A, 3, 0, inner, rng);
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  const auto plan = UnderTest<TypeParam>::symbolic(this->device(A), this->device(B), options);
  if (!test_space_is_host) {
    ASSERT_FALSE(plan.stats().numeric_bins.empty());
    EXPECT_EQ(plan.stats().numeric_bins.back().name, "long");
    EXPECT_EQ(plan.stats().numeric_bins.back().rows, 1);
  }
  this->expect_right(A, B);
}

}  // namespace
}  // namespace gustav::test
