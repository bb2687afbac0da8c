// Malformed CSR input is refused by gustav::multiply with its exact message.
// The cases live in data/csr_malformed/cases.txt (the format is described at
// its top); each becomes its own test, Corpus/MalformedCsr.Rejects/<name>.
// Counts that overflow the offset type need large products and are built
// here in code (MalformedCsrOverflow).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gustav/gustav.hpp"
#include "support/raw_csr.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

/// The valid 3 x 3 matrix most cases pair a faulty operand with (G in cases.txt).
RawCsr partner() { return good_raw_csr(); }

struct MalformedCase {
  std::string name;
  int line = 0;  ///< line of "case <name>" in cases.txt
  RawCsr a, b;
  std::string error;    ///< "invalid_input" or "overflow_error"
  std::string message;  ///< exact what()
  std::string known_gap;
  std::string problem;  ///< what is wrong with the corpus entry itself ("" if nothing)
};

void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

const char* const corpus_path = GUSTAV_TEST_DATA_DIR "/csr_malformed/cases.txt";

// --- reading the corpus -------------------------------------------------------

bool parse_ints(const std::string& text, std::vector<int>& out) {
  std::istringstream in(text);
  long long v = 0;
  while (in >> v) {
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
    out.push_back(static_cast<int>(v));
  }
  return in.eof();
}

bool parse_doubles(const std::string& text, std::vector<double>& out) {
  std::istringstream in(text);
  double v = 0;
  while (in >> v) out.push_back(v);
  return in.eof();
}

/// Fills one field of `c`; returns "" or what is wrong with the value.
std::string set_field(MalformedCase& c, const std::string& key, const std::string& value) {
  if (key == "error") {
    if (value != "invalid_input" && value != "overflow_error") return "unknown error type '" + value + "'";
    c.error = value;
    return "";
  }
  if (key == "message") {
    c.message = value;
    return "";
  }
  if (key == "known_gap") {
    c.known_gap = value.empty() ? "(no reason given)" : value;
    return "";
  }
  if (key.size() < 3 || (key[0] != 'A' && key[0] != 'B') || key[1] != '.') return "unknown field '" + key + "'";
  RawCsr& m = key[0] == 'A' ? c.a : c.b;
  const std::string field = key.substr(2);
  std::vector<int> ints;
  if (field == "values") return parse_doubles(value, m.values) ? "" : "bad list of values '" + value + "'";
  if (!parse_ints(value, ints)) return "bad integers (or not within int) in '" + value + "'";
  if (field == "row_map") {
    m.row_map = ints;
  } else if (field == "entries") {
    m.entries = ints;
  } else if (field == "rows" || field == "cols") {
    if (ints.size() != 1) return key + " needs one integer";
    (field == "rows" ? m.rows : m.cols) = ints[0];
  } else {
    return "unknown field '" + key + "'";
  }
  return "";
}

const std::vector<std::string> required_fields = {"A.rows",    "A.cols",    "A.row_map", "A.entries", "A.values",
                                                  "B.rows",    "B.cols",    "B.row_map", "B.entries", "B.values",
                                                  "error",     "message"};

/// Reads cases.txt. A corpus that cannot be read, or an entry that breaks
/// the format, comes back as a case whose `problem` says so; its test fails.
std::vector<MalformedCase> read_corpus() {
  std::vector<MalformedCase> cases;
  auto broken = [&](const std::string& name, int line, const std::string& what) {
    MalformedCase c;
    c.name = name;
    c.line = line;
    c.problem = std::string(corpus_path) + ":" + std::to_string(line) + ": " + what;
    return c;
  };
  std::ifstream file(corpus_path);
  if (!file) return {broken("corpus_unreadable", 0, "cannot open the file")};

  std::set<std::string> names;
  std::set<std::string> seen;  // fields of the current case
  auto finish = [&]() {
    if (cases.empty() || !cases.back().problem.empty()) return;
    for (const auto& f : required_fields)
      if (!seen.count(f)) {
        cases.back().problem = std::string(corpus_path) + ":" + std::to_string(cases.back().line) + ": case '" +
                               cases.back().name + "' has no " + f;
        return;
      }
  };
  std::string text;
  for (int line = 1; std::getline(file, text); ++line) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const auto start = text.find_first_not_of(" \t");
    if (start == std::string::npos || text[start] == '#') continue;
    const auto space = text.find(' ', start);
    const std::string key = text.substr(start, space == std::string::npos ? std::string::npos : space - start);
    const std::string value = space == std::string::npos ? "" : text.substr(space + 1);
    if (key == "case") {
      finish();
      seen.clear();
      const bool valid = !value.empty() && value.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                               std::string::npos;
      if (!valid) {
        cases.push_back(broken("bad_name_line_" + std::to_string(line), line, "bad case name '" + value + "'"));
      } else if (!names.insert(value).second) {
        cases.push_back(broken(value + "_again_line_" + std::to_string(line), line, "second case '" + value + "'"));
      } else {
        MalformedCase c;
        c.name = value;
        c.line = line;
        cases.push_back(c);
      }
      continue;
    }
    if (cases.empty()) {
      cases.push_back(broken("before_first_case_line_" + std::to_string(line), line, "field outside a case"));
      continue;
    }
    MalformedCase& c = cases.back();
    if (!c.problem.empty()) continue;
    if (!seen.insert(key).second) {
      c.problem = std::string(corpus_path) + ":" + std::to_string(line) + ": " + key + " given twice";
      continue;
    }
    const std::string what = set_field(c, key, value);
    if (!what.empty()) c.problem = std::string(corpus_path) + ":" + std::to_string(line) + ": " + what;
  }
  finish();
  if (cases.empty()) return {broken("corpus_empty", 0, "no case in the file")};
  return cases;
}

const std::vector<MalformedCase>& corpus() {
  static const std::vector<MalformedCase> cases = read_corpus();
  return cases;
}

// --- running a case ------------------------------------------------------------

/// "<exception type>: <what()>" of what `run` throws, or "no exception".
template <class Run>
std::string outcome(Run run) {
  try {
    run();
  } catch (const gustav::invalid_input& e) {
    return std::string("invalid_input: ") + e.what();
  } catch (const gustav::overflow_error& e) {
    return std::string("overflow_error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "no exception";
}

class MalformedCsr : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedCsr, Rejects) {
  const MalformedCase& c = GetParam();
  ASSERT_TRUE(c.problem.empty()) << c.problem;
  if (!c.known_gap.empty()) GTEST_SKIP() << "known gap: " << c.known_gap;
  EXPECT_EQ(outcome([&] { gustav::multiply(TestSpace(), c.a.ref(), c.b.ref()); }), c.error + ": " + c.message)
      << "case '" << c.name << "' (" << corpus_path << ":" << c.line << ")";
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedCsr, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(MalformedCsrCorpus, HoldsAtLeastTwentyCases) {
  EXPECT_GE(corpus().size(), 20u);
}

TEST(MalformedCsrCorpus, PartnerMatrixIsAccepted) {
  // The valid matrix most cases pair a faulty operand with: the harness
  // itself rejects nothing.
  EXPECT_EQ(outcome([&] { gustav::multiply(TestSpace(), partner().ref(), partner().ref()); }), "no exception");
}

// --- counts beyond the offset type ------------------------------------------------

/// A (2^16 x 1, all ones) times B (1 x 2^15, all ones): C is dense with
/// exactly 2^31 entries, one more than an int offset holds, from inputs of
/// 96 K entries. The symbolic phase counts C's rows (2^15 each, which fit)
/// and must refuse the total before allocating C (8 GB of column indices).
struct OuterProduct {
  RawCsr a, b;
  OuterProduct() {
    const int m = 1 << 16, n = 1 << 15;
    a.rows = m, a.cols = 1;
    for (int i = 0; i <= m; ++i) a.row_map.push_back(i);
    a.entries.assign(m, 0);
    a.values.assign(m, 1.0);
    b.rows = 1, b.cols = n;
    b.row_map = {0, n};
    for (int j = 0; j < n; ++j) b.entries.push_back(j);
    b.values.assign(n, 1.0);
  }
};

// Not covered here, because no input that reaches them fits this machine:
// - "a row of C has more entries than the offset type can count" needs a row
//   of C with 2^31 entries, so B with 2^31 distinct columns in its entries
//   (16 GB of int64 column indices);
// - "A has too many rows for the ordinal type" needs A with 2^31 - 1 rows,
//   whose row_map (checked first) holds 2^31 offsets (8 GB or more).
// The boundary itself (nnz(C) = 2^31 - 1 accepted with int offsets) would
// allocate C: 8 GB of indices and 16 GB of values.

TEST(MalformedCsrOverflow, MultiplyNamesTheWideOffsetType) {
  const OuterProduct p;
  EXPECT_EQ(outcome([&] { gustav::multiply(TestSpace(), p.a.ref(), p.b.ref()); }),
            "overflow_error: gustav::multiply: nnz(C) = 2147483648 does not fit the offset type int; "
            "use 64-bit offsets (std::int64_t or std::size_t)");
}

TEST(MalformedCsrOverflow, SymbolicNamesTheWideOffsetType) {
  const OuterProduct p;
  EXPECT_EQ(outcome([&] { gustav::symbolic(TestSpace(), p.a.ref(), p.b.ref()); }),
            "overflow_error: gustav::symbolic: nnz(C) = 2147483648 does not fit the offset type int; "
            "use 64-bit offsets (std::int64_t or std::size_t)");
}

// --- numeric after a valid symbolic phase --------------------------------------

// gustav::numeric with operands whose structure broke after gustav::symbolic
// while their shapes and nnz stayed (so the plan's O(1) checks pass). Each is
// refused as gustav::multiply refuses it: numeric repeats the O(nnz) checks.

/// Plans partner() * partner(), then runs gustav::numeric on A and B.
std::string numeric_outcome(const RawCsr& A, const RawCsr& B) {
  const auto plan = gustav::symbolic(TestSpace(), partner().ref(), partner().ref());
  return outcome([&] { gustav::numeric(TestSpace(), plan, A.ref(), B.ref()); });
}

TEST(MalformedCsrNumeric, AColumnIndexEqualToRowsOfB) {
  RawCsr A = partner();
  A.entries = {0, 2, 3, 0};
  EXPECT_EQ(numeric_outcome(A, partner()),
            "invalid_input: gustav::numeric: A has column index 3 in row 1 (entry 2), outside [0, 3)");
}

TEST(MalformedCsrNumeric, AColumnIndexFarOutOfRange) {
  RawCsr A = partner();
  A.entries = {0, 2, 100000000, 0};
  EXPECT_EQ(numeric_outcome(A, partner()),
            "invalid_input: gustav::numeric: A has column index 100000000 in row 1 (entry 2), outside [0, 3)");
}

TEST(MalformedCsrNumeric, BColumnIndexNegative) {
  RawCsr B = partner();
  B.entries = {0, 2, 1, -1};
  EXPECT_EQ(numeric_outcome(partner(), B),
            "invalid_input: gustav::numeric: B has column index -1 in row 2 (entry 3), outside [0, 3)");
}

TEST(MalformedCsrNumeric, BColumnIndexFarOutOfRange) {
  RawCsr B = partner();
  B.entries = {0, 2, 1, 100000000};
  EXPECT_EQ(numeric_outcome(partner(), B),
            "invalid_input: gustav::numeric: B has column index 100000000 in row 2 (entry 3), outside [0, 3)");
}

TEST(MalformedCsrNumeric, ADecreasingRowMap) {
  // A = (1, 1, 1)^T times B = (1): C = (1, 1, 1)^T. With row_map 0 2 1 3, row
  // 0 takes two products, row 1 none, row 2 two: C would be (2, 0, 2)^T.
  const RawCsr A{3, 1, {0, 1, 2, 3}, {0, 0, 0}, {1, 1, 1}};
  const RawCsr B{1, 1, {0, 1}, {0}, {1}};
  RawCsr broken = A;
  broken.row_map = {0, 2, 1, 3};
  const auto plan = gustav::symbolic(TestSpace(), A.ref(), B.ref());
  EXPECT_EQ(outcome([&] { gustav::numeric(TestSpace(), plan, broken.ref(), B.ref()); }),
            "invalid_input: gustav::numeric: A has a decreasing row_map: row_map(2) = 1 < row_map(1) = 2");
}

// The thread-per-row numeric phase has no O(nnz) pass over its operands
// before it: each of its walks (a position per column of B, hash tables,
// ranked rows over a wide B) reads them defensively and the checks name the
// fault afterwards. Each walk meets each fault in a row it reads.

struct NumericWalk {
  const char* name;
  Accumulator accumulator;
  int b_cols;
};

/// A (partner()) times B (3 x cols, one entry in the last column) under `walk`:
/// the plan of the valid pair, then gustav::numeric on the pair with `edit`
/// applied.
template <class Edit>
std::string walk_outcome(const NumericWalk& walk, const Edit& edit) {
  RawCsr A = partner();
  RawCsr B{3, walk.b_cols, {0, 2, 3, 4}, {0, walk.b_cols - 1, 1, 0}, {1.0, 2.0, 3.0, 4.0}};
  SpgemmOptions options;
  options.accumulator = walk.accumulator;
  const auto plan = gustav::symbolic(TestSpace(), A.ref(), B.ref(), options);
  edit(A, B);
  return outcome([&] { gustav::numeric(TestSpace(), plan, A.ref(), B.ref()); });
}

TEST(MalformedCsrNumeric, EveryWalkNamesWhatItReads) {
  // Three million columns: a position per column would pass the dense
  // accumulator's limit, so the rows are ranked (on the CPU).
  for (const NumericWalk walk : {NumericWalk{"positions", Accumulator::automatic, 3},
                                 NumericWalk{"hash tables", Accumulator::hash, 3},
                                 NumericWalk{"ranked", Accumulator::automatic, 3000000}}) {
    SCOPED_TRACE(walk.name);
    const std::string range = "outside [0, " + std::to_string(walk.b_cols) + ")";
    EXPECT_EQ(walk_outcome(walk, [](RawCsr&, RawCsr&) {}), "no exception");
    EXPECT_EQ(walk_outcome(walk, [](RawCsr&, RawCsr& B) { B.entries[3] = -1; }),
              "invalid_input: gustav::numeric: B has column index -1 in row 2 (entry 3), " + range);
    EXPECT_EQ(walk_outcome(walk, [&](RawCsr&, RawCsr& B) { B.entries[3] = walk.b_cols; }),
              "invalid_input: gustav::numeric: B has column index " + std::to_string(walk.b_cols) +
                  " in row 2 (entry 3), " + range);
    EXPECT_EQ(walk_outcome(walk, [](RawCsr& A, RawCsr&) { A.entries[2] = 3; }),
              "invalid_input: gustav::numeric: A has column index 3 in row 1 (entry 2), outside [0, 3)");
    // Row 0 of B runs past B's entries.
    EXPECT_EQ(walk_outcome(walk, [](RawCsr&, RawCsr& B) { B.row_map = {0, 9, 3, 4}; }),
              "invalid_input: gustav::numeric: B has a decreasing row_map: row_map(2) = 3 < row_map(1) = 9");
    // Row 0 of A runs past A's entries.
    EXPECT_EQ(walk_outcome(walk, [](RawCsr& A, RawCsr&) { A.row_map = {0, 7, 3, 4}; }),
              "invalid_input: gustav::numeric: A has a decreasing row_map: row_map(2) = 3 < row_map(1) = 7");
  }
}

TEST(MalformedCsrNumeric, RowsSummedPerColumnNameWhatTheyRead) {
  // The identity streams through B, so the CPU's dense rows sum in a value
  // per column of B beside the positions: that walk reads defensively too.
  const RawCsr I{3, 3, {0, 1, 2, 3}, {0, 1, 2}, {1.0, 1.0, 1.0}};
  const auto plan = gustav::symbolic(TestSpace(), I.ref(), partner().ref());
  const auto run = [&](const auto& edit) {
    RawCsr A = I, B = partner();
    edit(A, B);
    return outcome([&] { gustav::numeric(TestSpace(), plan, A.ref(), B.ref()); });
  };
  EXPECT_EQ(run([](RawCsr&, RawCsr&) {}), "no exception");
  EXPECT_EQ(run([](RawCsr&, RawCsr& B) { B.entries[3] = -1; }),
            "invalid_input: gustav::numeric: B has column index -1 in row 2 (entry 3), outside [0, 3)");
  EXPECT_EQ(run([](RawCsr&, RawCsr& B) { B.entries[3] = 3; }),
            "invalid_input: gustav::numeric: B has column index 3 in row 2 (entry 3), outside [0, 3)");
  EXPECT_EQ(run([](RawCsr& A, RawCsr&) { A.entries[1] = 3; }),
            "invalid_input: gustav::numeric: A has column index 3 in row 1 (entry 1), outside [0, 3)");
  EXPECT_EQ(run([](RawCsr&, RawCsr& B) { B.row_map = {0, 9, 3, 4}; }),
            "invalid_input: gustav::numeric: B has a decreasing row_map: row_map(2) = 3 < row_map(1) = 9");
}

}  // namespace
}  // namespace gustav::test
