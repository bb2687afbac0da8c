// Every bin of the binning by product count, on purpose, in every mapping
// and accumulator the backend offers.
#include <algorithm>
#include <vector>

#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class SpgemmBins : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;

  /// Rows of A of lengths 1, 2, 4, ... 32768 (three each) over B with two
  /// entries per row: the rows' needs cover every tier from the smallest
  /// worker table to the memory pool.
  void make_doubling_rows(Host& A, Host& B) {
    Rng rng(40);
    const std::int64_t inner = 40000, cols = 60000;
    A.num_rows = 0;
    A.num_cols = static_cast<typename C::ordinal>(inner);
    A.row_map.assign(1, 0);
    for (std::int64_t len = 1; len <= 32768; len *= 2)
      for (int copy = 0; copy < 3; ++copy) {
        std::vector<std::int64_t> cols_of_row;
        for (std::int64_t t = 0; t < len; ++t) cols_of_row.push_back(rng.below(inner));
        std::sort(cols_of_row.begin(), cols_of_row.end());
        cols_of_row.erase(std::unique(cols_of_row.begin(), cols_of_row.end()), cols_of_row.end());
        for (auto c : cols_of_row) {
          A.entries.push_back(static_cast<typename C::ordinal>(c));
          A.values.push_back(random_value<S>(rng));
        }
        A.row_map.push_back(static_cast<typename C::offset>(A.entries.size()));
        A.num_rows += 1;
      }
    RandomShape shape;
    shape.rows = inner;
    shape.cols = cols;
    shape.avg_per_row = 1;
    B = random_csr<S, typename C::ordinal, typename C::offset>(shape, 41);
  }

  void expect_every_bin_used(const std::vector<BinUse>& bins, const char* phase) {
    ASSERT_FALSE(bins.empty()) << phase;
    for (const auto& b : bins) EXPECT_GT(b.rows, 0) << phase << " bin " << b.name << " got no row";
  }

  void check_all_bins(const SpgemmOptions& options) {
    Host A, B;
    make_doubling_rows(A, B);
    const auto plan = UnderTest<C>::symbolic(this->device(A), this->device(B), options);
    expect_every_bin_used(plan.stats().count_bins, "count");
    expect_every_bin_used(plan.stats().fill_bins, "fill");
    expect_every_bin_used(plan.stats().numeric_bins, "numeric");
    EXPECT_TRUE(this->multiply_matches(A, B, options));
    EXPECT_TRUE(this->plan_matches(A, B, options));
  }
};
TYPED_TEST_SUITE(SpgemmBins, AllConfigs, ConfigNames);

TYPED_TEST(SpgemmBins, EveryBinDefaultMapping) {
  SpgemmOptions options;
  options.accumulator = Accumulator::hash;
  this->check_all_bins(options);
}

TYPED_TEST(SpgemmBins, EveryBinUncompressed) {
  SpgemmOptions options;
  options.accumulator = Accumulator::hash;
  options.compression = Compression::never;
  this->check_all_bins(options);
}

TYPED_TEST(SpgemmBins, EveryBinHierarchicalMappingOnCpu) {
  if (!test_space_is_host) GTEST_SKIP() << "GPUs always use the hierarchical mapping (tested above)";
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  this->check_all_bins(options);
}

TYPED_TEST(SpgemmBins, DenseAccumulatorOnCpu) {
  if (!test_space_is_host) GTEST_SKIP() << "the dense accumulator is a CPU option";
  typename TestFixture::Host A, B;
  this->make_doubling_rows(A, B);
  // Rows of 1 to 32768 products over 60000 columns (a bitmap whose top level
  // has two words): the fill pass (symbolic) and the write pass (multiply)
  // read rows out by descending the bitmap's levels; with B compressed and
  // not, sorted and not.
  for (const auto compression : {Compression::always, Compression::never})
    for (const bool sorted : {true, false}) {
      SCOPED_TRACE(std::string(compression == Compression::always ? "compressed" : "uncompressed") +
                   (sorted ? ", sorted" : ", unsorted"));
      SpgemmOptions options;
      options.accumulator = Accumulator::dense;
      options.compression = compression;
      options.sort_rows = sorted;
      const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), options);
      EXPECT_EQ(plan.stats().accumulator, "dense");
      EXPECT_TRUE(this->multiply_matches(A, B, options));
      EXPECT_TRUE(this->plan_matches(A, B, options));
    }
}

TYPED_TEST(SpgemmBins, DenseMultiplyPutsRowsInOrderWhateverOrderTheirColumnsAppearIn) {
  if (!test_space_is_host) GTEST_SKIP() << "the dense accumulator is a CPU option";
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  using S = typename TestFixture::S;
  // Row r of A walks rows of B of its own, in order; row base + t of B has
  // columns g(t) and g((t + 1) % L), so the row's columns first appear in
  // the order g gives (ascending, descending, 3 or 6 adjacent pairs swapped,
  // shuffled), each twice: fewer than four products per entry, so the write
  // pass walks without branching on new columns, and its rows of 5 to 3,000
  // columns are read out in order by sorting their lists of words or by
  // scanning the words.
  Rng rng(44);
  const std::int64_t widest = 3000;
  Host A, B;
  A.num_rows = 0;
  A.row_map.assign(1, 0);
  B.num_rows = 0;
  B.num_cols = static_cast<O>(widest);
  B.row_map.assign(1, 0);
  for (const std::int64_t L : {std::int64_t(5), std::int64_t(24), std::int64_t(25), std::int64_t(100), widest})
    for (const int pattern : {0, 1, 2, 3, 4}) {
      std::vector<std::int64_t> g(static_cast<std::size_t>(L));
      for (std::int64_t t = 0; t < L; ++t) g[static_cast<std::size_t>(t)] = t;
      if (pattern == 1) std::reverse(g.begin(), g.end());  // every column after a higher one
      // Adjacent pairs swapped: 3 (nearly in order) or 6 columns after a higher one.
      if (pattern == 2 || pattern == 3)
        for (std::int64_t s = 0, swaps = pattern == 2 ? 3 : 6; s < swaps && 2 * s + 1 < L; ++s)
          std::swap(g[static_cast<std::size_t>(L - 2 - 2 * s)], g[static_cast<std::size_t>(L - 1 - 2 * s)]);
      if (pattern == 4)
        for (std::int64_t t = L - 1; t > 0; --t) std::swap(g[static_cast<std::size_t>(t)], g[static_cast<std::size_t>(rng.below(t + 1))]);
      for (std::int64_t t = 0; t < L; ++t) {
        A.entries.push_back(static_cast<O>(B.num_rows));
        A.values.push_back(random_value<S>(rng));
        std::int64_t c0 = g[static_cast<std::size_t>(t)], c1 = g[static_cast<std::size_t>((t + 1) % L)];
        if (c0 > c1) std::swap(c0, c1);
        B.entries.push_back(static_cast<O>(c0));
        B.values.push_back(random_value<S>(rng));
        if (c1 != c0) {
          B.entries.push_back(static_cast<O>(c1));
          B.values.push_back(random_value<S>(rng));
        }
        B.row_map.push_back(static_cast<Z>(B.entries.size()));
        B.num_rows += 1;
      }
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
      A.num_rows += 1;
    }
  A.num_cols = B.num_rows;
  for (const bool sorted : {true, false}) {
    SCOPED_TRACE(sorted ? "sorted" : "unsorted");
    SpgemmOptions options;
    options.accumulator = Accumulator::dense;
    options.compression = Compression::never;
    options.sort_rows = sorted;
    EXPECT_TRUE(this->multiply_matches(A, B, options));
  }
}

TYPED_TEST(SpgemmBins, LongRowsOverHugeColumnRangeUseColumnWindows) {
  // B has 2^30 columns: a long row's dense accumulator with values (8 GiB)
  // cannot cover them at once within the pool, so the numeric phase takes
  // the columns window by window.
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  Rng rng(42);
  const std::int64_t inner = 6000;
  Host A, B;
  A.num_rows = 3;
  A.num_cols = static_cast<O>(inner);
  A.row_map = {0};
  for (std::int64_t k = 0; k < inner; ++k) {
    A.entries.push_back(static_cast<O>(k));
    A.values.push_back(random_value<typename TestFixture::S>(rng));
  }
  A.row_map.push_back(static_cast<Z>(inner));
  A.entries.push_back(0);
  A.values.push_back(random_value<typename TestFixture::S>(rng));
  A.row_map.push_back(static_cast<Z>(inner + 1));
  A.row_map.push_back(static_cast<Z>(inner + 1));
  B.num_rows = static_cast<O>(inner);
  B.num_cols = static_cast<O>(std::int64_t(1) << 30);
  B.row_map = {0};
  for (std::int64_t k = 0; k < inner; ++k) {
    for (int e = 0; e < 2; ++e) {
      B.entries.push_back(static_cast<O>(rng.below(std::int64_t(1) << 30)));
      B.values.push_back(random_value<typename TestFixture::S>(rng));
    }
    if (B.entries[B.entries.size() - 2] == B.entries.back()) B.entries.back() ^= 1;
    if (B.entries[B.entries.size() - 2] > B.entries.back()) std::swap(B.entries[B.entries.size() - 2], B.entries.back());
    B.row_map.push_back(static_cast<Z>(B.entries.size()));
  }
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  for (bool sorted : {true, false}) {
    options.sort_rows = sorted;
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), options);
    ASSERT_FALSE(plan.stats().numeric_bins.empty());
    EXPECT_EQ(plan.stats().count_bins.back().name, "long");
    EXPECT_GT(plan.stats().count_bins.back().rows, 0);
    EXPECT_EQ(plan.stats().fill_bins.back().name, "long");
    EXPECT_GT(plan.stats().fill_bins.back().rows, 0);
    EXPECT_EQ(plan.stats().numeric_bins.back().name, "long");
    EXPECT_GT(plan.stats().numeric_bins.back().rows, 0);
    EXPECT_TRUE(this->multiply_matches(A, B, options)) << (sorted ? "sorted" : "unsorted");
  }
}

TYPED_TEST(SpgemmBins, LongRowsTakeSeveralTeams) {
  // Columns few enough for a dense accumulator: the rows past scratch go to
  // the multi-team long-row path.
  typename TestFixture::Host A, B;
  this->make_doubling_rows(A, B);
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  for (bool sorted : {true, false}) {
    options.sort_rows = sorted;
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), options);
    EXPECT_EQ(plan.stats().count_bins.back().name, "long");
    EXPECT_EQ(plan.stats().fill_bins.back().name, "long");
    EXPECT_EQ(plan.stats().numeric_bins.back().name, "long");
    EXPECT_TRUE(this->multiply_matches(A, B, options)) << (sorted ? "sorted" : "unsorted");
  }
}

}  // namespace
}  // namespace gustav::test
