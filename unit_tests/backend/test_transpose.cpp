// B = A^T against a serial reference, bit for bit: every shape, unsorted and
// duplicate entries, long rows and long columns, power-law matrices, both
// ways of ordering the rows of B, determinism, and the input checks.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "gustav/transpose.hpp"
#include "support/random_csr.hpp"
#include "support/test_configs.hpp"
#include "support/raw_csr.hpp"
#include "support/test_space.hpp"
#include "support/host_copy.hpp"

namespace gustav::test {
namespace {

/// Obviously right: walk A in storage order and append every entry to the
/// row of B named by its column.
template <class S, class O, class Z>
HostCsr<S, O, Z> reference_transpose(const HostCsr<S, O, Z>& A) {
  std::vector<std::vector<std::pair<O, S>>> rows(static_cast<std::size_t>(A.num_cols));
  for (O i = 0; i < A.num_rows; ++i)
    for (Z p = A.row_map[i]; p < A.row_map[i + 1]; ++p) rows[A.entries[p]].emplace_back(i, A.values[p]);
  HostCsr<S, O, Z> B;
  B.num_rows = A.num_cols;
  B.num_cols = A.num_rows;
  B.row_map.assign(static_cast<std::size_t>(A.num_cols) + 1, 0);
  for (O j = 0; j < A.num_cols; ++j) {
    for (const auto& e : rows[j]) {
      B.entries.push_back(e.first);
      B.values.push_back(e.second);
    }
    B.row_map[j + 1] = static_cast<Z>(B.entries.size());
  }
  return B;
}

/// Same shape, row map and column indices, and values equal bit for bit.
template <class S, class O, class Z>
::testing::AssertionResult identical(const HostCsr<S, O, Z>& got, const HostCsr<S, O, Z>& want) {
  if (got.num_rows != want.num_rows || got.num_cols != want.num_cols)
    return ::testing::AssertionFailure() << "shape " << got.num_rows << " x " << got.num_cols << " instead of "
                                         << want.num_rows << " x " << want.num_cols;
  if (got.row_map != want.row_map) {
    for (std::size_t i = 0; i < want.row_map.size(); ++i)
      if (i >= got.row_map.size() || got.row_map[i] != want.row_map[i])
        return ::testing::AssertionFailure() << "row_map differs first at " << i;
    return ::testing::AssertionFailure() << "row_map has " << got.row_map.size() << " entries instead of "
                                         << want.row_map.size();
  }
  for (std::size_t p = 0; p < want.entries.size(); ++p)
    if (got.entries[p] != want.entries[p])
      return ::testing::AssertionFailure() << "entry " << p << " has column " << got.entries[p] << " instead of "
                                           << want.entries[p];
  for (std::size_t p = 0; p < want.values.size(); ++p)
    if (std::memcmp(&got.values[p], &want.values[p], sizeof(S)) != 0)
      return ::testing::AssertionFailure() << "value " << p << " differs";
  return ::testing::AssertionSuccess();
}

template <class C>
class Transpose : public ::testing::Test {
 protected:
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;
  using Matrix = typename C::matrix;
  using Host = typename C::host;

  TestSpace space;

  Host random(std::int64_t rows, std::int64_t cols, double avg, std::uint64_t seed, RandomShape shape = {}) {
    shape.rows = rows;
    shape.cols = cols;
    shape.avg_per_row = avg;
    return random_csr<S, O, Z>(shape, seed);
  }

  /// Rows in random order with repeated columns, and a few columns so long
  /// that rows of B span many pieces.
  Host messy(std::uint64_t seed) {
    RandomShape shape;
    shape.sorted = false;
    shape.duplicates = true;
    return random(3000, 40, 10, seed, shape);
  }

  /// gustav::transpose on a CrsMatrix.
  Host transposed(const Host& A) {
    const Matrix B = gustav::transpose(space, to_crs<Matrix>(space, A));
    space.fence();
    return to_host_csr<S, O, Z>(B);
  }

  /// The implementation with its ordering of B's rows forced.
  Host transposed_with(const Host& A, detail::TransposeOrdering ordering, std::int64_t piece) {
    const Matrix a = to_crs<Matrix>(space, A);
    CsrViews<S, O, Z, typename TestSpace::memory_space> B;
    B.num_rows = A.num_cols;
    B.num_cols = A.num_rows;
    detail::TransposeTuning tuning;
    tuning.ordering = ordering;
    tuning.piece = piece;
    detail::transpose_impl(space, detail::operand_input<TestSpace>(make_csr_ref(a)), B.row_map, B.entries, B.values,
                           "gustav::transpose", tuning);
    space.fence();
    return host_copy<S, O, Z>(B);
  }

  ::testing::AssertionResult matches_reference(const Host& A) { return identical(transposed(A), reference_transpose(A)); }
};
TYPED_TEST_SUITE(Transpose, AllConfigs, ConfigNames);

TYPED_TEST(Transpose, SquareRandom) { EXPECT_TRUE(this->matches_reference(this->random(300, 300, 6, 1))); }

TYPED_TEST(Transpose, TallRectangular) { EXPECT_TRUE(this->matches_reference(this->random(500, 40, 5, 2))); }

TYPED_TEST(Transpose, WideRectangular) { EXPECT_TRUE(this->matches_reference(this->random(30, 800, 40, 3))); }

TYPED_TEST(Transpose, ZeroRows) {
  const auto B = this->transposed(this->random(0, 50, 3, 4));
  EXPECT_EQ(B.num_rows, 50);
  EXPECT_EQ(B.num_cols, 0);
  EXPECT_TRUE(identical(B, reference_transpose(this->random(0, 50, 3, 4))));
}

TYPED_TEST(Transpose, ZeroColumns) {
  const auto B = this->transposed(this->random(40, 0, 3, 5));
  EXPECT_EQ(B.num_rows, 0);
  EXPECT_EQ(B.num_cols, 40);
  EXPECT_TRUE(identical(B, reference_transpose(this->random(40, 0, 3, 5))));
}

TYPED_TEST(Transpose, NoEntries) { EXPECT_TRUE(this->matches_reference(this->random(100, 80, 0, 6))); }

TYPED_TEST(Transpose, EmptyRows) {
  RandomShape shape;
  shape.empty_rows = 0.6;
  EXPECT_TRUE(this->matches_reference(this->random(400, 300, 5, 7, shape)));
}

TYPED_TEST(Transpose, UnsortedRows) {
  RandomShape shape;
  shape.sorted = false;
  EXPECT_TRUE(this->matches_reference(this->random(400, 350, 12, 8, shape)));
}

TYPED_TEST(Transpose, DuplicatesKeepTheirOrderInA) {
  using S = typename TestFixture::S;
  // Row 0 holds column 2 twice around a column 0, row 1 holds it twice more.
  typename TestFixture::Host A;
  A.num_rows = 2;
  A.num_cols = 3;
  A.row_map = {0, 3, 5};
  A.entries = {2, 0, 2, 2, 2};
  A.values = {S(1), S(2), S(3), S(4), S(5)};
  const auto B = this->transposed(A);
  const std::vector<typename TestFixture::Z> row_map = {0, 1, 1, 5};
  const std::vector<typename TestFixture::O> entries = {0, 0, 0, 1, 1};
  const std::vector<S> values = {S(2), S(1), S(3), S(4), S(5)};
  EXPECT_EQ(B.row_map, row_map);
  EXPECT_EQ(B.entries, entries);
  EXPECT_TRUE(B.values == values);
}

TYPED_TEST(Transpose, RandomDuplicatesInUnsortedRows) {
  RandomShape shape;
  shape.sorted = false;
  shape.duplicates = true;
  EXPECT_TRUE(this->matches_reference(this->random(500, 60, 9, 9, shape)));
}

TYPED_TEST(Transpose, OneVeryLongRow) {
  RandomShape shape;
  shape.long_row = 123;
  shape.long_row_length = 5000;
  EXPECT_TRUE(this->matches_reference(this->random(200, 6000, 4, 10, shape)));
}

TYPED_TEST(Transpose, VeryLongColumns) {
  // About 10,000 entries per column: rows of B of many pieces, several merge levels.
  EXPECT_TRUE(this->matches_reference(this->random(20000, 6, 3, 11)));
}

TYPED_TEST(Transpose, PowerLaw) {
  using C = TypeParam;
  EXPECT_TRUE(
      this->matches_reference(random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(12, 8, 12)));
}

TYPED_TEST(Transpose, TwiceGivesA) {
  const auto A = this->random(700, 500, 7, 13);  // sorted rows, no duplicates
  EXPECT_TRUE(identical(this->transposed(this->transposed(A)), A));
}

TYPED_TEST(Transpose, DeterministicBitForBit) {
  const auto A = this->messy(14);
  const auto first = this->transposed(A);
  const auto second = this->transposed(A);
  EXPECT_TRUE(identical(second, first));
  EXPECT_TRUE(identical(first, reference_transpose(A)));
}

TYPED_TEST(Transpose, SortingEachRowMatchesReference) {
  const auto A = this->messy(15);
  EXPECT_TRUE(identical(this->transposed_with(A, detail::TransposeOrdering::sort_each_row, 256), reference_transpose(A)));
}

TYPED_TEST(Transpose, PiecesAndMergesMatchReference) {
  const auto A = this->messy(16);
  EXPECT_TRUE(
      identical(this->transposed_with(A, detail::TransposeOrdering::pieces_and_merges, 256), reference_transpose(A)));
}

TYPED_TEST(Transpose, PiecesOfOddLengthMatchReference) {
  // Pieces of 7: windows hold several short rows and cut long rows unevenly.
  RandomShape shape;
  shape.sorted = false;
  shape.duplicates = true;
  const auto A = this->random(900, 120, 6, 17, shape);
  EXPECT_TRUE(
      identical(this->transposed_with(A, detail::TransposeOrdering::pieces_and_merges, 7), reference_transpose(A)));
}

TYPED_TEST(Transpose, PiecesOfOneEntryMatchReference) {
  // Every row of B longer than one entry is merged from single entries.
  const auto A = this->messy(18);
  EXPECT_TRUE(
      identical(this->transposed_with(A, detail::TransposeOrdering::pieces_and_merges, 1), reference_transpose(A)));
}

TYPED_TEST(Transpose, RawViewsGiveCsrViews) {
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const auto A = this->random(250, 180, 5, 19);
  const auto a = to_crs<typename TestFixture::Matrix>(this->space, A);
  const auto B = gustav::transpose(
      this->space, make_csr_ref(a.numRows(), a.numCols(), a.graph.row_map, a.graph.entries, a.values));
  this->space.fence();
  EXPECT_TRUE(identical(host_copy<S, O, Z>(B), reference_transpose(A)));
}

// Input checks, with their exact messages.

/// Runs gustav::transpose and returns the invalid_input message ("" if none).
std::string transpose_error(const RawCsr& A) {
  try {
    gustav::transpose(TestSpace(), A.ref());
  } catch (const gustav::invalid_input& e) {
    return e.what();
  }
  return "";
}

TEST(TransposeValidation, GoodMatrixPasses) { EXPECT_EQ(transpose_error(good_raw_csr()), ""); }

TEST(TransposeValidation, RowMapTooShort) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 2, 4};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has a row_map of length 3 but 3 rows (expected 4)");
}

TEST(TransposeValidation, RowMapNotStartingAtZero) {
  RawCsr A = good_raw_csr();
  A.row_map = {1, 2, 3, 4};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has a row_map starting at 1, not 0");
}

TEST(TransposeValidation, RowMapEndDiffersFromEntries) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 2, 3, 3};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has a row_map ending at 3 but 4 entries");
}

TEST(TransposeValidation, ValuesCountDiffers) {
  RawCsr A = good_raw_csr();
  A.values = {1.0, 2.0, 3.0};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has 3 values but 4 entries");
}

TEST(TransposeValidation, NegativeDimensions) {
  RawCsr A = good_raw_csr();
  A.cols = -3;
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has negative dimensions 3 x -3");
}

TEST(TransposeValidation, DecreasingRowMap) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 3, 2, 4};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has a decreasing row_map: row_map(2) = 2 < row_map(1) = 3");
}

TEST(TransposeValidation, RowBeyondTheEntries) {
  // Row 0 claims entries 0..5 of 4: caught while counting, before any write.
  RawCsr A = good_raw_csr();
  A.row_map = {0, 5, 3, 4};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has a decreasing row_map: row_map(2) = 3 < row_map(1) = 5");
}

TEST(TransposeValidation, ColumnIndexTooLarge) {
  RawCsr A = good_raw_csr();
  A.entries = {0, 2, 3, 0};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has column index 3 in row 1 (entry 2), outside [0, 3)");
}

TEST(TransposeValidation, NegativeColumnIndex) {
  RawCsr A = good_raw_csr();
  A.entries = {0, -1, 1, 0};
  EXPECT_EQ(transpose_error(A), "gustav::transpose: A has column index -1 in row 0 (entry 1), outside [0, 3)");
}

}  // namespace
}  // namespace gustav::test
