// Plans that keep their entries' masks (SpgemmOptions::keep_entry_masks, an
// opt-in of the hierarchical mapping): repeats match the reference whatever
// the width of the rows of C (tiny rows of many entries of A, short rows
// over long rows of B, one to four words, and rows too long for masks
// beside them) and give the same bits in the masked rows, the masks take at
// most four bytes per entry of A and word, they are kept only where they
// apply, and a changed structure, a row of A longer than its masks
// included, is caught.
#include <algorithm>
#include <string>
#include <vector>

#include "gustav/common/launch.hpp"
#include "gustav/spgemm/entry_masks.hpp"
#include "support/kept_products_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class EntryMasks : public KeptProductsTest<C> {
 protected:
  using typename KeptProductsTest<C>::Host;
  using typename KeptProductsTest<C>::S;
  using typename KeptProductsTest<C>::O;
  using typename KeptProductsTest<C>::Z;
  using Run = typename KeptProductsTest<C>::Run;

  /// The hierarchical mapping (the GPUs'), masks as asked.
  static SpgemmOptions masked(bool keep = true) {
    SpgemmOptions o;
    o.cpu_mapping = CpuMapping::hierarchical;
    o.keep_entry_masks = keep;
    return o;
  }

  /// Symbolic, whether it kept masks, then numeric, a repeat with new
  /// values and a second repeat with the same values (the same bits).
  void repeats_match(const Host& A, const Host& B, bool expect_masks) {
    const auto plan = Run::symbolic(this->device(A), this->device(B), masked());
    if (expect_masks) {
      EXPECT_GT(plan.stats().masks_bytes, 0u);
    } else {
      EXPECT_EQ(plan.stats().masks_bytes, 0u);
    }
    // Rows of C past the masks' width take the default path, whose GPU
    // tables add with atomics (any order); CPUs sum every row in one order.
    const std::int64_t same_bits_up_to =
        gustav::detail::is_host_space<TestSpace>() ? -1 : gustav::detail::EntryMasks<Kokkos::HostSpace>::max_row;
    this->expect_repeats_match(plan, A, B, 401, same_bits_up_to);
  }

  /// Adds `column` to `columns` unless it is there already.
  static void add_distinct(std::vector<O>& columns, O column) {
    if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
  }

  /// `count` distinct columns below `below` drawn from `rng`, sorted.
  static std::vector<O> distinct_sorted(Rng& rng, std::size_t count, std::int64_t below) {
    std::vector<O> columns;
    while (columns.size() < count) add_distinct(columns, static_cast<O>(rng.below(below)));
    std::sort(columns.begin(), columns.end());
    return columns;
  }

  /// A `rows` x `cols` matrix whose row i holds the (sorted) columns
  /// row_columns(i), each given a value from `rng` once its row's columns
  /// are drawn.
  template <class RowColumns>
  static Host from_rows(Rng& rng, std::int64_t rows, std::int64_t cols, const RowColumns& row_columns) {
    Host M;
    M.num_rows = rows;
    M.num_cols = cols;
    M.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (const O c : row_columns(i)) {
        M.entries.push_back(c);
        M.values.push_back(random_value<S>(rng));
      }
      M.row_map.push_back(static_cast<Z>(M.entries.size()));
    }
    return M;
  }

  /// The last entry of A's second-to-last row moved to its last row (the
  /// same entries, one more in the last row than the plan has words for):
  /// the sums read only the words the plan holds for each row, the
  /// fingerprint names the change, and the unchanged A still sums right.
  template <class Plan>
  void expect_longer_last_row_caught(const Plan& plan, const Host& A, const Host& B) {
    auto shifted = A;
    const std::size_t last = static_cast<std::size_t>(A.num_rows) - 1;
    ASSERT_GE(A.row_map[last] - A.row_map[last - 1], 2);
    const auto moved_column = A.entries[static_cast<std::size_t>(A.row_map[last]) - 1];
    ASSERT_EQ(std::count(A.entries.begin() + A.row_map[last], A.entries.end(), moved_column), 0)
        << "the moved entry's column must be new to the last row";
    shifted.row_map[last] -= 1;
    EXPECT_THROW(Run::numeric(plan, this->device(shifted), this->device(B)), gustav::plan_mismatch);
    EXPECT_TRUE(this->matches(Run::numeric(plan, this->device(A), this->device(B)), A, B));
  }
};
TYPED_TEST_SUITE(EntryMasks, AllConfigs, ConfigNames);

TYPED_TEST(EntryMasks, RepeatsMatchTheReferenceAndGiveTheSameBits) {
  // Rectangular, empty rows, and a long row of A whose row of C is too wide
  // for masks (its bin keeps the default path beside the masked ones).
  for (const double avg : {4.0, 9.0}) {
    SCOPED_TRACE("mean row length " + std::to_string(avg));
    RandomShape a_shape;
    a_shape.empty_rows = 0.2;
    a_shape.long_row = 7;
    a_shape.long_row_length = 120;
    const auto A = this->random(700, 500, avg, 410 + static_cast<std::uint64_t>(avg), a_shape);
    const auto B = this->random(500, 900, avg, 420 + static_cast<std::uint64_t>(avg));
    this->repeats_match(A, B, true);
  }
}

TYPED_TEST(EntryMasks, RowsOfEveryWidthSum) {
  // Rows of A of 1 to 24 entries over rows of B of about 10 columns: rows
  // of C from a few entries (the tiny bin) through one, two and four words
  // to rows past 128 entries, which take the default path. Rows of B of
  // about 10 entries give a worker 16 lanes, so on GPUs the one-word bins
  // run the sum capped at 32 registers (sum_entry_masks.hpp).
  RandomShape a_shape;
  const auto A = this->random(600, 400, 12, 430, a_shape);
  const auto B = this->random(400, 3000, 10, 431);
  this->repeats_match(A, B, true);
  // The same with every row of C within a word, and 4 lanes: uncapped.
  const auto N = this->random(600, 400, 3, 432);
  const auto M = this->random(400, 3000, 4, 433);
  this->repeats_match(N, M, true);
}

TYPED_TEST(EntryMasks, TinyRowsOfManyEntriesSum) {
  // Tiny rows (at most 8 products) with up to 9 entries of A, most of them
  // over empty rows of B: a row's entries span several of the tiny sum's
  // batches of four, and entries without products sit between those with.
  // Every third row of B is empty, the others hold 4 columns; odd rows of A
  // take two rows of B of 4 columns (8 products) among 1 to 7 empty ones,
  // even rows 4 to 7 rows of 4 columns (the worker bins; rows of C within
  // one word). About 4,600 words for 12,000 products: the masks are kept
  // (at most half a word a product).
  using O = typename TestFixture::O;
  Rng rng(486);
  // A row of B of 4 columns: 3 q + 1 or 3 q + 2.
  const auto full_row = [&rng]() {
    const auto q = rng.below(200);
    return static_cast<O>(3 * q + 1 + rng.below(2));
  };
  const auto B = TestFixture::from_rows(rng, 600, 700, [&](std::int64_t k) {
    return k % 3 != 0 ? TestFixture::distinct_sorted(rng, 4, 700) : std::vector<O>();
  });
  const auto A = TestFixture::from_rows(rng, 800, 600, [&](std::int64_t i) {
    std::vector<O> cols;
    if (i % 2 == 1) {
      const std::size_t empty = 1 + static_cast<std::size_t>(i / 2) % 7;
      while (cols.size() < empty) TestFixture::add_distinct(cols, static_cast<O>(3 * rng.below(200)));
      while (cols.size() < empty + 2) TestFixture::add_distinct(cols, full_row());
    } else {
      const std::size_t length = 4 + static_cast<std::size_t>(rng.below(4));
      while (cols.size() < length) TestFixture::add_distinct(cols, full_row());
    }
    std::sort(cols.begin(), cols.end());
    return cols;
  });
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::masked());
  ASSERT_GT(plan.stats().masks_bytes, 0u);
  std::int64_t tiny_rows = 0;
  for (const auto& bin : plan.stats().numeric_bins)
    if (bin.name == "tiny") tiny_rows = bin.rows;
  EXPECT_GE(tiny_rows, 400) << "the odd rows of A are tiny";
  this->repeats_match(A, B, true);
  // The last entry of even row 798 moved into tiny row 799 (a new column
  // there), which then has one entry more than its words: the tiny sum
  // reads only the words the plan holds, and the fingerprint names it.
  this->expect_longer_last_row_caught(plan, A, B);
}

TYPED_TEST(EntryMasks, ShortRowsOverLongRowsOfBSum) {
  // Rows of B of 6 to 8 columns (a worker would want 8 lanes, more than the
  // 4 of one-word rows): rows of A of one entry (tiny rows), two (rows of C
  // of at most 16 entries: on GPUs a thread a row) and four (the worker
  // bins), the last row one of two entries.
  Rng rng(487);
  const auto B = TestFixture::from_rows(rng, 500, 2000, [&](std::int64_t) {
    return TestFixture::distinct_sorted(rng, 6 + rng.below(3), 2000);
  });
  const auto A = TestFixture::from_rows(rng, 899, 500, [&](std::int64_t i) {
    const std::size_t entries = i % 4 == 0 ? 1 : i % 4 == 3 ? 4 : 2;
    return TestFixture::distinct_sorted(rng, entries, 500);
  });
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::masked());
  ASSERT_GT(plan.stats().masks_bytes, 0u);
  if (!gustav::detail::is_host_space<TestSpace>()) {
    std::int64_t short_rows = 0;
    for (const auto& bin : plan.stats().numeric_bins)
      if (bin.name != "tiny" && bin.max_need <= 16) short_rows += bin.rows;
    EXPECT_GE(short_rows, 300) << "most rows of two entries of A have rows of C of 9 to 16 entries";
  }
  this->repeats_match(A, B, true);
  // The last entry of row 897 moved into row 898, which then has three
  // entries and words for two: only those are read, and the fingerprint
  // names the change.
  this->expect_longer_last_row_caught(plan, A, B);
}

TYPED_TEST(EntryMasks, MasksTakeAWordPerEntryOfAAndThirtyTwoEntriesOfC) {
  const auto A = this->random(2000, 2000, 6, 440);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::masked());
  const std::size_t entries = A.entries.size();
  const std::size_t rows = static_cast<std::size_t>(A.num_rows) + 1;
  // Rows of C of about 36 entries: one or two words an entry of A, and the
  // rows' starts.
  EXPECT_GE(plan.stats().masks_bytes, 4 * entries);
  EXPECT_LE(plan.stats().masks_bytes, 4 * (4 * entries + rows));
  EXPECT_LE(plan.stats().masks_bytes, 2 * static_cast<std::size_t>(plan.stats().products) + 4 * rows);
  EXPECT_EQ(plan.stats().positions_bytes, 0u);
}

TYPED_TEST(EntryMasks, OffByDefaultOrWithKeptPositionsKeepNone) {
  const auto A = this->random(300, 300, 6, 450);
  const auto off = TestFixture::Run::symbolic(this->device(A), this->device(A), TestFixture::masked(false));
  EXPECT_EQ(off.stats().masks_bytes, 0u);
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(off, this->device(A), this->device(A)), A, A));
  SpgemmOptions defaults;
  defaults.cpu_mapping = CpuMapping::hierarchical;
  EXPECT_EQ(TestFixture::Run::symbolic(this->device(A), this->device(A), defaults).stats().masks_bytes, 0u);
  // Kept positions take precedence.
  auto positions = TestFixture::keeping(KeptLayout::lists);
  positions.keep_entry_masks = true;
  const auto kept = TestFixture::Run::symbolic(this->device(A), this->device(A), positions);
  EXPECT_EQ(kept.stats().masks_bytes, 0u);
  EXPECT_GT(kept.stats().positions_bytes, 0u);
}

TYPED_TEST(EntryMasks, RowsOfBOutOfOrderOrRepeatedKeepNone) {
  const auto A = this->random(300, 200, 6, 460);
  for (const bool repeated : {true, false}) {
    SCOPED_TRACE(repeated ? "a repeated column" : "columns out of order");
    auto B = this->random(200, 300, 6, 461);
    const std::size_t r = this->first_row_of_two(B);
    if (repeated) {
      const auto at = static_cast<std::size_t>(B.row_map[r]);
      B.entries[at + 1] = B.entries[at];
    } else {
      B = this->with_two_swapped(B, r);
    }
    this->repeats_match(A, B, false);
  }
}

TYPED_TEST(EntryMasks, FewProductsAnEntryKeepNone) {
  // One product an entry of A (B a permutation): a word an entry would be
  // a word a product, past the bound of half a word.
  const auto A = this->random(400, 400, 6, 470);
  typename TestFixture::Host P;
  P.num_rows = P.num_cols = 400;
  P.row_map.assign(1, 0);
  Rng rng(471);
  for (int k = 0; k < 400; ++k) {
    P.entries.push_back(static_cast<typename TestFixture::O>((k * 7) % 400));
    P.values.push_back(random_value<typename TestFixture::S>(rng));
    P.row_map.push_back(static_cast<typename TestFixture::Z>(k + 1));
  }
  this->repeats_match(A, P, false);
}

TYPED_TEST(EntryMasks, AChangedStructureIsCaught) {
  const auto A = this->random(150, 150, 8, 480);
  const auto B = this->random(150, 150, 8, 481);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::masked());
  ASSERT_GT(plan.stats().masks_bytes, 0u);
  EXPECT_NO_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(B)));
  // Two columns of a row of B swapped: every product stays inside C's
  // structure, but the masks no longer say where.
  const auto moved = this->with_two_swapped(B, this->first_row_of_two(B));
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(moved)), gustav::plan_mismatch);
  // A's columns reversed with the same row map.
  auto redrawn = A;
  std::reverse(redrawn.entries.begin(), redrawn.entries.end());
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(redrawn), this->device(B)), gustav::plan_mismatch);
  EXPECT_TRUE(this->matches(TestFixture::Run::numeric(plan, this->device(A), this->device(B)), A, B));
}

TYPED_TEST(EntryMasks, ARowLongerThanItsMasksIsCaught) {
  // The last entry of A's second-to-last row moved to its last row (the same
  // entries, one more in the row whose masks end the plan's words): the sums
  // read only the masks the plan holds for each row, and the fingerprint
  // names the change.
  const auto A = this->random(150, 150, 8, 482);
  const auto B = this->random(150, 150, 8, 483);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), TestFixture::masked());
  ASSERT_GT(plan.stats().masks_bytes, 0u);
  this->expect_longer_last_row_caught(plan, A, B);
}

}  // namespace
}  // namespace gustav::test
