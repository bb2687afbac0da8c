// Products of every shape: square, tall, wide, empty, with empty rows.
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class SpgemmShapes : public SpgemmTest<C> {};
TYPED_TEST_SUITE(SpgemmShapes, AllConfigs, ConfigNames);

TYPED_TEST(SpgemmShapes, SquareRandom) {
  const auto A = this->random(300, 300, 6, 1);
  EXPECT_TRUE(this->multiply_matches(A, A));
}

TYPED_TEST(SpgemmShapes, TallTimesWide) {
  const auto A = this->random(500, 40, 5, 2);
  const auto B = this->random(40, 700, 9, 3);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, WideTimesTall) {
  const auto A = this->random(30, 800, 40, 4);
  const auto B = this->random(800, 25, 3, 5);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, ZeroRowsInA) {
  const auto A = this->random(0, 50, 3, 6);
  const auto B = this->random(50, 60, 3, 7);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, ZeroColumnsInB) {
  const auto A = this->random(40, 50, 3, 8);
  const auto B = this->random(50, 0, 3, 9);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, ZeroInnerDimension) {
  const auto A = this->random(40, 0, 3, 10);
  const auto B = this->random(0, 30, 3, 11);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, AllRowsEmpty) {
  const auto A = this->random(100, 100, 0, 12);
  const auto B = this->random(100, 100, 5, 13);
  EXPECT_TRUE(this->multiply_matches(A, B));
  EXPECT_TRUE(this->multiply_matches(B, A));
}

TYPED_TEST(SpgemmShapes, EmptyRowsInA) {
  RandomShape shape;
  shape.empty_rows = 0.6;
  const auto A = this->random(400, 300, 5, 14, shape);
  const auto B = this->random(300, 350, 5, 15);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, EmptyRowsInB) {
  RandomShape shape;
  shape.empty_rows = 0.6;
  const auto A = this->random(400, 300, 5, 16);
  const auto B = this->random(300, 350, 5, 17, shape);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

TYPED_TEST(SpgemmShapes, OnlyOneNonEmptyRow) {
  RandomShape shape;
  shape.empty_rows = 1.0;
  shape.long_row = 77;
  shape.long_row_length = 90;
  const auto A = this->random(200, 200, 5, 18, shape);
  const auto B = this->random(200, 200, 8, 19);
  EXPECT_TRUE(this->multiply_matches(A, B));
}

}  // namespace
}  // namespace gustav::test
