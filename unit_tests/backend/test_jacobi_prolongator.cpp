// P = (I - omega D^-1 A) * P_tent (gustav::jacobi_prolongator) against a
// host computation of the formula row by row: random and rectangular
// operands, unsorted rows with duplicate diagonal entries, the numeric-only
// path after A's values change, raw views, empty aggregates, zero-sized
// matrices, the generators' smoothed prolongator, and the error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/generators.hpp"
#include "gustav/host_csr.hpp"
#include "gustav/jacobi_prolongator.hpp"
#include "support/check_product.hpp"
#include "support/random_csr.hpp"
#include "support/reference_spgemm.hpp"
#include "support/test_configs.hpp"
#include "support/test_space.hpp"
#include "support/host_copy.hpp"

namespace gustav::test {
namespace {

/// Obviously right: d_i is the sum of row i's diagonal entries, and row i of
/// P is P_tent(i, :) - (omega / d_i) * sum over k of A(i, k) * P_tent(k, :).
/// Each entry keeps the magnitudes and number of its terms for the rounding
/// bound of check_product.
template <class S, class O, class Z>
std::vector<ReferenceRow<S>> reference_jacobi(const HostCsr<S, O, Z>& A, const HostCsr<S, O, Z>& P_tent, S omega) {
  std::vector<ReferenceRow<S>> P(static_cast<std::size_t>(A.num_rows));
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(A.num_rows); ++i) {
    typename Wide<S>::type d{};
    for (Z k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (static_cast<std::int64_t>(A.entries[k]) == i) d += widen(A.values[k]);
    for (Z p = P_tent.row_map[i]; p < P_tent.row_map[i + 1]; ++p) {
      auto& e = P[i][static_cast<std::int64_t>(P_tent.entries[p])];
      e.value += widen(P_tent.values[p]);
      e.magnitude += std::abs(widen(P_tent.values[p]));
      e.terms += 1;
    }
    for (Z k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const auto m = -widen(omega) * widen(A.values[k]) / d;
      const auto row = static_cast<std::int64_t>(A.entries[k]);
      for (Z p = P_tent.row_map[row]; p < P_tent.row_map[row + 1]; ++p) {
        auto& e = P[i][static_cast<std::int64_t>(P_tent.entries[p])];
        e.value += m * widen(P_tent.values[p]);
        e.magnitude += std::abs(m * widen(P_tent.values[p]));
        e.terms += 1;
      }
    }
  }
  return P;
}

template <class C>
class JacobiProlongator : public ::testing::Test {
 protected:
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;
  using Matrix = typename C::matrix;
  using Host = typename C::host;

  TestSpace space;
  const S omega = S(2.0 / 3.0);

  Matrix device(const Host& h) { return to_crs<Matrix>(space, h); }
  static Host host(const Matrix& m) { return to_host_csr<S, O, Z>(m); }

  Host random(std::int64_t rows, std::int64_t cols, double avg, std::uint64_t seed, RandomShape shape = {}) {
    shape.rows = rows;
    shape.cols = cols;
    shape.avg_per_row = avg;
    return random_csr<S, O, Z>(shape, seed);
  }

  /// A random square matrix whose rows all hold their diagonal, appended
  /// (so out of order) where the random structure has none, and, in every
  /// `twice`-th row, a second diagonal entry. Diagonal values have a real
  /// part of at least 2, so no diagonal sum comes near zero.
  Host with_diagonal(std::int64_t n, double avg, std::uint64_t seed, RandomShape shape = {}, std::int64_t twice = 0) {
    const Host R = random(n, n, avg, seed, shape);
    Rng rng(seed + 1000);
    Host A;
    A.num_rows = A.num_cols = static_cast<O>(n);
    auto push = [&](std::int64_t col, S value) {
      A.entries.push_back(static_cast<O>(col));
      A.values.push_back(value);
    };
    auto diagonal_value = [&] { return random_value<S>(rng) + S(3); };
    for (std::int64_t i = 0; i < n; ++i) {
      bool has = false;
      for (Z k = R.row_map[i]; k < R.row_map[i + 1]; ++k) {
        const bool diagonal = static_cast<std::int64_t>(R.entries[k]) == i;
        has = has || diagonal;
        push(R.entries[k], diagonal ? diagonal_value() : R.values[k]);
      }
      if (!has) push(i, diagonal_value());
      if (twice > 0 && i % twice == 0) push(i, diagonal_value());
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
    }
    return A;
  }

  /// New values for A, diagonal kept away from zero as in with_diagonal.
  static Host with_new_values(Host A, std::uint64_t seed) {
    Rng rng(seed);
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(A.num_rows); ++i)
      for (Z k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        A.values[k] = random_value<S>(rng) + (static_cast<std::int64_t>(A.entries[k]) == i ? S(3) : S(0));
    return A;
  }

  /// Tentative prolongator: row i in column aggregate_of[i], value 1.
  static Host tentative(const std::vector<std::int64_t>& aggregate_of, std::int64_t columns) {
    Host P;
    P.num_rows = static_cast<O>(aggregate_of.size());
    P.num_cols = static_cast<O>(columns);
    for (const auto a : aggregate_of) {
      P.entries.push_back(static_cast<O>(a));
      P.values.push_back(S(1));
      P.row_map.push_back(static_cast<Z>(P.entries.size()));
    }
    return P;
  }

  ::testing::AssertionResult matches(const Host& P, const Host& A, const Host& P_tent) {
    return matches_reference<S>(P, reference_jacobi(A, P_tent, omega), true);
  }
};

using JacobiConfigs = ConfigsOrFirst<Config<double, int, int>, Config<Kokkos::complex<double>, int, std::int64_t>>;
TYPED_TEST_SUITE(JacobiProlongator, JacobiConfigs, ConfigNames);

TYPED_TEST(JacobiProlongator, AggregationProlongatorMatchesHost) {
  std::vector<std::int64_t> aggregate_of;
  for (std::int64_t i = 0; i < 120; ++i) aggregate_of.push_back(i / 6);
  const auto P_tent = TestFixture::tentative(aggregate_of, 20);
  const auto A = this->with_diagonal(120, 5, 1);
  const auto [plan, P] = jacobi_prolongator(this->space, this->omega, this->device(A), this->device(P_tent));
  EXPECT_EQ(plan.num_rows(), 120);
  EXPECT_EQ(plan.num_cols(), 20);
  EXPECT_TRUE(this->matches(this->host(P), A, P_tent));
}

TYPED_TEST(JacobiProlongator, RandomRectangularTentativeMatchesHost) {
  const auto P_tent = this->random(90, 37, 3, 2);
  const auto A = this->with_diagonal(90, 6, 3);
  const auto result = jacobi_prolongator(this->space, this->omega, this->device(A), this->device(P_tent));
  EXPECT_TRUE(this->matches(this->host(result.P), A, P_tent));
}

TYPED_TEST(JacobiProlongator, UnsortedRowsWithDuplicateDiagonals) {
  RandomShape messy;
  messy.sorted = false;
  messy.duplicates = true;
  const auto P_tent = this->random(70, 30, 2, 4, messy);
  const auto A = this->with_diagonal(70, 6, 5, messy, 3);
  const auto result = jacobi_prolongator(this->space, this->omega, this->device(A), this->device(P_tent));
  EXPECT_TRUE(this->matches(this->host(result.P), A, P_tent));
}

TYPED_TEST(JacobiProlongator, NumericOnlyAfterValueChangeEqualsRecomputing) {
  std::vector<std::int64_t> aggregate_of;
  for (std::int64_t i = 0; i < 100; ++i) aggregate_of.push_back((i * 7) % 25);
  const auto P_tent = this->device(TestFixture::tentative(aggregate_of, 25));
  const auto A = this->with_diagonal(100, 6, 6);
  auto [plan, P] = jacobi_prolongator(this->space, this->omega, this->device(A), P_tent);
  const auto A2 = TestFixture::with_new_values(A, 7);
  const auto dA2 = this->device(A2);
  jacobi_prolongator_numeric(this->space, plan, this->omega, dA2, P_tent, P);
  const auto reused = this->host(P);
  const auto fresh = this->host(jacobi_prolongator(this->space, this->omega, dA2, P_tent).P);
  EXPECT_EQ(reused.row_map, fresh.row_map);
  EXPECT_EQ(reused.entries, fresh.entries);
  EXPECT_TRUE(this->matches(reused, A2, TestFixture::host(P_tent)));
  EXPECT_TRUE(this->matches(fresh, A2, TestFixture::host(P_tent)));
}

TYPED_TEST(JacobiProlongator, SymbolicThenNumericWithAnotherOmega) {
  const auto P_tent = this->random(60, 15, 2, 8);
  const auto A = this->with_diagonal(60, 5, 9);
  const auto plan = jacobi_prolongator_symbolic(this->space, this->device(A), this->device(P_tent));
  const typename TestFixture::S omega(0.5);
  const auto P = jacobi_prolongator_numeric(this->space, plan, omega, this->device(A), this->device(P_tent));
  EXPECT_TRUE(matches_reference<typename TestFixture::S>(this->host(P), reference_jacobi(A, P_tent, omega), true));
}

TYPED_TEST(JacobiProlongator, RawViewsInAndOut) {
  using TF = TestFixture;
  const auto P_tent = this->random(50, 12, 2, 10);
  const auto A = this->with_diagonal(50, 5, 11);
  const auto dA = this->device(A), dP = this->device(P_tent);
  auto ref = [](const typename TF::Matrix& m) {
    return make_csr_ref(m.numRows(), m.numCols(), m.graph.row_map, m.graph.entries, m.values);
  };
  const auto [plan, P] = jacobi_prolongator(this->space, this->omega, ref(dA), ref(dP));
  EXPECT_TRUE(this->matches(host_copy<typename TF::S, typename TF::O, typename TF::Z>(P), A, P_tent));

  const auto A2 = TF::with_new_values(A, 12);
  const auto dA2 = this->device(A2);
  jacobi_prolongator_numeric(this->space, plan, this->omega, ref(dA2), ref(dP), P.values);
  EXPECT_TRUE(this->matches(host_copy<typename TF::S, typename TF::O, typename TF::Z>(P), A2, P_tent));
}

TYPED_TEST(JacobiProlongator, EmptyAggregatesStayEmptyColumns) {
  std::vector<std::int64_t> aggregate_of;
  for (std::int64_t i = 0; i < 64; ++i) aggregate_of.push_back(2 * (i / 8));  // odd columns unused
  const auto P_tent = TestFixture::tentative(aggregate_of, 16);
  const auto A = this->with_diagonal(64, 4, 13);
  const auto [plan, P] = jacobi_prolongator(this->space, this->omega, this->device(A), this->device(P_tent));
  const auto h = this->host(P);
  EXPECT_TRUE(this->matches(h, A, P_tent));
  for (const auto c : h.entries) EXPECT_EQ(static_cast<std::int64_t>(c) % 2, 0);
}

TYPED_TEST(JacobiProlongator, EmptyFineLevel) {
  const auto A = this->random(0, 0, 1, 14);
  const auto P_tent = this->random(0, 4, 1, 15);
  const auto [plan, P] = jacobi_prolongator(this->space, this->omega, this->device(A), this->device(P_tent));
  EXPECT_EQ(P.numRows(), 0);
  EXPECT_EQ(P.numCols(), 4);
  EXPECT_EQ(P.nnz(), 0);
}

TYPED_TEST(JacobiProlongator, NoCoarseColumns) {
  const auto A = this->with_diagonal(20, 3, 16);
  const auto P_tent = this->random(20, 0, 1, 17);
  auto [plan, P] = jacobi_prolongator(this->space, this->omega, this->device(A), this->device(P_tent));
  EXPECT_EQ(P.numRows(), 20);
  EXPECT_EQ(P.numCols(), 0);
  EXPECT_EQ(P.nnz(), 0);
  jacobi_prolongator_numeric(this->space, plan, this->omega, this->device(A), this->device(P_tent), P);
  EXPECT_TRUE(this->matches(this->host(P), A, P_tent));
}

TYPED_TEST(JacobiProlongator, MatchesGeneratorsOnLaplacian) {
  // The generators' host version of the same formula, in double (converted
  // to the configuration's scalar type on the way in).
  using S = typename TestFixture::S;
  using Matrix = typename TestFixture::Matrix;
  const auto A = generators::laplace3d(7);
  const auto P_tent = generators::tentative_prolongator(7, 3, 2, 1);
  const auto expected = generators::jacobi_smoothed_prolongator(A, P_tent, 2.0 / 3.0);
  const auto [plan, P] =
      jacobi_prolongator(this->space, this->omega, to_crs<Matrix>(this->space, A), to_crs<Matrix>(this->space, P_tent));
  const auto got = this->host(P);
  ASSERT_EQ(got.row_map.size(), expected.row_map.size());
  for (std::size_t i = 0; i < got.row_map.size(); ++i)
    ASSERT_EQ(static_cast<std::int64_t>(got.row_map[i]), expected.row_map[i]) << i;
  for (std::size_t p = 0; p < got.entries.size(); ++p) {
    ASSERT_EQ(static_cast<std::int64_t>(got.entries[p]), expected.entries[p]) << p;
    EXPECT_LE(std::abs(widen(got.values[p]) - widen(S(expected.values[p]))), 1e-14L) << p;
  }
}

TYPED_TEST(JacobiProlongator, MissingDiagonalNamesTheRow) {
  auto A = this->with_diagonal(30, 4, 18);
  // Move row 7's diagonal entries off the diagonal.
  for (auto k = A.row_map[7]; k < A.row_map[8]; ++k)
    if (A.entries[k] == 7) A.entries[k] = 29;
  const auto dA = this->device(A);
  const auto dP = this->device(this->random(30, 5, 1, 19));
  const auto what =
      message_of<invalid_input>([&] { jacobi_prolongator(this->space, this->omega, dA, dP); });
  EXPECT_NE(what.find("gustav::jacobi_prolongator: A has no diagonal entry in row 7"), std::string::npos) << what;
}

TYPED_TEST(JacobiProlongator, ZeroDiagonalNamesTheRow) {
  auto A = this->with_diagonal(30, 4, 20);
  const auto dP = this->device(this->random(30, 5, 1, 21));
  const auto plan = jacobi_prolongator_symbolic(this->space, this->device(A), dP);
  for (auto k = A.row_map[12]; k < A.row_map[13]; ++k)
    if (A.entries[k] == 12) A.values[k] = typename TestFixture::S(0);
  const auto dA = this->device(A);
  const auto what = message_of<invalid_input>(
      [&] { jacobi_prolongator_numeric(this->space, plan, this->omega, dA, dP); });
  EXPECT_NE(what.find("gustav::jacobi_prolongator_numeric: A has a zero diagonal in row 12"), std::string::npos)
      << what;
}

TYPED_TEST(JacobiProlongator, RejectsRectangularA) {
  const auto A = this->device(this->random(10, 12, 3, 22));
  const auto P_tent = this->device(this->random(12, 4, 1, 23));
  const auto what = message_of<invalid_input>([&] { jacobi_prolongator(this->space, this->omega, A, P_tent); });
  EXPECT_EQ(what, "gustav::jacobi_prolongator: A must be square, it is 10 x 12");
}

TYPED_TEST(JacobiProlongator, ShapeMismatchOfAAndTentative) {
  const auto A = this->device(this->with_diagonal(10, 3, 24));
  const auto P_tent = this->device(this->random(9, 4, 1, 25));
  const auto what =
      message_of<invalid_input>([&] { jacobi_prolongator_symbolic(this->space, A, P_tent); });
  EXPECT_EQ(what, "gustav::jacobi_prolongator_symbolic: A has 10 columns but P_tent has 9 rows");
}

TYPED_TEST(JacobiProlongator, NumericRefusesAnotherTentative) {
  const auto A = this->device(this->with_diagonal(40, 4, 26));
  const auto plan = jacobi_prolongator_symbolic(this->space, A, this->device(this->random(40, 8, 2, 27)));
  const auto other = this->device(this->random(40, 9, 2, 28));
  const auto what = message_of<plan_mismatch>(
      [&] { jacobi_prolongator_numeric(this->space, plan, this->omega, A, other); });
  EXPECT_NE(what.find("gustav::jacobi_prolongator_numeric: P_tent is 40 x 9"), std::string::npos) << what;
}

}  // namespace
}  // namespace gustav::test
