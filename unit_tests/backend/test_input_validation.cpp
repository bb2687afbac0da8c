// Bad input is refused at the API boundary with a message naming the
// function and the fault.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gustav/gustav.hpp"
#include "support/raw_csr.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

/// Runs gustav::multiply and returns the invalid_input message ("" if none).
std::string multiply_error(const RawCsr& A, const RawCsr& B) {
  try {
    gustav::multiply(TestSpace(), A.ref(), B.ref());
  } catch (const gustav::invalid_input& e) {
    return e.what();
  }
  return "";
}

TEST(InputValidation, InnerDimensionsDiffer) {
  RawCsr B = good_raw_csr();
  B.rows = 2;
  B.row_map = {0, 2, 3};
  B.entries = {0, 2, 1};
  B.values = {1, 2, 3};
  EXPECT_EQ(multiply_error(good_raw_csr(), B), "gustav::multiply: A has 3 columns but B has 2 rows");
}

TEST(InputValidation, RowMapTooShort) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 2, 4};
  EXPECT_EQ(multiply_error(A, good_raw_csr()), "gustav::multiply: A has a row_map of length 3 but 3 rows (expected 4)");
}

TEST(InputValidation, RowMapNotStartingAtZero) {
  RawCsr A = good_raw_csr();
  A.row_map = {1, 2, 3, 4};
  EXPECT_EQ(multiply_error(A, good_raw_csr()), "gustav::multiply: A has a row_map starting at 1, not 0");
}

TEST(InputValidation, RowMapLastEntryDiffersFromEntries) {
  RawCsr B = good_raw_csr();
  B.row_map = {0, 2, 3, 3};
  EXPECT_EQ(multiply_error(good_raw_csr(), B), "gustav::multiply: B has a row_map ending at 3 but 4 entries");
}

TEST(InputValidation, RowMapDecreasing) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 3, 2, 4};
  EXPECT_EQ(multiply_error(A, good_raw_csr()),
            "gustav::multiply: A has a decreasing row_map: row_map(2) = 2 < row_map(1) = 3");
}

TEST(InputValidation, ColumnIndexNegative) {
  RawCsr A = good_raw_csr();
  A.entries = {0, 2, -1, 0};
  EXPECT_EQ(multiply_error(A, good_raw_csr()),
            "gustav::multiply: A has column index -1 in row 1 (entry 2), outside [0, 3)");
}

TEST(InputValidation, ColumnIndexTooLarge) {
  RawCsr B = good_raw_csr();
  B.entries = {0, 2, 1, 3};
  EXPECT_EQ(multiply_error(good_raw_csr(), B),
            "gustav::multiply: B has column index 3 in row 2 (entry 3), outside [0, 3)");
}

TEST(InputValidation, ValuesShorterThanEntries) {
  RawCsr A = good_raw_csr();
  A.values = {1, 2, 3};
  EXPECT_EQ(multiply_error(A, good_raw_csr()), "gustav::multiply: A has 3 values but 4 entries");
}

TEST(InputValidation, NegativeDimensions) {
  RawCsr A = good_raw_csr();
  A.rows = -1;
  EXPECT_EQ(multiply_error(A, good_raw_csr()), "gustav::multiply: A has negative dimensions -1 x 3");
}

TEST(InputValidation, LibraryUsableAfterError) {
  RawCsr A = good_raw_csr();
  A.entries = {0, 9, 1, 0};
  EXPECT_NE(multiply_error(A, good_raw_csr()), "");
  EXPECT_EQ(multiply_error(good_raw_csr(), good_raw_csr()), "");
}

}  // namespace
}  // namespace gustav::test
