// The matrix generators, the host reference product and the spec grammar.
// Checks are against closed-form counts and naive dense computations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/generators.hpp"

namespace gustav::generators {
namespace {

using Dense = std::vector<std::vector<double>>;

std::int64_t row_length(const Matrix& M, std::int64_t i) { return M.row_map[i + 1] - M.row_map[i]; }

Dense to_dense(const Matrix& M) {
  Dense D(M.num_rows, std::vector<double>(M.num_cols, 0.0));
  for (std::int64_t i = 0; i < M.num_rows; ++i) {
    for (std::int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k) D[i][M.entries[k]] += M.values[k];
  }
  return D;
}

std::map<std::pair<std::int64_t, std::int64_t>, double> to_map(const Matrix& M) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> m;
  for (std::int64_t i = 0; i < M.num_rows; ++i) {
    for (std::int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k) m[{i, M.entries[k]}] += M.values[k];
  }
  return m;
}

bool same_matrix(const Matrix& A, const Matrix& B) {
  return A.num_rows == B.num_rows && A.num_cols == B.num_cols && A.row_map == B.row_map && A.entries == B.entries &&
         A.values == B.values;
}

bool is_symmetric(const Matrix& M) {
  const auto m = to_map(M);
  for (const auto& [position, value] : m) {
    const auto mirror = m.find({position.second, position.first});
    if (mirror == m.end() || mirror->second != value) return false;
  }
  return M.num_rows == M.num_cols;
}

/// Sum of each row whose length is `full` (the rows of interior grid points).
std::vector<double> sums_of_rows_with_length(const Matrix& M, std::int64_t full) {
  std::vector<double> sums;
  for (std::int64_t i = 0; i < M.num_rows; ++i) {
    if (row_length(M, i) != full) continue;
    double sum = 0.0;
    for (std::int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k) sum += M.values[k];
    sums.push_back(sum);
  }
  return sums;
}

/// How many rows have each length.
std::map<std::int64_t, std::int64_t> row_length_histogram(const Matrix& M) {
  std::map<std::int64_t, std::int64_t> histogram;
  for (std::int64_t i = 0; i < M.num_rows; ++i) ++histogram[row_length(M, i)];
  return histogram;
}

/// FNV-1a over the whole matrix, values by their bits: pins generated output.
std::uint64_t fingerprint(const Matrix& M) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  const auto add = [&h](std::uint64_t word) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= (word >> (8 * byte)) & 0xFF;
      h *= 0x100000001B3ull;
    }
  };
  add(static_cast<std::uint64_t>(M.num_rows));
  add(static_cast<std::uint64_t>(M.num_cols));
  for (const auto offset : M.row_map) add(static_cast<std::uint64_t>(offset));
  for (const auto col : M.entries) add(static_cast<std::uint64_t>(col));
  for (const auto value : M.values) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    add(bits);
  }
  return h;
}

/// The message of the gustav::invalid_input that `f` throws ("" if none).
std::string invalid_input_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const invalid_input& e) {
    return e.what();
  }
  return "";
}

std::string spec_error(const std::string& spec) {
  return invalid_input_message([&] { from_spec(spec); });
}

std::string spec_message(const std::string& spec, const std::string& problem) {
  return "gustav::generators::from_spec: \"" + spec + "\": " + problem;
}

Matrix rmat_of(int scale, int edge_factor, std::uint64_t seed) {
  RmatParams p;
  p.scale = scale;
  p.edge_factor = edge_factor;
  p.seed = seed;
  return rmat(p);
}

Matrix from_triplets(std::int64_t rows, std::int64_t cols,
                     const std::vector<std::vector<std::pair<std::int64_t, double>>>& r) {
  Matrix M;
  M.num_rows = rows;
  M.num_cols = cols;
  for (const auto& row : r) {
    for (const auto& [col, value] : row) {
      M.entries.push_back(col);
      M.values.push_back(value);
    }
    M.row_map.push_back(M.nnz());
  }
  return M;
}

// Every generator: sorted rows, no duplicates, columns in range.

struct Named {
  std::string name;
  std::function<Matrix()> make;
};

class GeneratorsWellFormed : public ::testing::TestWithParam<Named> {};

TEST_P(GeneratorsWellFormed, RowsStrictlyIncreasingAndInRange) {
  const Matrix M = GetParam().make();
  ASSERT_EQ(static_cast<std::int64_t>(M.row_map.size()), M.num_rows + 1);
  ASSERT_EQ(M.row_map.front(), 0);
  ASSERT_EQ(M.row_map.back(), M.nnz());
  ASSERT_EQ(M.values.size(), M.entries.size());
  for (std::int64_t i = 0; i < M.num_rows; ++i) {
    for (std::int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k) {
      ASSERT_GE(M.entries[k], 0);
      ASSERT_LT(M.entries[k], M.num_cols);
      if (k > M.row_map[i]) {
        ASSERT_LT(M.entries[k - 1], M.entries[k]) << "row " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Every, GeneratorsWellFormed,
    ::testing::Values(
        Named{"Laplace2d5", [] { return laplace2d(7, 5); }}, Named{"Laplace2d9", [] { return laplace2d(7, 9); }},
        Named{"Laplace3d7", [] { return laplace3d(5, 7); }}, Named{"Laplace3d27", [] { return laplace3d(5, 27); }},
        Named{"Brick", [] { return elasticity_brick(4); }}, Named{"Rmat", [] { return rmat_of(10, 8, 3); }},
        Named{"ErdosRenyi", [] { return erdos_renyi(300, 50, 20.0, 5); }},
        Named{"Banded", [] { return banded(30, 4); }}, Named{"Arrow", [] { return arrow(17); }},
        Named{"TentativeProlongator", [] { return tentative_prolongator(7, 3, 3, 3); }},
        Named{"SmoothedProlongator",
              [] { return jacobi_smoothed_prolongator(laplace3d(7), tentative_prolongator(7, 3, 2, 1)); }},
        Named{"Transpose", [] { return transpose(erdos_renyi(40, 70, 5.0, 2)); }},
        Named{"Multiply", [] { return multiply(rmat_of(8, 4, 1), rmat_of(8, 4, 2)); }}),
    [](const ::testing::TestParamInfo<Named>& param) { return param.param.name; });

// Laplacians.

TEST(GeneratorsLaplace2d, FivePointShapeAndNnz) {
  for (std::int64_t n = 0; n <= 6; ++n) {
    const Matrix A = laplace2d(n, 5);
    EXPECT_EQ(A.num_rows, n * n);
    EXPECT_EQ(A.num_cols, n * n);
    EXPECT_EQ(A.nnz(), 5 * n * n - 4 * n) << "n = " << n;
  }
}

TEST(GeneratorsLaplace2d, NinePointNnz) {
  for (std::int64_t n = 1; n <= 6; ++n) EXPECT_EQ(laplace2d(n, 9).nnz(), (3 * n - 2) * (3 * n - 2)) << "n = " << n;
}

TEST(GeneratorsLaplace2d, FivePointBoundaryRowLengths) {
  const std::int64_t n = 5;
  const std::map<std::int64_t, std::int64_t> expected{{3, 4}, {4, 4 * (n - 2)}, {5, (n - 2) * (n - 2)}};
  EXPECT_EQ(row_length_histogram(laplace2d(n, 5)), expected);
}

TEST(GeneratorsLaplace2d, NinePointBoundaryRowLengths) {
  const std::int64_t n = 5;
  const std::map<std::int64_t, std::int64_t> expected{{4, 4}, {6, 4 * (n - 2)}, {9, (n - 2) * (n - 2)}};
  EXPECT_EQ(row_length_histogram(laplace2d(n, 9)), expected);
}

TEST(GeneratorsLaplace2d, SingletonGridIsTheDiagonal) {
  const Matrix A = laplace2d(1, 9);
  EXPECT_EQ(A.entries, std::vector<std::int64_t>{0});
  EXPECT_EQ(A.values, std::vector<double>{8.0});
}

TEST(GeneratorsLaplace2d, InteriorRowsSumToZero) {
  for (const int points : {5, 9}) {
    const auto sums = sums_of_rows_with_length(laplace2d(6, points), points);
    EXPECT_EQ(sums.size(), 16u);
    for (const double s : sums) EXPECT_EQ(s, 0.0) << points << "-point";
  }
}

TEST(GeneratorsLaplace2d, DiagonalIsFullNeighbourCountEvenOnTheBoundary) {
  for (const int points : {5, 9}) {
    const auto dense = to_dense(laplace2d(4, points));
    for (std::size_t i = 0; i < dense.size(); ++i) EXPECT_EQ(dense[i][i], points - 1.0);
  }
}

TEST(GeneratorsLaplace2d, NeighboursFollowGridNumbering) {
  // Point (x, y) = (1, 2) of a 4 x 4 grid is row 9: neighbours 5, 8, 10, 13.
  const auto m = to_map(laplace2d(4, 5));
  for (const std::int64_t j : {5, 8, 10, 13}) EXPECT_EQ(m.at({9, j}), -1.0);
  EXPECT_EQ(m.count({9, 4}), 0u);
}

TEST(GeneratorsLaplace2d, IsSymmetric) {
  EXPECT_TRUE(is_symmetric(laplace2d(6, 5)));
  EXPECT_TRUE(is_symmetric(laplace2d(6, 9)));
}

TEST(GeneratorsLaplace2d, RejectsOtherStencils) {
  EXPECT_EQ(invalid_input_message([] { laplace2d(4, 7); }),
            "gustav::generators::laplace2d: points must be 5 or 9, got 7");
}

TEST(GeneratorsLaplace2d, RejectsNegativeSize) {
  EXPECT_EQ(invalid_input_message([] { laplace2d(-1); }),
            "gustav::generators::laplace2d: n must be at least 0, got -1");
}

TEST(GeneratorsLaplace3d, SevenPointShapeAndNnz) {
  for (std::int64_t n = 0; n <= 5; ++n) {
    const Matrix A = laplace3d(n, 7);
    EXPECT_EQ(A.num_rows, n * n * n);
    EXPECT_EQ(A.num_cols, n * n * n);
    EXPECT_EQ(A.nnz(), 7 * n * n * n - 6 * n * n) << "n = " << n;
  }
}

TEST(GeneratorsLaplace3d, TwentySevenPointNnz) {
  for (std::int64_t n = 1; n <= 5; ++n) {
    EXPECT_EQ(laplace3d(n, 27).nnz(), (3 * n - 2) * (3 * n - 2) * (3 * n - 2)) << "n = " << n;
  }
}

TEST(GeneratorsLaplace3d, SevenPointBoundaryRowLengths) {
  const std::int64_t n = 4, m = n - 2;
  // Corners, edges, faces, interior.
  const std::map<std::int64_t, std::int64_t> expected{{4, 8}, {5, 12 * m}, {6, 6 * m * m}, {7, m * m * m}};
  EXPECT_EQ(row_length_histogram(laplace3d(n, 7)), expected);
}

TEST(GeneratorsLaplace3d, TwentySevenPointBoundaryRowLengths) {
  const std::int64_t n = 4, m = n - 2;
  const std::map<std::int64_t, std::int64_t> expected{{8, 8}, {12, 12 * m}, {18, 6 * m * m}, {27, m * m * m}};
  EXPECT_EQ(row_length_histogram(laplace3d(n, 27)), expected);
}

TEST(GeneratorsLaplace3d, InteriorRowsSumToZero) {
  for (const int points : {7, 27}) {
    const auto sums = sums_of_rows_with_length(laplace3d(5, points), points);
    EXPECT_EQ(sums.size(), 27u);
    for (const double s : sums) EXPECT_EQ(s, 0.0) << points << "-point";
  }
}

TEST(GeneratorsLaplace3d, DiagonalIsFullNeighbourCount) {
  for (const int points : {7, 27}) {
    const auto dense = to_dense(laplace3d(3, points));
    for (std::size_t i = 0; i < dense.size(); ++i) EXPECT_EQ(dense[i][i], points - 1.0);
  }
}

TEST(GeneratorsLaplace3d, IsSymmetric) {
  EXPECT_TRUE(is_symmetric(laplace3d(4, 7)));
  EXPECT_TRUE(is_symmetric(laplace3d(4, 27)));
}

TEST(GeneratorsLaplace3d, RejectsOtherStencils) {
  EXPECT_EQ(invalid_input_message([] { laplace3d(4, 9); }),
            "gustav::generators::laplace3d: points must be 7 or 27, got 9");
}

TEST(GeneratorsLaplace3d, RejectsGridBeyondLimit) {
  EXPECT_EQ(invalid_input_message([] { laplace3d(3000000); }),
            "gustav::generators::laplace3d: grid points would exceed the limit of 2^36 "
            "(gustav::generators::max_entries)");
}

// Elasticity brick.

TEST(GeneratorsBrick, ShapeAndNnz) {
  for (std::int64_t n = 0; n <= 4; ++n) {
    const Matrix A = elasticity_brick(n);
    EXPECT_EQ(A.num_rows, 3 * n * n * n);
    EXPECT_EQ(A.num_cols, 3 * n * n * n);
    const std::int64_t pairs = n == 0 ? 0 : (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
    EXPECT_EQ(A.nnz(), 9 * pairs) << "n = " << n;
  }
}

TEST(GeneratorsBrick, RowsOfANodeCoupleWholeBlocks) {
  const Matrix A = elasticity_brick(3);
  for (std::int64_t node = 0; node < 27; ++node) {
    const auto first = A.entries.begin() + A.row_map[3 * node];
    const std::int64_t length = row_length(A, 3 * node);
    ASSERT_EQ(length % 3, 0);
    for (std::int64_t k = 0; k < length; ++k) EXPECT_EQ(first[k] % 3, k % 3);
    for (int component = 1; component < 3; ++component) {
      const std::int64_t row = 3 * node + component;
      ASSERT_EQ(row_length(A, row), length);
      EXPECT_TRUE(std::equal(first, first + length, A.entries.begin() + A.row_map[row]));
    }
  }
}

TEST(GeneratorsBrick, IsSymmetric) { EXPECT_TRUE(is_symmetric(elasticity_brick(3))); }

TEST(GeneratorsBrick, IsStrictlyDiagonallyDominant) {
  const Matrix A = elasticity_brick(3);
  for (std::int64_t i = 0; i < A.num_rows; ++i) {
    double diagonal = 0.0, off = 0.0;
    for (std::int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      (A.entries[k] == i ? diagonal : off) += std::abs(A.values[k]);
    }
    EXPECT_GT(diagonal, off) << "row " << i;
  }
}

// R-MAT.

TEST(GeneratorsRmat, ShapeIsTwoToTheScale) {
  const Matrix A = rmat_of(9, 4, 1);
  EXPECT_EQ(A.num_rows, 512);
  EXPECT_EQ(A.num_cols, 512);
  EXPECT_LE(A.nnz(), 4 * 512);
  EXPECT_GT(A.nnz(), 0);
}

TEST(GeneratorsRmat, SameSeedGivesSameMatrix) { EXPECT_TRUE(same_matrix(rmat_of(10, 8, 42), rmat_of(10, 8, 42))); }

TEST(GeneratorsRmat, DifferentSeedGivesDifferentMatrix) {
  const Matrix a = rmat_of(10, 8, 42), b = rmat_of(10, 8, 43);
  EXPECT_FALSE(a.entries == b.entries);
  EXPECT_FALSE(a.values == b.values);
}

TEST(GeneratorsRmat, MatchesRecordedFingerprint) {
  // Pins the exact output: the generator promises the same matrix on every
  // platform, so a change here is a change of every benchmark input.
  const Matrix A = rmat_of(10, 4, 7);
  EXPECT_EQ(A.nnz(), 3609);
  EXPECT_EQ(fingerprint(A), 7598124801641495293u);
}

TEST(GeneratorsRmat, DegreesAreSkewed) {
  const Matrix A = rmat_of(14, 8, 1);
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < A.num_rows; ++i) longest = std::max(longest, row_length(A, i));
  const double average = static_cast<double>(A.nnz()) / static_cast<double>(A.num_rows);
  EXPECT_GT(static_cast<double>(longest), 50.0 * average);
}

TEST(GeneratorsRmat, VertexZeroIsTheLargestHub) {
  const Matrix A = rmat_of(12, 8, 5);
  for (std::int64_t i = 1; i < A.num_rows; ++i) ASSERT_LE(row_length(A, i), row_length(A, 0)) << "row " << i;
}

TEST(GeneratorsRmat, KeepsSelfLoops) {
  const auto m = to_map(rmat_of(10, 8, 1));
  EXPECT_EQ(m.count({0, 0}), 1u);
}

TEST(GeneratorsRmat, ValuesStayAwayFromZero) {
  const Matrix A = rmat_of(10, 8, 1);
  bool negative = false, positive = false;
  for (const double v : A.values) {
    EXPECT_GE(std::abs(v), 0.25);
    EXPECT_LE(std::abs(v), 1.0);
    (v < 0 ? negative : positive) = true;
  }
  EXPECT_TRUE(negative && positive);
}

TEST(GeneratorsRmat, RejectsScaleAbove40) {
  RmatParams p;
  p.scale = 41;
  EXPECT_EQ(invalid_input_message([&] { rmat(p); }),
            "gustav::generators::rmat: scale must be between 1 and 40, got 41");
}

TEST(GeneratorsRmat, RejectsProbabilitiesSummingAboveOne) {
  RmatParams p;
  p.a = 0.6;
  p.b = 0.3;
  p.c = 0.3;
  EXPECT_EQ(invalid_input_message([&] { rmat(p); }), "gustav::generators::rmat: a + b + c must be at most 1, got 1.2");
}

TEST(GeneratorsRmat, RejectsNegativeProbability) {
  RmatParams p;
  p.b = -0.1;
  EXPECT_EQ(invalid_input_message([&] { rmat(p); }), "gustav::generators::rmat: b must be in [0, 1], got -0.1");
}

// Erdos-Renyi.

TEST(GeneratorsErdosRenyi, AverageRowLengthIsAsRequested) {
  const Matrix A = erdos_renyi(20000, 50000, 6.5, 3);
  const double average = static_cast<double>(A.nnz()) / 20000.0;
  EXPECT_LE(average, 6.5);
  EXPECT_GT(average, 6.49);
}

TEST(GeneratorsErdosRenyi, RectangularShape) {
  const Matrix A = erdos_renyi(30, 700, 4.0, 1);
  EXPECT_EQ(A.num_rows, 30);
  EXPECT_EQ(A.num_cols, 700);
}

TEST(GeneratorsErdosRenyi, RepeatedPositionsAreMerged) {
  // 40 draws per row into 4 columns: every row ends up with at most 4.
  const Matrix A = erdos_renyi(50, 4, 40.0, 1);
  for (std::int64_t i = 0; i < A.num_rows; ++i) EXPECT_LE(row_length(A, i), 4);
  EXPECT_GT(A.nnz(), 150);
}

TEST(GeneratorsErdosRenyi, SameSeedGivesSameMatrix) {
  EXPECT_TRUE(same_matrix(erdos_renyi(100, 80, 3.0, 9), erdos_renyi(100, 80, 3.0, 9)));
}

TEST(GeneratorsErdosRenyi, DifferentSeedGivesDifferentMatrix) {
  EXPECT_FALSE(erdos_renyi(100, 80, 3.0, 9).entries == erdos_renyi(100, 80, 3.0, 10).entries);
}

TEST(GeneratorsErdosRenyi, MatchesRecordedFingerprint) {
  const Matrix A = erdos_renyi(200, 300, 3.5, 11);
  EXPECT_EQ(A.nnz(), 697);
  EXPECT_EQ(fingerprint(A), 5229387042355789375u);
}

TEST(GeneratorsErdosRenyi, NoColumnsMeansNoEntries) {
  const Matrix A = erdos_renyi(10, 0, 3.0, 1);
  EXPECT_EQ(A.num_rows, 10);
  EXPECT_EQ(A.nnz(), 0);
}

TEST(GeneratorsErdosRenyi, RejectsNegativeAverage) {
  EXPECT_EQ(invalid_input_message([] { erdos_renyi(10, 10, -1.0, 1); }),
            "gustav::generators::erdos_renyi: avg_per_row must be finite and non-negative, got -1");
}

// Band matrices.

TEST(GeneratorsBanded, HoldsExactlyTheBand) {
  const std::int64_t n = 9, h = 2;
  const auto m = to_map(banded(n, h));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) EXPECT_EQ(m.count({i, j}), std::abs(i - j) <= h ? 1u : 0u) << i << ", " << j;
  }
}

TEST(GeneratorsBanded, NnzCountsTheBand) { EXPECT_EQ(banded(100, 3).nnz(), 100 * 7 - 3 * 4); }

TEST(GeneratorsBanded, BandWiderThanTheMatrixIsDense) { EXPECT_EQ(banded(4, 10).nnz(), 16); }

TEST(GeneratorsBanded, ZeroHalfBandwidthIsTheIdentity) {
  const Matrix A = banded(5, 0);
  EXPECT_EQ(A.entries, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(A.values, std::vector<double>(5, 1.0));
}

TEST(GeneratorsBanded, IsSymmetricAndDiagonallyDominant) {
  const Matrix A = banded(12, 3);
  EXPECT_TRUE(is_symmetric(A));
  const auto dense = to_dense(A);
  for (std::size_t i = 0; i < dense.size(); ++i) {
    double off = 0.0;
    for (std::size_t j = 0; j < dense.size(); ++j) off += i == j ? 0.0 : std::abs(dense[i][j]);
    EXPECT_GT(dense[i][i], off);
  }
}

// Arrow matrices.

TEST(GeneratorsArrow, HoldsTheDiagonalFirstRowAndFirstColumn) {
  const std::int64_t n = 7;
  const auto m = to_map(arrow(n));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) EXPECT_EQ(m.count({i, j}), i == 0 || j == 0 || i == j ? 1u : 0u) << i << ", " << j;
  }
  EXPECT_EQ(arrow(n).nnz(), 3 * n - 2);
}

TEST(GeneratorsArrow, IsSymmetricAndDiagonallyDominantByRows) {
  const Matrix A = arrow(9);
  EXPECT_TRUE(is_symmetric(A));
  const auto dense = to_dense(A);
  for (std::size_t i = 0; i < dense.size(); ++i) {
    double off = 0.0;
    for (std::size_t j = 0; j < dense.size(); ++j) off += i == j ? 0.0 : std::abs(dense[i][j]);
    EXPECT_GT(dense[i][i], off);
  }
}

TEST(GeneratorsArrow, SizesOneAndZero) {
  EXPECT_EQ(arrow(1).nnz(), 1);
  EXPECT_EQ(arrow(0).nnz(), 0);
  EXPECT_EQ(arrow(0).row_map, std::vector<std::int64_t>{0});
}

TEST(GeneratorsArrow, EveryRowOfItsSquareIsFull) {
  const Matrix C = multiply(arrow(6), arrow(6));
  EXPECT_EQ(C.nnz(), 36);
}

// Multigrid prolongators.

TEST(GeneratorsTentativeProlongator, OneEntryPerRowInItsDofsColumn) {
  const Matrix P = tentative_prolongator(5, 2, 2, 3);
  EXPECT_EQ(P.num_rows, 75);
  EXPECT_EQ(P.num_cols, 27);
  for (std::int64_t i = 0; i < P.num_rows; ++i) {
    ASSERT_EQ(row_length(P, i), 1);
    EXPECT_EQ(P.entries[P.row_map[i]] % 3, i % 3);
  }
}

TEST(GeneratorsTentativeProlongator, ColumnsHaveUnitNorm) {
  const Matrix P = tentative_prolongator(7, 3, 3, 2);
  std::vector<double> squares(P.num_cols, 0.0);
  for (std::int64_t k = 0; k < P.nnz(); ++k) squares[P.entries[k]] += P.values[k] * P.values[k];
  for (const double s : squares) EXPECT_NEAR(s, 1.0, 1e-14);
}

TEST(GeneratorsTentativeProlongator, AggregatesAreBoxesOfTheGrid) {
  // 4 x 4 grid, 2 x 2 aggregates: point (x, y) goes to aggregate (y/2)*2 + x/2.
  const Matrix P = tentative_prolongator(4, 2, 2, 1);
  for (std::int64_t y = 0; y < 4; ++y) {
    for (std::int64_t x = 0; x < 4; ++x) EXPECT_EQ(P.entries[y * 4 + x], (y / 2) * 2 + x / 2);
  }
}

TEST(GeneratorsTentativeProlongator, LastAggregateTakesTheRemainder) {
  const Matrix P = tentative_prolongator(5, 1, 2, 1);
  EXPECT_EQ(P.num_cols, 3);
  EXPECT_EQ(P.entries, (std::vector<std::int64_t>{0, 0, 1, 1, 2}));
  EXPECT_EQ(P.values[4], 1.0);
  EXPECT_EQ(P.values[0], 1.0 / std::sqrt(2.0));
}

/// P = (I - omega D^-1 A) P_tent with dense matrices and the textbook loops.
Dense dense_smoothed(const Matrix& A, const Matrix& P_tent, double omega) {
  const Dense a = to_dense(A), p = to_dense(P_tent);
  Dense result = p;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < p[0].size(); ++j) {
      double ap = 0.0;
      for (std::size_t k = 0; k < a.size(); ++k) ap += a[i][k] * p[k][j];
      result[i][j] -= omega / a[i][i] * ap;
    }
  }
  return result;
}

void expect_near_dense(const Matrix& M, const Dense& expected) {
  const Dense got = to_dense(M);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].size(), expected[i].size());
    for (std::size_t j = 0; j < got[i].size(); ++j) EXPECT_NEAR(got[i][j], expected[i][j], 1e-13) << i << ", " << j;
  }
}

TEST(GeneratorsSmoothedProlongator, MatchesDenseComputationOnLaplace2d) {
  const Matrix A = laplace2d(5, 9);
  const Matrix P_tent = tentative_prolongator(5, 2, 2, 1);
  expect_near_dense(jacobi_smoothed_prolongator(A, P_tent), dense_smoothed(A, P_tent, 2.0 / 3.0));
}

TEST(GeneratorsSmoothedProlongator, MatchesDenseComputationOnBrick) {
  const Matrix A = elasticity_brick(3);
  const Matrix P_tent = tentative_prolongator(3, 3, 2, 3);
  expect_near_dense(jacobi_smoothed_prolongator(A, P_tent, 0.5), dense_smoothed(A, P_tent, 0.5));
}

TEST(GeneratorsSmoothedProlongator, StructureIsUnionOfTentativeAndAP) {
  const Matrix A = laplace3d(5);
  const Matrix P_tent = tentative_prolongator(5, 3, 2, 1);
  const Matrix P = jacobi_smoothed_prolongator(A, P_tent);
  auto expected = to_map(P_tent);
  for (const auto& entry : to_map(multiply(A, P_tent))) expected[entry.first] = 0.0;
  ASSERT_EQ(static_cast<std::size_t>(P.nnz()), expected.size());
  for (std::int64_t i = 0; i < P.num_rows; ++i) {
    for (std::int64_t k = P.row_map[i]; k < P.row_map[i + 1]; ++k) EXPECT_EQ(expected.count({i, P.entries[k]}), 1u);
  }
}

TEST(GeneratorsSmoothedProlongator, RejectsMissingDiagonal) {
  const Matrix A = from_triplets(2, 2, {{{1, 1.0}}, {{0, 1.0}, {1, 2.0}}});
  EXPECT_EQ(invalid_input_message([&] { jacobi_smoothed_prolongator(A, tentative_prolongator(2, 1, 2, 1)); }),
            "gustav::generators::jacobi_smoothed_prolongator: A has a zero or missing diagonal in row 0");
}

// Host transpose and product.

TEST(GeneratorsTranspose, TwiceIsTheIdentity) {
  const Matrix A = erdos_renyi(60, 90, 7.0, 4);
  EXPECT_TRUE(same_matrix(transpose(transpose(A)), A));
}

TEST(GeneratorsTranspose, SwapsRowsAndColumns) {
  const Matrix A = from_triplets(2, 3, {{{0, 1.0}, {2, 2.0}}, {{1, 3.0}}});
  const Matrix T = transpose(A);
  EXPECT_EQ(T.num_rows, 3);
  EXPECT_EQ(T.num_cols, 2);
  EXPECT_EQ(T.row_map, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(T.entries, (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(T.values, (std::vector<double>{1.0, 3.0, 2.0}));
}

TEST(GeneratorsMultiply, MatchesNaiveTripleLoop) {
  const Matrix A = erdos_renyi(40, 30, 6.0, 1), B = erdos_renyi(30, 50, 5.0, 2);
  const Dense a = to_dense(A), b = to_dense(B);
  Dense expected(40, std::vector<double>(50, 0.0));
  for (int i = 0; i < 40; ++i) {
    for (int k = 0; k < 30; ++k) {
      for (int j = 0; j < 50; ++j) expected[i][j] += a[i][k] * b[k][j];
    }
  }
  expect_near_dense(multiply(A, B), expected);
}

TEST(GeneratorsMultiply, StructureIsTheBooleanProduct) {
  const Matrix A = erdos_renyi(40, 30, 3.0, 5), B = erdos_renyi(30, 50, 2.0, 6);
  std::map<std::pair<std::int64_t, std::int64_t>, double> expected;
  for (const auto& a : to_map(A)) {
    for (const auto& b : to_map(B)) {
      if (a.first.second == b.first.first) expected[{a.first.first, b.first.second}] = 0.0;
    }
  }
  const Matrix C = multiply(A, B);
  ASSERT_EQ(static_cast<std::size_t>(C.nnz()), expected.size());
  for (std::int64_t i = 0; i < C.num_rows; ++i) {
    for (std::int64_t k = C.row_map[i]; k < C.row_map[i + 1]; ++k) EXPECT_EQ(expected.count({i, C.entries[k]}), 1u);
  }
}

TEST(GeneratorsMultiply, MatchesRecordedFingerprint) {
  // Pins the rounding too: every sum is a chain of explicit fused multiply-adds.
  const Matrix P = jacobi_smoothed_prolongator(laplace3d(6), tentative_prolongator(6, 3, 2, 1));
  EXPECT_EQ(fingerprint(multiply(laplace3d(6), P)), 11683306003556949044u);
}

TEST(GeneratorsMultiply, KeepsExplicitZerosFromCancellation) {
  const Matrix A = from_triplets(1, 2, {{{0, 1.0}, {1, 1.0}}});
  const Matrix B = from_triplets(2, 1, {{{0, 1.0}}, {{0, -1.0}}});
  const Matrix C = multiply(A, B);
  EXPECT_EQ(C.entries, std::vector<std::int64_t>{0});
  EXPECT_EQ(C.values, std::vector<double>{0.0});
}

TEST(GeneratorsMultiply, SumsDuplicateEntriesOfTheInput) {
  const Matrix A = from_triplets(1, 2, {{{1, 2.0}, {0, 1.0}, {1, 3.0}}});
  const Matrix B = from_triplets(2, 2, {{{1, 1.0}}, {{0, 1.0}, {1, 1.0}}});
  const Matrix C = multiply(A, B);
  EXPECT_EQ(C.entries, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(C.values, (std::vector<double>{5.0, 6.0}));
}

TEST(GeneratorsMultiply, RejectsMismatchedShapes) {
  EXPECT_EQ(invalid_input_message([] { multiply(banded(3, 1), banded(4, 1)); }),
            "gustav::generators::multiply: A has 3 columns but B has 4 rows");
}

TEST(GeneratorsMultiply, RejectsColumnOutOfRange) {
  const Matrix A = from_triplets(1, 2, {{{2, 1.0}}});
  EXPECT_EQ(invalid_input_message([&] { multiply(A, banded(2, 0)); }),
            "gustav::generators::multiply: A has column index 2 out of range");
}

// Specs: one test per kind, one per error.

TEST(GeneratorsSpec, Lap2dDefaultsToFivePoints) {
  const Product p = from_spec("lap2d:6");
  EXPECT_EQ(p.name, "lap2d:6:5/aa");
  EXPECT_TRUE(same_matrix(p.A, laplace2d(6, 5)));
  EXPECT_TRUE(same_matrix(p.B, p.A));
}

TEST(GeneratorsSpec, Lap2dNinePoints) {
  const Product p = from_spec("lap2d:6:9/aa");
  EXPECT_EQ(p.name, "lap2d:6:9/aa");
  EXPECT_TRUE(same_matrix(p.A, laplace2d(6, 9)));
}

TEST(GeneratorsSpec, Lap3dDefaultsToSevenPoints) {
  const Product p = from_spec("lap3d:4");
  EXPECT_EQ(p.name, "lap3d:4:7/aa");
  EXPECT_TRUE(same_matrix(p.A, laplace3d(4, 7)));
}

TEST(GeneratorsSpec, Lap3dTwentySevenPoints) { EXPECT_TRUE(same_matrix(from_spec("lap3d:4:27").A, laplace3d(4, 27))); }

TEST(GeneratorsSpec, Brick) {
  const Product p = from_spec("brick:3");
  EXPECT_EQ(p.name, "brick:3/aa");
  EXPECT_TRUE(same_matrix(p.A, elasticity_brick(3)));
}

TEST(GeneratorsSpec, RmatDefaultsToSeedOne) {
  const Product p = from_spec("rmat:8:4");
  EXPECT_EQ(p.name, "rmat:8:4:1/aa");
  EXPECT_TRUE(same_matrix(p.A, rmat_of(8, 4, 1)));
}

TEST(GeneratorsSpec, RmatWithSeed) {
  const Product p = from_spec("rmat:8:4:99");
  EXPECT_EQ(p.name, "rmat:8:4:99/aa");
  EXPECT_TRUE(same_matrix(p.A, rmat_of(8, 4, 99)));
}

TEST(GeneratorsSpec, ErdosRenyiIsSquare) {
  const Product p = from_spec("er:100:2.50:9");
  EXPECT_EQ(p.name, "er:100:2.5:9/aa");
  EXPECT_TRUE(same_matrix(p.A, erdos_renyi(100, 100, 2.5, 9)));
}

TEST(GeneratorsSpec, ErdosRenyiDefaultsToSeedOne) { EXPECT_EQ(from_spec("er:100:3").name, "er:100:3:1/aa"); }

TEST(GeneratorsSpec, Band) {
  const Product p = from_spec("band:20:3");
  EXPECT_EQ(p.name, "band:20:3/aa");
  EXPECT_TRUE(same_matrix(p.A, banded(20, 3)));
}

TEST(GeneratorsSpec, Arrow) {
  const Product p = from_spec("arrow:012");
  EXPECT_EQ(p.name, "arrow:12/aa");
  EXPECT_TRUE(same_matrix(p.A, arrow(12)));
}

TEST(GeneratorsSpec, NameDropsLeadingZeros) { EXPECT_EQ(from_spec("lap3d:004:27/rap:02").name, "lap3d:4:27/rap:2"); }

TEST(GeneratorsSpec, ApDefaultsToAggregatesOfTwo) {
  const Product p = from_spec("lap2d:6/ap");
  EXPECT_EQ(p.name, "lap2d:6:5/ap:2");
  EXPECT_TRUE(same_matrix(p.A, laplace2d(6)));
  EXPECT_TRUE(same_matrix(p.B, jacobi_smoothed_prolongator(laplace2d(6), tentative_prolongator(6, 2, 2, 1))));
}

TEST(GeneratorsSpec, ApOnBrickHasThreeDofsPerNode) {
  const Product p = from_spec("brick:4/ap:3");
  EXPECT_EQ(p.B.num_rows, 192);
  EXPECT_EQ(p.B.num_cols, 3 * 8);
  EXPECT_TRUE(same_matrix(p.B, jacobi_smoothed_prolongator(elasticity_brick(4), tentative_prolongator(4, 3, 3, 3))));
}

TEST(GeneratorsSpec, RapIsTransposeOfPTimesAP) {
  const Product p = from_spec("lap3d:5/rap");
  EXPECT_EQ(p.name, "lap3d:5:7/rap:2");
  const Matrix P = jacobi_smoothed_prolongator(laplace3d(5), tentative_prolongator(5, 3, 2, 1));
  EXPECT_TRUE(same_matrix(p.A, transpose(P)));
  EXPECT_TRUE(same_matrix(p.B, multiply(laplace3d(5), P)));
  EXPECT_EQ(p.A.num_rows, 27);
  EXPECT_EQ(p.B.num_cols, 27);
}

TEST(GeneratorsSpec, RejectsEmptySpec) { EXPECT_EQ(spec_error(""), spec_message("", "empty spec")); }

TEST(GeneratorsSpec, RejectsUnknownKind) {
  EXPECT_EQ(spec_error("lap4d:3"),
            spec_message("lap4d:3", "unknown matrix kind \"lap4d\" (expected lap2d, lap3d, brick, rmat, er, band or arrow)"));
}

TEST(GeneratorsSpec, RejectsMissingSize) {
  EXPECT_EQ(spec_error("lap2d"), spec_message("lap2d", "expected lap2d:N[:5|9]"));
}

TEST(GeneratorsSpec, RejectsExtraField) {
  EXPECT_EQ(spec_error("brick:3:4"), spec_message("brick:3:4", "expected brick:N"));
}

TEST(GeneratorsSpec, RejectsNonNumericSize) {
  EXPECT_EQ(spec_error("lap3d:abc"), spec_message("lap3d:abc", "N must be an unsigned decimal integer, got \"abc\""));
}

TEST(GeneratorsSpec, RejectsNegativeSize) {
  EXPECT_EQ(spec_error("lap3d:-3"), spec_message("lap3d:-3", "N must be an unsigned decimal integer, got \"-3\""));
}

TEST(GeneratorsSpec, RejectsEmptyField) {
  EXPECT_EQ(spec_error("lap2d::5"), spec_message("lap2d::5", "N must be an unsigned decimal integer, got \"\""));
}

TEST(GeneratorsSpec, RejectsZeroSize) {
  EXPECT_EQ(spec_error("band:0:1"), spec_message("band:0:1", "N must be at least 1, got 0"));
}

TEST(GeneratorsSpec, RejectsSizeBeyondInt64) {
  EXPECT_EQ(spec_error("lap2d:99999999999999999999"),
            spec_message("lap2d:99999999999999999999", "N does not fit in 64 bits, got 99999999999999999999"));
}

TEST(GeneratorsSpec, RejectsLap2dStencilOtherThanFiveOrNine) {
  EXPECT_EQ(spec_error("lap2d:4:7"), spec_message("lap2d:4:7", "points must be 5 or 9, got 7"));
}

TEST(GeneratorsSpec, RejectsLap3dStencilOtherThanSevenOrTwentySeven) {
  EXPECT_EQ(spec_error("lap3d:4:9"), spec_message("lap3d:4:9", "points must be 7 or 27, got 9"));
}

TEST(GeneratorsSpec, RejectsRmatWithoutEdgeFactor) {
  EXPECT_EQ(spec_error("rmat:10"), spec_message("rmat:10", "expected rmat:SCALE:EF[:SEED]"));
}

TEST(GeneratorsSpec, RejectsScaleAbove40) {
  EXPECT_EQ(spec_error("rmat:41:8"), spec_message("rmat:41:8", "SCALE must be between 1 and 40, got 41"));
}

TEST(GeneratorsSpec, RejectsScaleZero) {
  EXPECT_EQ(spec_error("rmat:0:8"), spec_message("rmat:0:8", "SCALE must be between 1 and 40, got 0"));
}

TEST(GeneratorsSpec, RejectsZeroEdgeFactor) {
  EXPECT_EQ(spec_error("rmat:10:0"), spec_message("rmat:10:0", "EF must be between 1 and 2147483647, got 0"));
}

TEST(GeneratorsSpec, RejectsSeedBeyond64Bits) {
  EXPECT_EQ(spec_error("rmat:10:8:18446744073709551616"),
            spec_message("rmat:10:8:18446744073709551616", "SEED does not fit in 64 bits, got 18446744073709551616"));
}

TEST(GeneratorsSpec, RejectsNonNumericSeed) {
  EXPECT_EQ(spec_error("er:10:2:x"), spec_message("er:10:2:x", "SEED must be an unsigned decimal integer, got \"x\""));
}

TEST(GeneratorsSpec, RejectsGraphTooLarge) {
  EXPECT_EQ(spec_error("rmat:40:8"),
            spec_message("rmat:40:8",
                         "gustav::generators::rmat: rows would be 1099511627776, beyond the limit of 2^36 "
                         "(gustav::generators::max_entries)"));
}

TEST(GeneratorsSpec, RejectsGridTooLarge) {
  EXPECT_EQ(spec_error("lap3d:5000"),
            spec_message("lap3d:5000",
                         "gustav::generators::laplace3d: grid points would exceed the limit of 2^36 "
                         "(gustav::generators::max_entries)"));
}

TEST(GeneratorsSpec, RejectsAverageWithExponent) {
  EXPECT_EQ(spec_error("er:100:1e3"),
            spec_message("er:100:1e3", "AVG must be a decimal number such as 4 or 2.5, got \"1e3\""));
}

TEST(GeneratorsSpec, RejectsZeroAverage) {
  EXPECT_EQ(spec_error("er:100:0.0"), spec_message("er:100:0.0", "AVG must be positive and at most N = 100, got 0.0"));
}

TEST(GeneratorsSpec, RejectsAverageAboveSize) {
  EXPECT_EQ(spec_error("er:10:11"), spec_message("er:10:11", "AVG must be positive and at most N = 10, got 11"));
}

TEST(GeneratorsSpec, RejectsMissingHalfBandwidth) {
  EXPECT_EQ(spec_error("band:10"), spec_message("band:10", "expected band:N:HALF"));
}

TEST(GeneratorsSpec, RejectsNegativeHalfBandwidth) {
  EXPECT_EQ(spec_error("band:10:-1"),
            spec_message("band:10:-1", "HALF must be an unsigned decimal integer, got \"-1\""));
}

TEST(GeneratorsSpec, RejectsUnknownProduct) {
  EXPECT_EQ(spec_error("lap2d:4/ab"),
            spec_message("lap2d:4/ab", "unknown product \"ab\" (expected aa, ap[:AGG] or rap[:AGG])"));
}

TEST(GeneratorsSpec, RejectsEmptyProduct) {
  EXPECT_EQ(spec_error("lap2d:4/"),
            spec_message("lap2d:4/", "unknown product \"\" (expected aa, ap[:AGG] or rap[:AGG])"));
}

TEST(GeneratorsSpec, RejectsArgumentToAa) {
  EXPECT_EQ(spec_error("lap2d:4/aa:2"), spec_message("lap2d:4/aa:2", "expected /aa"));
}

TEST(GeneratorsSpec, RejectsExtraProductField) {
  EXPECT_EQ(spec_error("lap2d:4/rap:2:3"), spec_message("lap2d:4/rap:2:3", "expected /rap[:AGG]"));
}

TEST(GeneratorsSpec, RejectsZeroAggregate) {
  EXPECT_EQ(spec_error("lap2d:4/ap:0"), spec_message("lap2d:4/ap:0", "AGG must be between 1 and 2147483647, got 0"));
}

TEST(GeneratorsSpec, RejectsApOnRmat) {
  EXPECT_EQ(spec_error("rmat:10:8/ap"),
            spec_message("rmat:10:8/ap", "/ap needs a grid matrix (lap2d, lap3d or brick), not rmat"));
}

TEST(GeneratorsSpec, RejectsRapOnErdosRenyi) {
  EXPECT_EQ(spec_error("er:10:2/rap:2"),
            spec_message("er:10:2/rap:2", "/rap needs a grid matrix (lap2d, lap3d or brick), not er"));
}

TEST(GeneratorsSpec, RejectsApOnBand) {
  EXPECT_EQ(spec_error("band:10:2/ap"),
            spec_message("band:10:2/ap", "/ap needs a grid matrix (lap2d, lap3d or brick), not band"));
}

TEST(GeneratorsSpec, RejectsTwoProducts) {
  EXPECT_EQ(spec_error("lap2d:4/aa/aa"), spec_message("lap2d:4/aa/aa", "more than one \"/\""));
}

}  // namespace
}  // namespace gustav::generators
