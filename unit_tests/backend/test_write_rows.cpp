// gustav::multiply's write pass on the CPU's thread-per-row mapping: rows
// summed in a value per column of B ("dense") and rows ranked, their values
// added straight into C's row ("ranked", B with many columns), each checked
// against the serial reference and through the statistics that say which
// one ran; rows of few products sorted by a network on the way.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/common/host_caches.hpp"
#include "gustav/spgemm/mapping.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class WriteRows : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;
  using typename SpgemmTest<C>::O;
  using typename SpgemmTest<C>::Z;

  /// A rows x cols matrix whose row r holds length(r) entries, the t-th in
  /// column column(r, t, rng), each with a random value.
  template <class Length, class Column>
  Host built(std::int64_t rows, std::int64_t cols, std::uint64_t seed, const Length& length, const Column& column) {
    Rng rng(seed);
    Host M;
    M.num_rows = static_cast<O>(rows);
    M.num_cols = static_cast<O>(cols);
    M.row_map.assign(1, 0);
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t t = 0; t < length(r); ++t) {
        M.entries.push_back(static_cast<O>(column(r, t, rng)));
        M.values.push_back(random_value<S>(rng));
      }
      M.row_map.push_back(static_cast<Z>(M.entries.size()));
    }
    return M;
  }

  /// B whose row k holds `run` neighbouring columns from k * stride (modulo
  /// the width): a band where stride is small, words far apart but in
  /// order where it is large.
  Host strided(std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t run, std::uint64_t seed) {
    return built(
        rows, cols, seed, [&](std::int64_t) { return run; },
        [&](std::int64_t k, std::int64_t t, Rng&) { return (k * stride) % (cols - run) + t; });
  }

  /// B whose row k holds `run` neighbouring columns in descending order,
  /// from the top of the width down by k * stride: each row of A that
  /// streams through it meets its columns from the highest to the lowest.
  Host descending(std::int64_t rows, std::int64_t cols, std::int64_t stride, std::int64_t run, std::uint64_t seed) {
    return built(
        rows, cols, seed, [&](std::int64_t) { return run; },
        [&](std::int64_t k, std::int64_t t, Rng&) { return (cols - run) - (k * stride) % (cols - run) + (run - 1 - t); });
  }

  /// A of random columns (repeated, unsorted) whose row r has r % 81
  /// entries: each length from none to 80, three times over.
  Host rows_of_every_length(std::int64_t cols, std::uint64_t seed) {
    return built(
        3 * 81, cols, seed, [](std::int64_t r) { return r % 81; },
        [&](std::int64_t, std::int64_t, Rng& rng) { return rng.below(cols); });
  }

  /// B whose every row holds `per_row` random columns below `cols`
  /// (repeated, unsorted).
  Host fixed_rows(std::int64_t rows, std::int64_t cols, std::int64_t per_row, std::uint64_t seed) {
    return built(
        rows, cols, seed, [&](std::int64_t) { return per_row; },
        [&](std::int64_t, std::int64_t, Rng& rng) { return rng.below(cols); });
  }

  /// Multiplies, checks against the reference, and expects the write pass
  /// to have kept its rows as `expected` says; returns the statistics.
  SpgemmStats expect_write_rows(const Host& A, const Host& B, const SpgemmOptions& options,
                                const std::string& expected) {
    SpgemmStats stats;
    const auto product = UnderTest<C>::multiply(this->device(A), this->device(B), options, stats);
    this->space.fence();
    EXPECT_EQ(stats.write_rows, expected);
    EXPECT_TRUE(matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), options.sort_rows));
    return stats;
  }
};
TYPED_TEST_SUITE(WriteRows, AllConfigs, ConfigNames);

// Two million columns: a value per column would pass the dense
// accumulator's limit for every scalar type, so the rows are ranked
// whatever B's runs: scattered columns (the read-out descends the bitmap's
// levels), a band (it scans the words, and B's runs mark them) and words far
// apart in order (it sorts the list). A has empty rows and repeated columns.
TYPED_TEST(WriteRows, RowsOverMillionsOfColumnsAreRanked) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const std::int64_t inner = 3000, cols = std::int64_t(1) << 21;
  RandomShape shape;
  shape.empty_rows = 0.1;
  shape.duplicates = true;
  const auto A = this->random(4000, inner, 5, 60, shape);
  const auto scattered = this->random(inner, cols, 3, 61);
  const auto band = this->strided(inner, cols, 1, 6, 62);
  const auto far_apart = this->strided(inner, cols, 700, 2, 63);
  for (const auto* B : {&scattered, &band, &far_apart})
    for (const auto compression : {Compression::automatic, Compression::always, Compression::never})
      for (const bool sorted : {true, false}) {
        SCOPED_TRACE(std::string(B == &scattered ? "scattered" : B == &band ? "band" : "far apart") +
                     (compression == Compression::always ? ", compressed" :
                      compression == Compression::never ? ", uncompressed" : "") +
                     (sorted ? "" : ", unsorted"));
        SpgemmOptions options;
        options.compression = compression;
        options.sort_rows = sorted;
        this->expect_write_rows(A, *B, options, "ranked");
      }
}

// Where A streams through a B of four million columns, the rows are summed
// in a ring (a slot per column's low bits, as wide as four times the L2
// allows) and only rows whose columns span more than the ring less a word
// are ranked. Each row of C joins three rows of B, some of which reach far:
// spans just inside and just past that bound, two columns exactly a ring
// apart (one slot), and columns a ring and a half apart, so that rows of
// both kinds and the bound between them are checked.
TYPED_TEST(WriteRows, StreamingRowsOverMillionsOfColumnsTakeTheRing) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  struct Slot {
    S sum;
    O column;
  };
  const std::int64_t inner = 3000, cols = std::int64_t(1) << 22;
  // The product's ring: four times a core's L2, narrowed where it would
  // pass the dense limit beside the pass's arrays over B's columns (half
  // the limit leaves room for them at this width of B).
  const std::int64_t widest = std::min<std::int64_t>(
      {cols, static_cast<std::int64_t>(detail::host_l2_bytes() * 4 / sizeof(Slot)),
       static_cast<std::int64_t>(detail::dense_accumulator_limit / 2 / sizeof(Slot))});
  std::int64_t ring = 1024;
  while (2 * ring <= widest) ring *= 2;
  if (2 * ring + 2 * inner >= cols) GTEST_SKIP() << "a ring of " << ring << " slots leaves no room past it";
  // Row i of A: columns i - 1, i, i + 1, so each row names the rows of B
  // just after those the row above named.
  const auto A = this->built(
      inner, inner, 340, [&](std::int64_t r) { return r == 0 || r == inner - 1 ? 2 : 3; },
      [&](std::int64_t r, std::int64_t t, Rng&) { return (r == 0 ? 0 : r - 1) + t; });
  // Row k of B: columns 2k and 2k + 1, and where k % 10 is 1, 4, 6 or 8 one
  // more: a span of ring - 38 with the row before (ring), ring - 28
  // (ranked), the column 2k + ring (the slot of 2k), or 2k + ring * 3 / 2.
  const auto B = this->built(
      inner, cols, 341, [&](std::int64_t k) { return k % 10 == 1 || k % 10 == 4 || k % 10 == 6 || k % 10 == 8 ? 3 : 2; },
      [&](std::int64_t k, std::int64_t t, Rng&) {
        if (t < 2) return 2 * k + t;
        const std::int64_t reach = k % 10 == 1 ? ring - 40 : k % 10 == 4 ? ring - 30 : k % 10 == 6 ? ring : ring * 3 / 2;
        return 2 * k + reach;
      });
  for (const auto compression : {Compression::automatic, Compression::always, Compression::never})
    for (const bool sorted : {true, false}) {
      SCOPED_TRACE(std::string(compression == Compression::always  ? "compressed"
                               : compression == Compression::never ? "uncompressed"
                                                                   : "automatic") +
                   (sorted ? "" : ", unsorted"));
      SpgemmOptions options;
      options.compression = compression;
      options.sort_rows = sorted;
      this->expect_write_rows(A, B, options, "ring");
    }
}

// B of so many columns (64-bit indices) that the write pass's accumulator,
// a value per column, would pass 2^64 bytes and its size wrap to a few
// bytes: each column count is taken just around where that size would wrap
// for the configuration's types (four words of bitmap and summaries, the
// list of set words and the values, per 32 columns), and at 2^40 and 2^62.
// No accumulator is sized by such B's columns, not even where the dense
// one is asked for: the product takes no one walk, and is right.
TYPED_TEST(WriteRows, ColumnsWhoseAccumulatorSizeWouldWrapTakeNone) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  if constexpr (sizeof(O) < 8) {
    GTEST_SKIP() << "needs 64-bit column indices";
  } else {
    // Bytes per 32 columns, in 1024ths: a bitmap word, its summary and top
    // bits, a set word's index, 32 values.
    const unsigned __int128 per_32 = 4 * 1024 + 128 + 4 + 1024 * sizeof(O) + 32 * 1024 * sizeof(S);
    const std::int64_t wrap_words = static_cast<std::int64_t>((static_cast<unsigned __int128>(1) << 74) / per_32);
    std::vector<std::int64_t> widths = {std::int64_t(1) << 40, std::int64_t(1) << 62};
    for (std::int64_t w = wrap_words - 2; w <= wrap_words + 3; ++w) widths.push_back(32 * w);
    const std::int64_t n = 40;
    for (const std::int64_t cols : widths) {
      SCOPED_TRACE("B of " + std::to_string(cols) + " columns");
      // A: rows i and i + 1 of B for row i. B: row k holds columns k, a
      // middle one and one near the top of the width.
      const auto A = this->built(
          n, n, 350, [&](std::int64_t r) { return r + 1 < n ? 2 : 1; },
          [&](std::int64_t r, std::int64_t t, Rng&) { return r + t; });
      const auto B = this->built(
          n, cols, 351, [&](std::int64_t) { return 3; },
          [&](std::int64_t k, std::int64_t t, Rng&) {
            return t == 0 ? k : t == 1 ? cols / 2 + 7 * k : cols - 1 - 3 * k;
          });
      for (const auto accumulator : {Accumulator::automatic, Accumulator::dense}) {
        for (const auto compression : {Compression::automatic, Compression::never}) {
          SCOPED_TRACE(std::string(accumulator == Accumulator::dense ? "dense asked for" : "automatic") +
                       (compression == Compression::never ? ", uncompressed" : ""));
          SpgemmOptions options;
          options.accumulator = accumulator;
          options.compression = compression;
          SpgemmStats stats;
          const auto product = TestFixture::Run::multiply(this->device(A), this->device(B), options, stats);
          this->space.fence();
          EXPECT_EQ(stats.write_rows, "");
          EXPECT_TRUE(matches_reference<S>(to_host_csr<S, O, typename TestFixture::Z>(product),
                                           reference_multiply(A, B), true));
        }
      }
    }
  }
}

// Over 3,000 and 300,000 scattered columns a value per column fits every
// thread, and the rows are summed; under a memory budget of half that per
// thread they are ranked, and the product still takes its one walk.
TYPED_TEST(WriteRows, RowsAreRankedWhereValuesPerColumnDoNotFit) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  using S = typename TestFixture::S;
  const std::int64_t inner = 2000, wide = 300000;
  const auto A = this->random(3000, inner, 6, 70);
  const auto B = this->random(inner, wide, 4, 71);
  this->expect_write_rows(A, this->random(inner, 3000, 4, 72), {}, "dense");
  this->expect_write_rows(A, B, {}, "dense");
  SpgemmOptions budget;
  const auto threads = static_cast<std::size_t>(TestSpace().concurrency());
  budget.memory_budget_bytes = threads * static_cast<std::size_t>(wide) * sizeof(S) / 2;
  this->expect_write_rows(A, B, budget, "ranked");
}

// Each row of A names the rows of B just after those the row above named,
// so A streams through B (a stencil's pattern) and the count and write
// passes test whether a column is new before setting it: with B compressed
// (runs of columns mark the count's bitmap) and not, over a band of B and
// over runs far apart. Rows of C of at most 16 entries over an uncompressed
// B are listed as their columns come and sorted after: the band's 11 (in
// nearly the right order) and the descending runs' 14 (in reverse order);
// the runs far apart make 28 and take the bitmap.
TYPED_TEST(WriteRows, RowsOfAStreamingThroughBMatchTheReference) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const auto A = this->strided(3000, 3000, 1, 7, 90);
  const auto band = this->strided(3000, 3000, 1, 5, 91);
  const auto apart = this->strided(3000, 50000, 13, 4, 92);
  const auto reversed = this->descending(3000, 50000, 3, 2, 93);
  for (const auto compression : {Compression::never, Compression::always}) {
    SCOPED_TRACE(compression == Compression::never ? "B not compressed" : "B compressed");
    SpgemmOptions options;
    options.compression = compression;
    for (const auto* B : {&band, &apart, &reversed}) {
      this->expect_write_rows(A, *B, options, "dense");
      EXPECT_TRUE(this->plan_matches(A, *B, options));
    }
  }
}

// Where A does not stream through B, each set word's columns go to C four
// at a time whatever the word holds, the next word's overwriting those past
// its own, and only the row's last words (too near its end for four more)
// go a column at a time; the plan's fill pass reads its rows out the same
// way. B's rows are runs of 1 to 40 neighbouring columns from random starts,
// so the words of a row of C hold from one column to all 32, and the rows
// reach their ends on words of every size. B is compressed and not (its runs
// mark the bitmap, or its entries do); the plan must give the same C.
TYPED_TEST(WriteRows, WordsOfEveryColumnCountAreWrittenInOrder) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const std::int64_t inner = 900, cols = 6000;
  const auto A = this->rows_of_every_length(inner, 110);
  const auto B = this->built(
      inner, cols, 111, [](std::int64_t k) { return 1 + (k * 7) % 40; },
      [&](std::int64_t k, std::int64_t t, Rng&) { return (k * 389) % (cols - 40) + t; });
  for (const auto compression : {Compression::never, Compression::always}) {
    SCOPED_TRACE(compression == Compression::never ? "B not compressed" : "B compressed");
    SpgemmOptions options;
    options.compression = compression;
    this->expect_write_rows(A, B, options, "dense");
    EXPECT_TRUE(this->plan_matches(A, B, options));
  }
}

// Random rows of at most 64 products are sorted by a network padded to 8,
// 16, 32 or 64 keys where a value per column of B passes a mebibyte, longer
// ones summed: rows of every product count from none to 80 (one entry per
// row of B) and to 160 (two), each size's edges among them. B has 400,000
// columns (sorted rows) or 20,000 (every row summed in the accumulator); with
// its entries spread over 20 columns most products repeat a column (the
// sorted runs are summed), over all of them few do.
TYPED_TEST(WriteRows, RowsOfFewProductsAreSortedAndSummed) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const std::int64_t inner = 700;
  const auto A = this->rows_of_every_length(inner, 100);
  for (const std::int64_t cols : {std::int64_t(20000), std::int64_t(400000)})
    for (const std::int64_t spread : {std::int64_t(20), cols})
      for (const std::int64_t per_row : {std::int64_t(1), std::int64_t(2)}) {
        SCOPED_TRACE(std::to_string(cols) + " columns, entries over " + std::to_string(spread) + ", " +
                     std::to_string(per_row) + " a row of B");
        const auto B = this->built(
            inner, cols, 101 + static_cast<std::uint64_t>(spread + per_row), [&](std::int64_t) { return per_row; },
            [&](std::int64_t, std::int64_t, Rng& rng) { return rng.below(spread); });
        for (const bool sorted : {true, false}) {
          SpgemmOptions options;
          options.sort_rows = sorted;
          this->expect_write_rows(A, B, options, "dense");
        }
      }
}

// Rows of 65 to 512 products over a B whose value per column passes 512
// KiB are sorted too, on the host (write_pass.hpp: wide_sorted_row): rows
// of A of 0 to 80 entries over rows of B of 7 give rows of every product
// count from none to 560, past both edges (64, 512), so the network, the
// wide sort and the accumulator all take rows of one product. B has 100,000
// columns; its entries spread over all of them (about one key a bucket),
// over 3,000 (a few buckets crowded: the shell sort) or over 20 (most products
// repeat a column, whose runs are summed).
TYPED_TEST(WriteRows, RowsOfUpTo512ProductsAreSortedWide) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const std::int64_t inner = 700, cols = 100000;
  const auto A = this->rows_of_every_length(inner, 120);
  for (const std::int64_t spread : {cols, std::int64_t(3000), std::int64_t(20)}) {
    SCOPED_TRACE("entries of B over " + std::to_string(spread) + " columns");
    const auto B = this->built(
        inner, cols, 121 + static_cast<std::uint64_t>(spread), [](std::int64_t) { return 7; },
        [&](std::int64_t, std::int64_t, Rng& rng) { return rng.below(spread); });
    for (const bool sorted : {true, false}) {
      SpgemmOptions options;
      options.sort_rows = sorted;
      const SpgemmStats stats = this->expect_write_rows(A, B, options, "dense");
      EXPECT_EQ(stats.max_row_products, 560);
    }
  }
}

// Where every row has at most 512 products (and A does not stream through
// B, whose value per column passes a mebibyte), no row takes the dense
// accumulator, so the pass's pool is a few bytes a thread instead of a
// value per column of B: rows of 64 products (sorted by the network), one
// of 72 (the wide sort); one row of 520 products brings the accumulator back.
TYPED_TEST(WriteRows, RowsOfFewProductsOnlyTakeNoAccumulator) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const std::int64_t inner = 900, cols = 400000;
  const auto A = this->fixed_rows(2000, inner, 8, 110);
  const auto B = this->fixed_rows(inner, cols, 8, 111);
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  // Row 0 names `more` more rows of B: 8 products each.
  const auto longer_by = [&](int more) {
    auto a = A;
    for (int k = 0; k < more; ++k) {
      a.entries.insert(a.entries.begin(), static_cast<O>(k % inner));
      a.values.insert(a.values.begin(), a.values.front());
    }
    for (std::size_t r = 1; r < a.row_map.size(); ++r) a.row_map[r] += static_cast<Z>(more);
    return a;
  };
  const SpgemmStats few = this->expect_write_rows(A, B, {}, "dense");
  const SpgemmStats wide = this->expect_write_rows(longer_by(1), B, {}, "dense");
  const SpgemmStats longer = this->expect_write_rows(longer_by(57), B, {}, "dense");
  EXPECT_EQ(few.max_row_products, 64);
  EXPECT_EQ(wide.max_row_products, 72);
  EXPECT_EQ(longer.max_row_products, 520);
  EXPECT_LT(few.numeric_pool_bytes, static_cast<std::size_t>(cols));
  EXPECT_LT(wide.numeric_pool_bytes, static_cast<std::size_t>(cols));
  EXPECT_GE(longer.numeric_pool_bytes, static_cast<std::size_t>(cols) * sizeof(S));
}

// A plan made by gustav::symbolic holds C's structure before any value, so
// no write pass runs for it, and its statistics say so; its product and the
// one-shot (ranked) product both match the reference.
TYPED_TEST(WriteRows, SymbolicPlansRunNoWritePass) {
  if (!test_space_is_host) GTEST_SKIP() << "the write pass runs on the CPU's thread-per-row mapping";
  const auto A = this->random(500, 800, 4, 80);
  const auto B = this->random(800, 400000, 3, 81);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), {});
  EXPECT_EQ(plan.stats().write_rows, "");
  EXPECT_TRUE(this->plan_matches(A, B));
  EXPECT_TRUE(this->multiply_matches(A, B));
}

}  // namespace
}  // namespace gustav::test
