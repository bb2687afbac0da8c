/// Tests of the Matrix Market reader and writer (gustav/matrix_market.hpp):
/// every field and symmetry on small hand-written files with their exact CSR,
/// the text conventions the format allows, the types the caller picks,
/// bit-exact round trips through the writer, the exact message for each file
/// in data/matrix_market/malformed, gzip input, the shared corpus of real
/// matrices, and a throughput report.
#include <gtest/gtest.h>

#include <Kokkos_Complex.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/matrix_market.hpp"

namespace {

namespace fs = std::filesystem;
using gustav::HostCsr;
using Complex = Kokkos::complex<double>;
using ComplexFloat = Kokkos::complex<float>;

const std::string data_dir = std::string(GUSTAV_TEST_DATA_DIR) + "/matrix_market";
const std::string good_dir = data_dir + "/good";
const std::string malformed_dir = data_dir + "/malformed";
const std::string gzip_dir = data_dir + "/gzip";

/// A CSR matrix spelled out in full, as a test expects it.
template <class Scalar>
struct ExpectedCsr {
  int rows;
  int cols;
  std::vector<std::int64_t> row_map;
  std::vector<int> entries;
  std::vector<Scalar> values;
};

template <class Scalar>
void expect_csr(const HostCsr<Scalar>& A, const ExpectedCsr<Scalar>& expected) {
  EXPECT_EQ(A.num_rows, expected.rows);
  EXPECT_EQ(A.num_cols, expected.cols);
  EXPECT_EQ(A.row_map, expected.row_map);
  EXPECT_EQ(A.entries, expected.entries);
  EXPECT_EQ(A.values, expected.values);
}

/// The message a call throws, or "" when it throws nothing of type E.
template <class E, class F>
std::string message_of(F&& call) {
  try {
    call();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

std::string read_message(const std::string& path) {
  return message_of<gustav::invalid_input>([&] { gustav::read_matrix_market(path); });
}

std::string parse_message(const std::string& text) {
  return message_of<gustav::invalid_input>([&] { gustav::parse_matrix_market(text, "text.mtx"); });
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh folder under the system's temporary directory, removed with
/// everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = fs::temp_directory_path() /
            ("gustav_mm_" + std::string(test->name()) + "_" + std::to_string(stamp));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

template <class T>
auto bits_of(T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// Random finite values of every exponent, denormals included: random bit
/// patterns with NaN and infinity (all-ones exponent) left out, plus the
/// values a decimal round trip most often gets wrong.
template <class Real>
std::vector<Real> awkward_values(std::size_t count, std::uint64_t seed) {
  std::vector<Real> values = {Real(0), -Real(0), Real(1) / Real(3), Real(0.1), std::numeric_limits<Real>::max(),
                              std::numeric_limits<Real>::lowest(), std::numeric_limits<Real>::min(),
                              std::numeric_limits<Real>::denorm_min(), std::numeric_limits<Real>::epsilon()};
  std::mt19937_64 random(seed);
  while (values.size() < count) {
    Real value;
    if constexpr (sizeof(Real) == 4) {
      const auto bits = static_cast<std::uint32_t>(random());
      std::memcpy(&value, &bits, sizeof value);
    } else {
      const std::uint64_t bits = random();
      std::memcpy(&value, &bits, sizeof value);
    }
    if (std::isfinite(value)) values.push_back(value);
  }
  return values;
}

/// A rows x cols matrix whose entries, in CSR order, take the given values:
/// a few per row at scattered columns.
template <class Scalar>
HostCsr<Scalar> matrix_with_values(const std::vector<Scalar>& values, int rows, int cols) {
  HostCsr<Scalar> A;
  A.num_rows = rows;
  A.num_cols = cols;
  A.row_map.assign(static_cast<std::size_t>(rows) + 1, 0);
  const std::size_t per_row = (values.size() + static_cast<std::size_t>(rows) - 1) / static_cast<std::size_t>(rows);
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::size_t row = k / per_row;
    A.entries.push_back(static_cast<int>((k * 7919) % static_cast<std::size_t>(cols)));
    A.values.push_back(values[k]);
    ++A.row_map[row + 1];
  }
  for (std::size_t i = 1; i < A.row_map.size(); ++i) A.row_map[i] += A.row_map[i - 1];
  return A;
}

template <class Scalar>
void expect_same_structure(const HostCsr<Scalar>& A, const HostCsr<Scalar>& B) {
  EXPECT_EQ(A.num_rows, B.num_rows);
  EXPECT_EQ(A.num_cols, B.num_cols);
  EXPECT_EQ(A.row_map, B.row_map);
  EXPECT_EQ(A.entries, B.entries);
  ASSERT_EQ(A.values.size(), B.values.size());
}

// ---------------------------------------------------------------------------
// Every valid field x symmetry combination, from data/matrix_market/good.

TEST(MatrixMarketRead, RealGeneralKeepsRowsInOrder) {
  expect_csr(gustav::read_matrix_market(good_dir + "/real_general.mtx"),
             ExpectedCsr<double>{3, 4, {0, 2, 3, 5}, {0, 3, 2, 0, 3}, {1.5, 4e-3, 3.25, -2, 5}});
}

TEST(MatrixMarketRead, RealSymmetricMirrorsOffDiagonalEntries) {
  expect_csr(gustav::read_matrix_market(good_dir + "/real_symmetric.mtx"),
             ExpectedCsr<double>{3, 3, {0, 2, 4, 6}, {0, 1, 0, 2, 1, 2}, {2, -1, -1, -1, -1, 2}});
}

TEST(MatrixMarketRead, RealSkewSymmetricNegatesMirrors) {
  expect_csr(gustav::read_matrix_market(good_dir + "/real_skew_symmetric.mtx"),
             ExpectedCsr<double>{3, 3, {0, 2, 3, 4}, {1, 2, 0, 0}, {-1.5, 2, 1.5, -2}});
}

TEST(MatrixMarketRead, IntegerGeneralConvertsValues) {
  expect_csr(gustav::read_matrix_market(good_dir + "/integer_general.mtx"),
             ExpectedCsr<double>{2, 3, {0, 1, 3}, {1, 0, 2}, {7, -3, 12}});
}

TEST(MatrixMarketRead, IntegerSymmetricMirrorsOffDiagonalEntries) {
  expect_csr(gustav::read_matrix_market(good_dir + "/integer_symmetric.mtx"),
             ExpectedCsr<double>{2, 2, {0, 2, 3}, {0, 1, 0}, {4, -5, -5}});
}

TEST(MatrixMarketRead, IntegerSkewSymmetricNegatesMirrors) {
  expect_csr(gustav::read_matrix_market(good_dir + "/integer_skew_symmetric.mtx"),
             ExpectedCsr<double>{3, 3, {0, 1, 3, 4}, {1, 0, 2, 1}, {-3, 3, 7, -7}});
}

TEST(MatrixMarketRead, PatternGeneralGivesOnes) {
  expect_csr(gustav::read_matrix_market(good_dir + "/pattern_general.mtx"),
             ExpectedCsr<double>{3, 3, {0, 1, 2, 3}, {2, 1, 0}, {1, 1, 1}});
}

TEST(MatrixMarketRead, PatternSymmetricMirrorsOffDiagonalEntries) {
  expect_csr(gustav::read_matrix_market(good_dir + "/pattern_symmetric.mtx"),
             ExpectedCsr<double>{3, 3, {0, 2, 3, 5}, {1, 2, 0, 0, 2}, {1, 1, 1, 1, 1}});
}

TEST(MatrixMarketRead, ComplexGeneralReadsBothParts) {
  expect_csr(gustav::read_matrix_market<Complex>(good_dir + "/complex_general.mtx"),
             ExpectedCsr<Complex>{2, 2, {0, 2, 3}, {0, 1, 1}, {Complex(1, 2), Complex(0, -1), Complex(-3.5, 0.25)}});
}

TEST(MatrixMarketRead, ComplexSymmetricMirrorsWithoutConjugating) {
  expect_csr(gustav::read_matrix_market<Complex>(good_dir + "/complex_symmetric.mtx"),
             ExpectedCsr<Complex>{2, 2, {0, 1, 3}, {1, 0, 1}, {Complex(1, 2), Complex(1, 2), Complex(3, -4)}});
}

TEST(MatrixMarketRead, ComplexSkewSymmetricNegatesMirrors) {
  expect_csr(gustav::read_matrix_market<Complex>(good_dir + "/complex_skew_symmetric.mtx"),
             ExpectedCsr<Complex>{2, 2, {0, 1, 2}, {1, 0}, {Complex(-1, -2), Complex(1, 2)}});
}

TEST(MatrixMarketRead, ComplexHermitianConjugatesMirrors) {
  expect_csr(gustav::read_matrix_market<Complex>(good_dir + "/complex_hermitian.mtx"),
             ExpectedCsr<Complex>{3,
                                  3,
                                  {0, 2, 4, 5},
                                  {0, 1, 0, 2, 1},
                                  {Complex(2, 0), Complex(1, -2), Complex(1, 2), Complex(0, 1), Complex(0, -1)}});
}

// ---------------------------------------------------------------------------
// What the reader reports, and the types the caller picks.

TEST(MatrixMarketRead, InfoReportsHeaderCountsAndBytes) {
  const std::string path = good_dir + "/real_symmetric.mtx";
  gustav::MatrixMarketInfo info;
  const auto A = gustav::read_matrix_market(path, &info);
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(info.symmetry, "symmetric");
  EXPECT_EQ(info.rows, 3);
  EXPECT_EQ(info.cols, 3);
  EXPECT_EQ(info.stored_entries, 4);
  EXPECT_EQ(A.nnz(), 6);
  EXPECT_EQ(info.bytes, static_cast<std::int64_t>(fs::file_size(path)));
  EXPECT_GT(info.seconds, 0.0);
}

TEST(MatrixMarketRead, InfoNamesSkewSymmetryWithItsHyphen) {
  gustav::MatrixMarketInfo info;
  gustav::read_matrix_market(good_dir + "/integer_skew_symmetric.mtx", &info);
  EXPECT_EQ(info.field, "integer");
  EXPECT_EQ(info.symmetry, "skew-symmetric");
}

TEST(MatrixMarketRead, RealFileIntoComplexScalarHasZeroImaginaryParts) {
  expect_csr(gustav::read_matrix_market<Complex>(good_dir + "/real_skew_symmetric.mtx"),
             ExpectedCsr<Complex>{3, 3, {0, 2, 3, 4}, {1, 2, 0, 0}, {-1.5, 2, 1.5, -2}});
}

TEST(MatrixMarketRead, RealFileIntoFloatScalar) {
  const auto A = gustav::read_matrix_market<float>(good_dir + "/real_general.mtx");
  EXPECT_EQ(A.values, (std::vector<float>{1.5f, 4e-3f, 3.25f, -2.0f, 5.0f}));
}

TEST(MatrixMarketRead, PatternFileIntoComplexScalarGivesOnes) {
  const auto A = gustav::read_matrix_market<Complex>(good_dir + "/pattern_general.mtx");
  EXPECT_EQ(A.values, (std::vector<Complex>{1, 1, 1}));
}

TEST(MatrixMarketRead, SixtyFourBitOrdinalAndThirtyTwoBitOffset) {
  const auto A = gustav::read_matrix_market<double, std::int64_t, int>(good_dir + "/real_general.mtx");
  EXPECT_EQ(A.row_map, (std::vector<int>{0, 2, 3, 5}));
  EXPECT_EQ(A.entries, (std::vector<std::int64_t>{0, 3, 2, 0, 3}));
}

TEST(MatrixMarketRead, ComplexFileIntoRealScalarIsRefused) {
  const std::string path = good_dir + "/complex_general.mtx";
  EXPECT_EQ(read_message(path),
            "gustav::read_matrix_market: " + path + ":1: complex values cannot be read into a real scalar type");
}

TEST(MatrixMarketRead, MissingFileSaysItCannotBeOpened) {
  const std::string path = data_dir + "/no_such_file.mtx";
  EXPECT_EQ(read_message(path), "gustav::read_matrix_market: " + path + ": cannot open: No such file or directory");
}

TEST(MatrixMarketRead, DimensionBeyondOrdinalThrowsOverflow) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n40000 2 0\n";
  EXPECT_EQ(message_of<gustav::overflow_error>([&] { gustav::parse_matrix_market<double, std::int16_t>(text, "big.mtx"); }),
            "gustav::parse_matrix_market: big.mtx:2: 40000 rows do not fit the 16-bit ordinal type (at most 32767); "
            "use a 64-bit ordinal");
}

TEST(MatrixMarketRead, SizeLineBeyondMemoryThrowsAllocationError) {
  // 10^11 rows fit a 64-bit ordinal, but their row map needs 745 GiB.
  const std::string text = "%%MatrixMarket matrix coordinate real general\n99999999999 99999999999 1\n1 1 1\n";
  const std::string message = message_of<gustav::allocation_error>(
      [&] { gustav::parse_matrix_market<double, std::int64_t, std::int64_t>(text, "huge.mtx"); });
  EXPECT_EQ(message.rfind("gustav::parse_matrix_market: huge.mtx:2: the row map of 99999999999 rows needs 745.1 GiB, ", 0),
            0u)
      << message;
}

TEST(MatrixMarketRead, SizeLineAtTheInt64LimitThrowsAllocationError) {
  // The largest counts a size line can hold: the row map's size must not
  // wrap around to a small allocation.
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n9223372036854775807 9223372036854775807 0\n";
  const std::string message = message_of<gustav::allocation_error>(
      [&] { gustav::parse_matrix_market<double, std::int64_t, std::int64_t>(text, "huge.mtx"); });
  EXPECT_EQ(message.rfind("gustav::parse_matrix_market: huge.mtx:2: the row map of 9223372036854775807 rows needs ", 0),
            0u)
      << message;
}

TEST(MatrixMarketRead, EntriesBeyondTheFileAreRefusedBeforeTheOffsetType) {
  // 40000 entries would not fit 16-bit offsets either, but the file cannot
  // hold them: the file is wrong, not the caller's types.
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 40000\n1 1 1\n";
  EXPECT_EQ(message_of<gustav::invalid_input>(
                [&] { gustav::parse_matrix_market<double, int, std::int16_t>(text, "short.mtx"); }),
            "gustav::parse_matrix_market: short.mtx:2: the size line announces 40000 entries, but the 6 bytes after "
            "it hold at most 1");
}

TEST(MatrixMarketRead, EntriesBeyondOffsetThrowOverflow) {
  std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 40000\n";
  for (int k = 0; k < 40000; ++k) text += "1 1 1\n";
  EXPECT_EQ(message_of<gustav::overflow_error>(
                [&] { gustav::parse_matrix_market<double, int, std::int16_t>(text, "big.mtx"); }),
            "gustav::parse_matrix_market: big.mtx:2: 40000 entries do not fit the 16-bit offset type (at most 32767); "
            "use a 64-bit offset");
}

TEST(MatrixMarketRead, SymmetricExpansionBeyondOffsetThrowsOverflow) {
  // 20000 stored off-diagonal entries fit 16 bits; their 40000 after
  // mirroring do not.
  std::string text = "%%MatrixMarket matrix coordinate pattern symmetric\n20001 20001 20000\n";
  for (int i = 2; i <= 20001; ++i) text += std::to_string(i) + " 1\n";
  EXPECT_EQ(message_of<gustav::overflow_error>(
                [&] { gustav::parse_matrix_market<double, int, std::int16_t>(text, "big.mtx"); }),
            "gustav::parse_matrix_market: big.mtx:2: symmetric expansion gives 40000 entries, which do not fit the "
            "16-bit offset type (at most 32767); use a 64-bit offset");
}

// ---------------------------------------------------------------------------
// Text conventions, on Matrix Market text in memory.

const std::string banner = "%%MatrixMarket matrix coordinate real general\n";

TEST(MatrixMarketParse, CommentsAndBlankLinesAnywhereAreSkipped) {
  const std::string text = banner + "% comment\n\n%another\n  % indented comment\n2 2 2\n\n% between entries\n1 1 1\n\n2 2 2\n%\n\n";
  expect_csr(gustav::parse_matrix_market(text), ExpectedCsr<double>{2, 2, {0, 1, 2}, {0, 1}, {1, 2}});
}

TEST(MatrixMarketParse, CrlfLineEndsReadLikeLf) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\r\n% comment\r\n2 2 2\r\n\r\n1 2 1.5\r\n2 1 -2\r\n";
  expect_csr(gustav::parse_matrix_market(text), ExpectedCsr<double>{2, 2, {0, 1, 2}, {1, 0}, {1.5, -2}});
}

TEST(MatrixMarketParse, ErrorLinesCountCrlfLines) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\r\n\r\n2 2 2\r\n1 2 1.5\r\n2 x -2\r\n";
  EXPECT_EQ(parse_message(text), "gustav::parse_matrix_market: text.mtx:5: bad column index 'x'");
}

TEST(MatrixMarketParse, SpacesAndTabsAroundTokensAreIgnored) {
  const std::string text = " %%MatrixMarket\tmatrix  coordinate real\tgeneral  \n \t2  2\t2 \n\t1 \t1  3.5\t\n  2 2 4 \n";
  expect_csr(gustav::parse_matrix_market(text), ExpectedCsr<double>{2, 2, {0, 1, 2}, {0, 1}, {3.5, 4}});
}

TEST(MatrixMarketParse, BannerWordsAreCaseInsensitive) {
  const std::string text = "%%matrixmarket MATRIX Coordinate REAL Symmetric\n2 2 1\n2 1 3\n";
  expect_csr(gustav::parse_matrix_market(text), ExpectedCsr<double>{2, 2, {0, 1, 2}, {1, 0}, {3, 3}});
}

TEST(MatrixMarketParse, DoubleFieldReadsAsReal) {
  gustav::MatrixMarketInfo info;
  const auto A = gustav::parse_matrix_market("%%MatrixMarket matrix coordinate double general\n1 1 1\n1 1 2.5\n",
                                             "<string>", &info);
  EXPECT_EQ(info.field, "real");
  EXPECT_EQ(A.values, std::vector<double>{2.5});
}

TEST(MatrixMarketParse, LastLineNeedsNoNewline) {
  expect_csr(gustav::parse_matrix_market(banner + "2 2 1\n2 2 7"), ExpectedCsr<double>{2, 2, {0, 0, 1}, {1}, {7}});
}

TEST(MatrixMarketParse, ByteOrderMarkIsIgnored) {
  expect_csr(gustav::parse_matrix_market("\xEF\xBB\xBF" + banner + "1 1 1\n1 1 7\n"),
             ExpectedCsr<double>{1, 1, {0, 1}, {0}, {7}});
}

TEST(MatrixMarketParse, EmptyMatrix) {
  expect_csr(gustav::parse_matrix_market(banner + "0 0 0\n"), ExpectedCsr<double>{0, 0, {0}, {}, {}});
}

TEST(MatrixMarketParse, RowsWithoutEntriesKeepTheirOffsets) {
  expect_csr(gustav::parse_matrix_market(banner + "5 3 2\n4 3 1\n2 1 2\n"),
             ExpectedCsr<double>{5, 3, {0, 0, 1, 1, 2, 2}, {0, 2}, {2, 1}});
}

TEST(MatrixMarketParse, EntriesWithinARowKeepFileOrder) {
  expect_csr(gustav::parse_matrix_market(banner + "1 5 4\n1 4 1\n1 2 2\n1 5 3\n1 1 4\n"),
             ExpectedCsr<double>{1, 5, {0, 4}, {3, 1, 4, 0}, {1, 2, 3, 4}});
}

TEST(MatrixMarketParse, DuplicateEntriesAreKept) {
  expect_csr(gustav::parse_matrix_market(banner + "2 2 3\n1 1 1\n2 2 5\n1 1 2\n"),
             ExpectedCsr<double>{2, 2, {0, 2, 3}, {0, 0, 1}, {1, 2, 5}});
}

TEST(MatrixMarketParse, SymmetricUpperTriangleIsMirroredToo) {
  expect_csr(gustav::parse_matrix_market("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 3 4\n2 3 5\n"),
             ExpectedCsr<double>{3, 3, {0, 1, 2, 4}, {2, 2, 0, 1}, {4, 5, 4, 5}});
}

TEST(MatrixMarketParse, PatternEntriesIgnoreAValueColumn) {
  expect_csr(gustav::parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2 7\n2 1 x y\n"),
             ExpectedCsr<double>{2, 2, {0, 1, 2}, {1, 0}, {1, 1}});
}

TEST(MatrixMarketParse, SkewSymmetricZeroDiagonalIsKept) {
  expect_csr(gustav::parse_matrix_market("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n1 1 0\n2 1 3\n"),
             ExpectedCsr<double>{2, 2, {0, 2, 3}, {0, 1, 0}, {0, -3, 3}});
}

TEST(MatrixMarketParse, PlusSignsAndFortranExponentsAreAccepted) {
  const auto A = gustav::parse_matrix_market(banner + "+1 +3 3\n1 1 +1.5D+01\n1 2 -2.5d-1\n1 3 +4E2\n");
  EXPECT_EQ(A.values, (std::vector<double>{15, -0.25, 400}));
}

TEST(MatrixMarketParse, ValuesTooSmallForDoubleReadAsZero) {
  const auto A = gustav::parse_matrix_market(banner + "1 2 2\n1 1 1e-400\n1 2 -1e-400\n");
  EXPECT_EQ(bits_of(A.values[0]), bits_of(0.0));
  EXPECT_EQ(bits_of(A.values[1]), bits_of(-0.0));
}

TEST(MatrixMarketParse, MessagesNameTheGivenSource) {
  EXPECT_EQ(message_of<gustav::invalid_input>(
                [] { gustav::parse_matrix_market(banner + "2 2 1\n3 1 1\n", "inline matrix"); }),
            "gustav::parse_matrix_market: inline matrix:3: row index 3 is out of range 1..2");
}

TEST(MatrixMarketParse, IndexIntoMatrixWithoutColumnsIsRefused) {
  EXPECT_EQ(parse_message(banner + "2 0 1\n1 1 1\n"),
            "gustav::parse_matrix_market: text.mtx:3: column index 1 is out of range; the matrix has no columns");
}

// ---------------------------------------------------------------------------
// Malformed files: each in data/matrix_market/malformed with its exact
// message. A new file there without an expectation here fails
// EveryMalformedFileHasAnExpectedMessage.

struct MalformedCase {
  const char* file;  ///< name in malformed/, without .mtx
  int line;
  const char* reason;
};

const MalformedCase malformed_cases[] = {
    {"empty", 1, "empty file; expected a %%MatrixMarket banner"},
    {"missing_banner", 1, "missing %%MatrixMarket banner"},
    {"incomplete_banner", 1, "incomplete banner; expected '%%MatrixMarket matrix coordinate <field> <symmetry>'"},
    {"vector_object", 1, "unsupported object 'vector'; only 'matrix' is supported"},
    {"array_format", 1, "array format is not supported; only coordinate"},
    {"unknown_format", 1, "unknown format 'sparse'; expected coordinate"},
    {"unknown_field", 1, "unknown field 'reel'; expected real, integer, pattern or complex"},
    {"unknown_symmetry", 1, "unknown symmetry 'symetric'; expected general, symmetric, skew-symmetric or hermitian"},
    {"banner_extra_word", 1, "unexpected text 'lower' after the banner"},
    {"pattern_skew_symmetric", 1, "skew-symmetric storage is not allowed for pattern matrices"},
    {"real_hermitian", 1, "hermitian storage is not allowed for real matrices"},
    {"missing_size_line", 3, "missing size line"},
    {"size_line_two_numbers", 3, "bad size line '3 3'; expected 'rows columns entries'"},
    {"size_line_not_a_number", 2, "bad size line '3 x 1'; expected 'rows columns entries'"},
    {"size_line_negative", 2, "bad size line '3 -3 1'; counts cannot be negative"},
    {"size_line_count_beyond_int64", 2,
     "bad size line '3 99999999999999999999 1'; '99999999999999999999' is beyond the 64-bit range"},
    {"size_line_entries_beyond_file", 2,
     "the size line announces 99999999999 entries, but the 16 bytes after it hold at most 4"},
    {"symmetric_not_square", 2, "a symmetric matrix must be square, but the size line says 3 x 4"},
    {"too_few_entries", 7, "the size line announces 4 entries but the file has only 3"},
    {"too_many_entries", 6, "more entries than the 2 the size line announces"},
    {"row_index_zero", 4, "row index 0 is out of range 1..3"},
    {"column_index_too_large", 4, "column index 4 is out of range 1..3"},
    {"row_index_too_large_for_int64", 3, "bad row index '99999999999999999999'"},
    {"bad_row_index", 3, "bad row index '1.5'"},
    {"bad_value", 4, "bad value 'abc'"},
    {"value_out_of_range", 3, "bad value '1e999'"},
    {"bad_integer_value", 3, "bad integer value '2.5'"},
    {"bad_imaginary_part", 3, "bad imaginary part 'x'"},
    {"missing_value", 3, "incomplete entry; expected row, column and value"},
    {"missing_imaginary_part", 3, "incomplete entry; expected row, column, real part and imaginary part"},
    {"extra_token", 3, "unexpected text '2.0' after the entry"},
    {"skew_symmetric_nonzero_diagonal", 4, "skew-symmetric matrix has a nonzero diagonal entry at (2, 2)"},
    {"symmetric_both_triangles", 5,
     "entry (1, 3) is above the diagonal, but line 3 has (2, 1) below it; symmetric storage keeps only one triangle"},
};

class MatrixMarketMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MatrixMarketMalformed, ThrowsExactMessage) {
  const MalformedCase& c = GetParam();
  const std::string path = malformed_dir + "/" + c.file + ".mtx";
  ASSERT_TRUE(fs::exists(path)) << path;
  // Complex scalars, so that complex files fail for what is wrong in them
  // rather than for their field.
  const std::string message =
      message_of<gustav::invalid_input>([&] { gustav::read_matrix_market<Complex>(path); });
  EXPECT_EQ(message, "gustav::read_matrix_market: " + path + ":" + std::to_string(c.line) + ": " + c.reason);
}

INSTANTIATE_TEST_SUITE_P(MatrixMarket, MatrixMarketMalformed, ::testing::ValuesIn(malformed_cases),
                         [](const ::testing::TestParamInfo<MalformedCase>& param) { return std::string(param.param.file); });

TEST(MatrixMarketMalformedCorpus, EveryMalformedFileHasAnExpectedMessage) {
  std::set<std::string> expected;
  for (const MalformedCase& c : malformed_cases) expected.insert(std::string(c.file) + ".mtx");
  for (const auto& entry : fs::directory_iterator(malformed_dir))
    EXPECT_EQ(expected.count(entry.path().filename().string()), 1u)
        << entry.path() << " has no entry in malformed_cases";
}

// ---------------------------------------------------------------------------
// Gzip input.

TEST(MatrixMarketGzip, CompressedFileReadsLikeThePlainOne) {
  if (!gustav::matrix_market_reads_gzip()) GTEST_SKIP() << "this build of Gustav has no zlib";
  const std::string path = gzip_dir + "/real_general.mtx.gz";
  gustav::MatrixMarketInfo info;
  const auto A = gustav::read_matrix_market(path, &info);
  const auto plain = gustav::read_matrix_market(good_dir + "/real_general.mtx");
  expect_csr(A, ExpectedCsr<double>{plain.num_rows, plain.num_cols, plain.row_map, plain.entries, plain.values});
  EXPECT_EQ(info.bytes, static_cast<std::int64_t>(fs::file_size(path)));
}

TEST(MatrixMarketGzip, TruncatedFileIsRefused) {
  if (!gustav::matrix_market_reads_gzip()) GTEST_SKIP() << "this build of Gustav has no zlib";
  const std::string path = gzip_dir + "/truncated.mtx.gz";
  EXPECT_EQ(read_message(path), "gustav::read_matrix_market: " + path + ": cannot decompress: unexpected end of file");
}

TEST(MatrixMarketGzip, BuildWithoutZlibSaysSo) {
  if (gustav::matrix_market_reads_gzip()) GTEST_SKIP() << "this build of Gustav has zlib";
  const std::string path = gzip_dir + "/real_general.mtx.gz";
  EXPECT_EQ(read_message(path), "gustav::read_matrix_market: " + path +
                                    ": this build of Gustav has no zlib and cannot read .gz files; decompress it first");
}

// ---------------------------------------------------------------------------
// The writer.

TEST(MatrixMarketWrite, WritesRealGeneralOneBasedRowByRow) {
  TempDir dir;
  const auto A = gustav::read_matrix_market(good_dir + "/real_skew_symmetric.mtx");
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  EXPECT_EQ(slurp(dir.file("A.mtx")),
            "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 -1.5\n1 3 2\n2 1 1.5\n3 1 -2\n");
}

TEST(MatrixMarketWrite, WritesComplexGeneralForComplexScalars) {
  TempDir dir;
  const auto A = gustav::read_matrix_market<Complex>(good_dir + "/complex_skew_symmetric.mtx");
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  EXPECT_EQ(slurp(dir.file("A.mtx")), "%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 2 -1 -2\n2 1 1 2\n");
}

TEST(MatrixMarketWrite, DoubleRoundTripIsBitExact) {
  TempDir dir;
  const auto A = matrix_with_values(awkward_values<double>(5000, 1), 700, 900);
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  const auto B = gustav::read_matrix_market(dir.file("A.mtx"));
  expect_same_structure(A, B);
  for (std::size_t k = 0; k < A.values.size(); ++k)
    ASSERT_EQ(bits_of(A.values[k]), bits_of(B.values[k])) << "entry " << k << ": " << A.values[k];
}

TEST(MatrixMarketWrite, FloatRoundTripIsBitExact) {
  TempDir dir;
  const auto A = matrix_with_values(awkward_values<float>(5000, 2), 700, 900);
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  const auto B = gustav::read_matrix_market<float>(dir.file("A.mtx"));
  expect_same_structure(A, B);
  for (std::size_t k = 0; k < A.values.size(); ++k)
    ASSERT_EQ(bits_of(A.values[k]), bits_of(B.values[k])) << "entry " << k << ": " << A.values[k];
}

TEST(MatrixMarketWrite, ComplexDoubleRoundTripIsBitExact) {
  TempDir dir;
  const auto parts = awkward_values<double>(6000, 3);
  std::vector<Complex> values;
  for (std::size_t k = 0; k + 1 < parts.size(); k += 2) values.emplace_back(parts[k], parts[k + 1]);
  const auto A = matrix_with_values(values, 300, 400);
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  const auto B = gustav::read_matrix_market<Complex>(dir.file("A.mtx"));
  expect_same_structure(A, B);
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    ASSERT_EQ(bits_of(A.values[k].real()), bits_of(B.values[k].real())) << "entry " << k;
    ASSERT_EQ(bits_of(A.values[k].imag()), bits_of(B.values[k].imag())) << "entry " << k;
  }
}

TEST(MatrixMarketWrite, ComplexFloatRoundTripIsBitExact) {
  TempDir dir;
  const auto parts = awkward_values<float>(6000, 4);
  std::vector<ComplexFloat> values;
  for (std::size_t k = 0; k + 1 < parts.size(); k += 2) values.emplace_back(parts[k], parts[k + 1]);
  const auto A = matrix_with_values(values, 300, 400);
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  const auto B = gustav::read_matrix_market<ComplexFloat>(dir.file("A.mtx"));
  expect_same_structure(A, B);
  for (std::size_t k = 0; k < A.values.size(); ++k) {
    ASSERT_EQ(bits_of(A.values[k].real()), bits_of(B.values[k].real())) << "entry " << k;
    ASSERT_EQ(bits_of(A.values[k].imag()), bits_of(B.values[k].imag())) << "entry " << k;
  }
}

TEST(MatrixMarketWrite, InfinitiesAndNanSurviveRoundTrip) {
  TempDir dir;
  const double inf = std::numeric_limits<double>::infinity();
  const auto A = matrix_with_values(std::vector<double>{inf, -inf, std::nan("")}, 1, 3);
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  const auto B = gustav::read_matrix_market(dir.file("A.mtx"));
  EXPECT_EQ(B.values[0], inf);
  EXPECT_EQ(B.values[1], -inf);
  EXPECT_TRUE(std::isnan(B.values[2]));
}

TEST(MatrixMarketWrite, EmptyMatrixRoundTrips) {
  TempDir dir;
  HostCsr<double> A;
  A.num_rows = 4;
  A.num_cols = 2;
  A.row_map.assign(5, 0);
  gustav::write_matrix_market(dir.file("A.mtx"), A);
  expect_csr(gustav::read_matrix_market(dir.file("A.mtx")), ExpectedCsr<double>{4, 2, {0, 0, 0, 0, 0}, {}, {}});
}

TEST(MatrixMarketWrite, UncreatableFileIsRefused) {
  TempDir dir;
  const std::string path = dir.file("no_such_folder/A.mtx");
  const auto A = gustav::read_matrix_market(good_dir + "/real_general.mtx");
  EXPECT_EQ(message_of<gustav::invalid_input>([&] { gustav::write_matrix_market(path, A); }),
            "gustav::write_matrix_market: " + path + ": cannot create: No such file or directory");
}

TEST(MatrixMarketWrite, ColumnOutOfRangeIsRefusedBeforeTheFileExists) {
  TempDir dir;
  auto A = gustav::read_matrix_market(good_dir + "/real_general.mtx");
  A.entries[2] = 4;
  const std::string path = dir.file("A.mtx");
  EXPECT_EQ(message_of<gustav::invalid_input>([&] { gustav::write_matrix_market(path, A); }),
            "gustav::write_matrix_market: " + path + ": column index 4 of entry 2 is out of range for a matrix of 4 columns");
  EXPECT_FALSE(fs::exists(path));
}

TEST(MatrixMarketWrite, RowMapOfWrongLengthIsRefused) {
  TempDir dir;
  auto A = gustav::read_matrix_market(good_dir + "/real_general.mtx");
  A.row_map.pop_back();
  const std::string path = dir.file("A.mtx");
  EXPECT_EQ(message_of<gustav::invalid_input>([&] { gustav::write_matrix_market(path, A); }),
            "gustav::write_matrix_market: " + path + ": row_map has 3 offsets; a matrix of 3 rows needs 4");
}

// ---------------------------------------------------------------------------
// The shared corpus: real matrices from public collections, each listed in
// MANIFEST.tsv with its banner and size line.

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream s(line);
  std::string field;
  while (std::getline(s, field, '\t')) fields.push_back(field);
  return fields;
}

TEST(MatrixMarketCorpus, EveryManifestMatrixMatchesItsSizeLine) {
  const std::string matrices = std::string(GUSTAV_SHARED_DIR) + "/matrices";
  const std::string manifest = matrices + "/MANIFEST.tsv";
  if (!fs::exists(manifest)) GTEST_SKIP() << "no shared matrices: " << manifest << " does not exist";

  std::ifstream in(manifest);
  std::string line;
  std::getline(in, line);  // column names
  int files = 0;
  std::int64_t bytes = 0;
  double seconds = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto fields = split_tabs(line);
    ASSERT_GE(fields.size(), 6u) << line;
    const std::string path = matrices + "/" + fields[0];
    const std::string& banner_line = fields[4];
    std::int64_t rows = -1, cols = -1, stored = -1;
    std::istringstream(fields[5]) >> rows >> cols >> stored;
    SCOPED_TRACE(path);

    gustav::MatrixMarketInfo info;
    std::int64_t nnz = 0, num_rows = 0, num_cols = 0;
    if (banner_line.find(" complex ") != std::string::npos) {
      const auto A = gustav::read_matrix_market<Complex>(path, &info);
      nnz = A.nnz();
      num_rows = A.num_rows;
      num_cols = A.num_cols;
    } else {
      const auto A = gustav::read_matrix_market(path, &info);
      nnz = A.nnz();
      num_rows = A.num_rows;
      num_cols = A.num_cols;
    }
    EXPECT_EQ(info.rows, rows);
    EXPECT_EQ(info.cols, cols);
    EXPECT_EQ(info.stored_entries, stored);
    EXPECT_EQ(num_rows, rows);
    EXPECT_EQ(num_cols, cols);
    EXPECT_EQ(banner_line, "%%MatrixMarket matrix coordinate " + info.field + " " + info.symmetry);
    if (info.symmetry == "general") {
      EXPECT_EQ(nnz, stored);
    } else {
      EXPECT_GE(nnz, stored);
      EXPECT_LE(nnz, 2 * stored);
    }
    ++files;
    bytes += info.bytes;
    seconds += info.seconds;
  }
  EXPECT_GT(files, 0);
  const double megabytes = static_cast<double>(bytes) / 1e6;
  std::printf("[ corpus   ] %d matrices, %.1f MB in %.3f s (%.0f MB/s)\n", files, megabytes, seconds,
              seconds > 0 ? megabytes / seconds : 0.0);
}

// ---------------------------------------------------------------------------
// Throughput: prints, never asserts on time.

TEST(MatrixMarketThroughput, ReportsReadAndParseSpeed) {
  TempDir dir;
  const int rows = 200000;
  const int per_row = 10;  // 2M entries, about 60 MB of text
  HostCsr<double> A;
  A.num_rows = rows;
  A.num_cols = rows;
  A.row_map.resize(static_cast<std::size_t>(rows) + 1);
  std::mt19937_64 random(5);
  std::uniform_int_distribution<int> column(0, rows - 1);
  std::uniform_real_distribution<double> value(-1, 1);
  for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i) {
    A.row_map[i + 1] = A.row_map[i] + per_row;
    for (int k = 0; k < per_row; ++k) {
      A.entries.push_back(column(random));
      A.values.push_back(value(random));
    }
  }
  const std::string path = dir.file("throughput.mtx");

  auto start = std::chrono::steady_clock::now();
  gustav::write_matrix_market(path, A);
  const double write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double megabytes = static_cast<double>(fs::file_size(path)) / 1e6;

  gustav::MatrixMarketInfo from_file;
  const auto B = gustav::read_matrix_market(path, &from_file);
  const std::string text = slurp(path);
  gustav::MatrixMarketInfo from_memory;
  const auto C = gustav::parse_matrix_market(text, path, &from_memory);

  // Check before reporting: a fast wrong reader is no news.
  ASSERT_EQ(B.row_map, A.row_map);
  ASSERT_EQ(B.entries, A.entries);
  ASSERT_EQ(bits_of(B.values.back()), bits_of(A.values.back()));
  ASSERT_EQ(C.entries, A.entries);

  std::printf("[ speed    ] %.1f MB, %lld entries: write %.0f MB/s, read from file %.0f MB/s, parse from memory %.0f MB/s\n",
              megabytes, static_cast<long long>(A.nnz()), megabytes / write_seconds, megabytes / from_file.seconds,
              megabytes / from_memory.seconds);
}

}  // namespace
