// What rows contain: unsorted and duplicate input, long rows, power-law rows,
// and the output ordering option.
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class SpgemmContent : public SpgemmTest<C> {};
TYPED_TEST_SUITE(SpgemmContent, AllConfigs, ConfigNames);

TYPED_TEST(SpgemmContent, UnsortedInputRows) {
  RandomShape shape;
  shape.sorted = false;
  const auto A = this->random(250, 200, 7, 21, shape);
  const auto B = this->random(200, 260, 7, 22, shape);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmContent, DuplicateEntriesAreSummed) {
  RandomShape shape;
  shape.duplicates = true;
  shape.sorted = false;
  const auto A = this->random(200, 150, 8, 23, shape);
  const auto B = this->random(150, 180, 8, 24, shape);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmContent, OneVeryLongRowWithOver100kProducts) {
  RandomShape a_shape;
  a_shape.long_row = 3;
  a_shape.long_row_length = 2500;
  const auto A = this->random(40, 3000, 4, 25, a_shape);
  const auto B = this->random(3000, 20000, 25, 26);
  ASSERT_GE(reference_products(A, B), 50000);  // the long row alone: 2500 x ~25
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmContent, DenseRowTimesDenseColumnBlock) {
  // Every product of the long row lands on a few hundred columns: heavy
  // accumulation into the same slots.
  RandomShape a_shape;
  a_shape.long_row = 0;
  a_shape.long_row_length = 4000;
  const auto A = this->random(8, 4000, 2, 27, a_shape);
  const auto B = this->random(4000, 300, 30, 28);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmContent, LongRowsOfAOverShortRowsOfB) {
  // Rows of A of hundreds to thousands of entries over rows of B of 0-2:
  // A's rows are counted by lanes, workers and whole teams (hub rows), and
  // a team's walk over a row crosses several chunks of A's entries, many of
  // them empty rows of B.
  RandomShape a_shape;
  a_shape.long_row = 7;
  a_shape.long_row_length = 4000;
  const auto A = this->random(300, 4000, 200, 31, a_shape);
  RandomShape b_shape;
  b_shape.empty_rows = 0.5;
  const auto B = this->random(4000, 3000, 1, 32, b_shape);
  EXPECT_TRUE(this->multiply_matches(A, B));
  EXPECT_TRUE(this->plan_matches(A, B));
}

TYPED_TEST(SpgemmContent, LongRowsOfAWithFewProducts) {
  // Rows of A of up to 300 entries with at most a few products each (B's
  // rows nearly all empty): tiny rows of C found by every level of the
  // row inspection.
  const auto A = this->random(200, 4000, 150, 33);
  RandomShape b_shape;
  b_shape.empty_rows = 0.97;
  const auto B = this->random(4000, 500, 1, 34, b_shape);
  EXPECT_TRUE(this->multiply_matches(A, B));
  EXPECT_TRUE(this->plan_matches(A, B));
}

TYPED_TEST(SpgemmContent, PowerLawRows) {
  const auto A = random_rmat<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(12, 8, 29);
  EXPECT_TRUE(this->multiply_matches(A, A));
}

TYPED_TEST(SpgemmContent, UnsortedOutputOption) {
  const auto A = this->random(300, 300, 9, 30);
  SpgemmOptions options;
  options.sort_rows = false;
  EXPECT_TRUE(this->multiply_matches(A, A, options));
}

TYPED_TEST(SpgemmContent, CompressionAlways) {
  const auto A = this->random(300, 5000, 9, 31);
  const auto B = this->random(5000, 400, 9, 32);
  SpgemmOptions options;
  options.compression = Compression::always;
  EXPECT_TRUE(this->multiply_matches(A, B, options));
}

TYPED_TEST(SpgemmContent, CompressionNever) {
  const auto A = this->random(300, 300, 9, 33);
  SpgemmOptions options;
  options.compression = Compression::never;
  EXPECT_TRUE(this->multiply_matches(A, A, options));
}

TYPED_TEST(SpgemmContent, BandedRowsCompressWell) {
  // Consecutive columns: the compressed B holds one set per 32 columns.
  typename TestFixture::Host A;
  const int n = 2000, half = 40;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(1, 0);
  Rng rng(34);
  for (int i = 0; i < n; ++i) {
    for (int j = std::max(0, i - half); j <= std::min(n - 1, i + half); ++j) {
      A.entries.push_back(j);
      A.values.push_back(random_value<typename TestFixture::S>(rng));
    }
    A.row_map.push_back(static_cast<typename TestFixture::Z>(A.entries.size()));
  }
  const auto dA = this->device(A);
  const auto plan = TestFixture::Run::symbolic(dA, dA);
  if (plan.stats().mapping == "thread per row") {
    EXPECT_TRUE(plan.stats().compressed);
    EXPECT_LT(plan.stats().compression_ratio, 0.2);
  } else {
    // The hierarchical mapping counts on B as it is: no compressed path yet.
    EXPECT_EQ(plan.stats().mapping, "hierarchical");
    EXPECT_FALSE(plan.stats().compressed);
  }
  EXPECT_TRUE(this->multiply_matches(A, A));
}

}  // namespace
}  // namespace gustav::test
