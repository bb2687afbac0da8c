// Ac = R * A * P (gustav::triple_product and gustav::galerkin_product)
// against the serial reference product applied twice: rectangular shapes,
// unsorted and duplicate input, the numeric-only path after values change,
// raw views, empty aggregates, zero-sized matrices and the error messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "gustav/triple_product.hpp"
#include "support/check_product.hpp"
#include "support/random_csr.hpp"
#include "support/reference_spgemm.hpp"
#include "support/test_configs.hpp"
#include "support/test_space.hpp"
#include "support/host_copy.hpp"
#include "support/new_values.hpp"

namespace gustav::test {
namespace {

/// R * AP for a reference AP: each entry keeps the sum of the magnitudes of
/// its products and their number, so that check_product's rounding bound
/// covers the error carried in from AP as well.
template <class S, class O, class Z>
std::vector<ReferenceRow<S>> reference_times(const HostCsr<S, O, Z>& R, const std::vector<ReferenceRow<S>>& AP) {
  std::vector<ReferenceRow<S>> C(static_cast<std::size_t>(R.num_rows));
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(R.num_rows); ++i) {
    for (Z j = R.row_map[i]; j < R.row_map[i + 1]; ++j) {
      const auto r = widen(R.values[j]);
      for (const auto& [col, ap] : AP[static_cast<std::size_t>(R.entries[j])]) {
        auto& e = C[i][col];
        e.value += r * ap.value;
        e.magnitude += std::abs(r) * ap.magnitude;
        e.terms += ap.terms;
      }
    }
  }
  return C;
}

template <class S, class O, class Z>
std::vector<ReferenceRow<S>> reference_triple(const HostCsr<S, O, Z>& R, const HostCsr<S, O, Z>& A,
                                              const HostCsr<S, O, Z>& P) {
  return reference_times(R, reference_multiply(A, P));
}

template <class C>
class TripleProduct : public ::testing::Test {
 protected:
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;
  using Matrix = typename C::matrix;
  using Host = typename C::host;

  TestSpace space;

  Matrix device(const Host& h) { return to_crs<Matrix>(space, h); }
  static Host host(const Matrix& m) { return to_host_csr<S, O, Z>(m); }

  Host random(std::int64_t rows, std::int64_t cols, double avg, std::uint64_t seed, RandomShape shape = {}) {
    shape.rows = rows;
    shape.cols = cols;
    shape.avg_per_row = avg;
    return random_csr<S, O, Z>(shape, seed);
  }

  /// A tentative prolongator: row i in column aggregate_of[i] (or no entry
  /// for -1), `columns` columns, values away from zero.
  static Host prolongator(const std::vector<std::int64_t>& aggregate_of, std::int64_t columns, std::uint64_t seed) {
    Rng rng(seed);
    Host P;
    P.num_rows = static_cast<O>(aggregate_of.size());
    P.num_cols = static_cast<O>(columns);
    for (const auto a : aggregate_of) {
      if (a >= 0) {
        P.entries.push_back(static_cast<O>(a));
        P.values.push_back(random_value<S>(rng));
      }
      P.row_map.push_back(static_cast<Z>(P.entries.size()));
    }
    return P;
  }

  ::testing::AssertionResult matches(const Host& Ac, const Host& R, const Host& A, const Host& P) {
    return matches_reference<S>(Ac, reference_triple(R, A, P), true);
  }
};

using TripleConfigs = ConfigsOrFirst<Config<double, int, int>, Config<double, std::int64_t, std::size_t>>;
TYPED_TEST_SUITE(TripleProduct, TripleConfigs, ConfigNames);

TYPED_TEST(TripleProduct, RandomRectangularShapes) {
  const auto R = this->random(23, 41, 5, 1);
  const auto A = this->random(41, 57, 6, 2);
  const auto P = this->random(57, 19, 3, 3);
  const auto [plan, Ac] = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  EXPECT_EQ(plan.num_rows(), 23);
  EXPECT_EQ(plan.num_cols(), 19);
  EXPECT_TRUE(this->matches(this->host(Ac), R, A, P));
}

TYPED_TEST(TripleProduct, UnsortedRowsWithDuplicates) {
  RandomShape messy;
  messy.sorted = false;
  messy.duplicates = true;
  const auto R = this->random(30, 70, 6, 4, messy);
  const auto A = this->random(70, 70, 7, 5, messy);
  const auto P = this->random(70, 25, 3, 6, messy);
  const auto result = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  EXPECT_TRUE(this->matches(this->host(result.Ac), R, A, P));
}

TYPED_TEST(TripleProduct, NumericOnlyAfterValueChangeEqualsRecomputing) {
  const auto R = this->random(40, 90, 5, 7);
  const auto A = this->random(90, 90, 7, 8);
  const auto P = this->random(90, 40, 3, 9);
  const auto dR = this->device(R), dP = this->device(P);
  auto [plan, Ac] = triple_product(this->space, dR, this->device(A), dP);
  const auto A2 = with_new_values(A, 10);
  const auto dA2 = this->device(A2);
  triple_product_numeric(this->space, plan, dR, dA2, dP, Ac);
  const auto reused = this->host(Ac);
  const auto fresh = this->host(triple_product(this->space, dR, dA2, dP).Ac);
  EXPECT_EQ(reused.row_map, fresh.row_map);
  EXPECT_EQ(reused.entries, fresh.entries);
  EXPECT_TRUE(this->matches(reused, R, A2, P));
  EXPECT_TRUE(this->matches(fresh, R, A2, P));
}

TYPED_TEST(TripleProduct, NumericOnlyWithNewValuesInEveryOperand) {
  const auto R = this->random(35, 80, 5, 11);
  const auto A = this->random(80, 80, 6, 12);
  const auto P = this->random(80, 35, 3, 13);
  const auto plan = triple_product_symbolic(this->space, this->device(R), this->device(A), this->device(P));
  for (std::uint64_t round = 0; round < 2; ++round) {
    const auto R2 = with_new_values(R, 20 + round);
    const auto A2 = with_new_values(A, 30 + round);
    const auto P2 = with_new_values(P, 40 + round);
    const auto Ac = triple_product_numeric(this->space, plan, this->device(R2), this->device(A2), this->device(P2));
    EXPECT_TRUE(this->matches(this->host(Ac), R2, A2, P2)) << "round " << round;
  }
}

TYPED_TEST(TripleProduct, RawViewsInAndOut) {
  using TF = TestFixture;
  const auto R = this->random(20, 50, 4, 14);
  const auto A = this->random(50, 50, 5, 15);
  const auto P = this->random(50, 20, 2, 16);
  const auto dR = this->device(R), dA = this->device(A), dP = this->device(P);
  auto ref = [](const typename TF::Matrix& m) {
    return make_csr_ref(m.numRows(), m.numCols(), m.graph.row_map, m.graph.entries, m.values);
  };
  const auto [plan, Ac] = triple_product(this->space, ref(dR), ref(dA), ref(dP));
  EXPECT_TRUE(this->matches(host_copy<typename TF::S, typename TF::O, typename TF::Z>(Ac), R, A, P));

  const auto A2 = with_new_values(A, 17);
  const auto dA2 = this->device(A2);
  triple_product_numeric(this->space, plan, ref(dR), ref(dA2), ref(dP), Ac.values);
  EXPECT_TRUE(this->matches(host_copy<typename TF::S, typename TF::O, typename TF::Z>(Ac), R, A2, P));
}

TYPED_TEST(TripleProduct, EmptyAggregatesGiveEmptyRowsAndColumns) {
  // Aggregates 1, 4 and 6 own no fine row: empty columns of P, empty rows of R = P^T.
  std::vector<std::int64_t> aggregate_of;
  for (std::int64_t i = 0; i < 60; ++i) aggregate_of.push_back(std::vector<std::int64_t>{0, 2, 3, 5, 7}[i % 5]);
  const auto P = TestFixture::prolongator(aggregate_of, 8, 18);
  const auto R = reference_transpose(P);
  const auto A = this->random(60, 60, 6, 19);
  const auto [plan, Ac] = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  const auto h = this->host(Ac);
  EXPECT_TRUE(this->matches(h, R, A, P));
  for (const std::int64_t empty : {1, 4, 6}) {
    EXPECT_EQ(h.row_map[empty + 1], h.row_map[empty]) << "row " << empty;
    for (const auto c : h.entries) EXPECT_NE(static_cast<std::int64_t>(c), empty);
  }
}

TYPED_TEST(TripleProduct, FineRowsInNoAggregate) {
  // Every third fine row belongs to no aggregate: empty rows of P.
  std::vector<std::int64_t> aggregate_of;
  for (std::int64_t i = 0; i < 45; ++i) aggregate_of.push_back(i % 3 == 0 ? -1 : i / 5);
  const auto P = TestFixture::prolongator(aggregate_of, 9, 20);
  const auto R = reference_transpose(P);
  const auto A = this->random(45, 45, 5, 21);
  const auto result = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  EXPECT_TRUE(this->matches(this->host(result.Ac), R, A, P));
}

TYPED_TEST(TripleProduct, NoCoarseRows) {
  const auto R = this->random(0, 30, 3, 22);
  const auto A = this->random(30, 30, 4, 23);
  const auto P = this->random(30, 10, 2, 24);
  const auto [plan, Ac] = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  EXPECT_EQ(Ac.numRows(), 0);
  EXPECT_EQ(Ac.numCols(), 10);
  EXPECT_TRUE(this->matches(this->host(Ac), R, A, P));
}

TYPED_TEST(TripleProduct, NoCoarseColumns) {
  const auto R = this->random(10, 30, 3, 25);
  const auto A = this->random(30, 30, 4, 26);
  const auto P = this->random(30, 0, 2, 27);
  const auto [plan, Ac] = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  EXPECT_EQ(Ac.numRows(), 10);
  EXPECT_EQ(Ac.numCols(), 0);
  EXPECT_EQ(Ac.nnz(), 0);
  EXPECT_TRUE(this->matches(this->host(Ac), R, A, P));
}

TYPED_TEST(TripleProduct, EmptyFineLevel) {
  const auto R = this->random(7, 0, 3, 28);
  const auto A = this->random(0, 0, 3, 29);
  const auto P = this->random(0, 5, 3, 30);
  auto [plan, Ac] = triple_product(this->space, this->device(R), this->device(A), this->device(P));
  EXPECT_EQ(Ac.numRows(), 7);
  EXPECT_EQ(Ac.numCols(), 5);
  EXPECT_EQ(Ac.nnz(), 0);
  triple_product_numeric(this->space, plan, this->device(R), this->device(A), this->device(P), Ac);
  EXPECT_TRUE(this->matches(this->host(Ac), R, A, P));
}

TYPED_TEST(TripleProduct, ShapeMismatchOfRAndA) {
  const auto R = this->device(this->random(10, 31, 3, 31));
  const auto A = this->device(this->random(30, 30, 3, 32));
  const auto P = this->device(this->random(30, 10, 3, 33));
  const auto what = message_of<invalid_input>([&] { triple_product(this->space, R, A, P); });
  EXPECT_EQ(what, "gustav::triple_product: R has 31 columns but A has 30 rows");
}

TYPED_TEST(TripleProduct, ShapeMismatchOfAAndP) {
  const auto R = this->device(this->random(10, 30, 3, 34));
  const auto A = this->device(this->random(30, 30, 3, 35));
  const auto P = this->device(this->random(29, 10, 3, 36));
  const auto what = message_of<invalid_input>([&] { triple_product_symbolic(this->space, R, A, P); });
  EXPECT_EQ(what, "gustav::triple_product_symbolic: A has 30 columns but P has 29 rows");
}

TYPED_TEST(TripleProduct, NumericRefusesAnotherA) {
  const auto R = this->device(this->random(10, 30, 3, 37));
  const auto A = this->random(30, 30, 3, 38);
  const auto P = this->device(this->random(30, 10, 3, 39));
  const auto plan = triple_product_symbolic(this->space, R, this->device(A), P);
  const auto other = this->device(this->random(30, 30, 5, 40));
  ASSERT_NE(other.nnz(), this->device(A).nnz());
  const auto what = message_of<plan_mismatch>([&] { triple_product_numeric(this->space, plan, R, other, P); });
  EXPECT_NE(what.find("gustav::triple_product_numeric: A is 30 x 30"), std::string::npos) << what;
}

TYPED_TEST(TripleProduct, GalerkinMatchesTransposeTimesAP) {
  std::vector<std::int64_t> aggregate_of;
  for (std::int64_t i = 0; i < 80; ++i) aggregate_of.push_back(i / 4);
  const auto Pt = TestFixture::prolongator(aggregate_of, 20, 41);
  // A smoothed-looking P: a random perturbation of the tentative one's structure.
  const auto P = this->random(80, 20, 3, 42);
  const auto A = this->random(80, 80, 7, 43);
  for (const auto* p : {&Pt, &P}) {
    const auto [R, plan, Ac] = galerkin_product(this->space, this->device(A), this->device(*p));
    EXPECT_EQ(this->host(R).entries, reference_transpose(*p).entries);
    EXPECT_TRUE(this->matches(this->host(Ac), reference_transpose(*p), A, *p));
  }
}

TYPED_TEST(TripleProduct, GalerkinPlanReusedForNewA) {
  const auto P = this->random(70, 15, 2, 44);
  const auto A = this->random(70, 70, 6, 45);
  const auto dP = this->device(P);
  auto [R, plan, Ac] = galerkin_product(this->space, this->device(A), dP);
  const auto A2 = with_new_values(A, 46);
  triple_product_numeric(this->space, plan, R, this->device(A2), dP, Ac);
  EXPECT_TRUE(this->matches(this->host(Ac), reference_transpose(P), A2, P));
}

TYPED_TEST(TripleProduct, GalerkinRawViewsInAndOut) {
  using TF = TestFixture;
  const auto P = this->random(60, 12, 2, 49);
  const auto A = this->random(60, 60, 5, 50);
  const auto dA = this->device(A), dP = this->device(P);
  auto ref = [](const typename TF::Matrix& m) {
    return make_csr_ref(m.numRows(), m.numCols(), m.graph.row_map, m.graph.entries, m.values);
  };
  const auto [R, plan, Ac] = galerkin_product(this->space, ref(dA), ref(dP));
  const auto Rt = reference_transpose(P);
  EXPECT_EQ((host_copy<typename TF::S, typename TF::O, typename TF::Z>(R).entries), Rt.entries);
  EXPECT_TRUE(this->matches(host_copy<typename TF::S, typename TF::O, typename TF::Z>(Ac), Rt, A, P));
}

TYPED_TEST(TripleProduct, GalerkinRejectsRectangularA) {
  const auto A = this->device(this->random(40, 41, 3, 47));
  const auto P = this->device(this->random(41, 10, 2, 48));
  const auto what = message_of<invalid_input>([&] { galerkin_product(this->space, A, P); });
  EXPECT_EQ(what, "gustav::galerkin_product: A must be square, it is 40 x 41");
}

}  // namespace
}  // namespace gustav::test
