// The long-row path's slicing: each long row is split into slices of a
// number of its products chosen for the pass (on GPUs 2,048 for products
// this small; more on host backends, which hold fewer teams at once), and
// each thread finds where its stretch of a slice starts in A's row by a
// binary search in the row's product offsets. Windows of up to 65,536
// columns are marked in team scratch first; the read-out case's 300,000
// columns are marked in the window directly. These cases put slice and
// stretch boundaries inside long rows of B, on empty rows of B, and on rows
// of A with no products, through the one-shot product and the plan
// (symbolic, numeric) alike; and a reuse whose product falls outside a long
// row's planned columns. Two more cases reach the values' walk from both
// ends: rows whose products pile onto few columns of a wide B (dozens of
// slices each, over 400,000 columns in two windows of the adding walk, and
// over 250,000 in one window of its wider layout), and rows with exactly
// one product per entry of C (one slice each); both also reuse a plan with
// an entry of B moved onto a column the plan lacks, which must be reported.
// A plan keeps the long rows' offsets from its first numeric call: a last
// case changes the lengths of rows of A and of B under it (every product
// still within C's structure) and must get the new products' sums. Rows
// whose values fit the adding walk's scratch sum there, over many slices or
// in their row's only slice.
#include <algorithm>
#include <vector>

#include "gustav/common/launch.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class LongRows : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;
  using typename SpgemmTest<C>::O;
  using typename SpgemmTest<C>::Z;

  /// A's rows: each entry of `lengths` is a row with that many entries over
  /// B's rows, chosen at random (columns sorted, no repeats).
  Host rows_over(const std::vector<std::int64_t>& lengths, std::int64_t inner, std::uint64_t seed) {
    Rng rng(seed);
    Host A;
    A.num_rows = static_cast<O>(lengths.size());
    A.num_cols = static_cast<O>(inner);
    A.row_map.assign(1, 0);
    std::vector<char> taken(static_cast<std::size_t>(inner));
    for (const std::int64_t len : lengths) {
      std::fill(taken.begin(), taken.end(), 0);
      for (std::int64_t t = 0; t < len && t < inner; ++t) {
        std::int64_t k = rng.below(inner);
        while (taken[static_cast<std::size_t>(k)]) k = (k + 1) % inner;
        taken[static_cast<std::size_t>(k)] = 1;
      }
      for (std::int64_t k = 0; k < inner; ++k)
        if (taken[static_cast<std::size_t>(k)]) {
          A.entries.push_back(static_cast<O>(k));
          A.values.push_back(random_value<S>(rng));
        }
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
    }
    return A;
  }

  void expect_long_rows_right(const Host& A, const Host& B) {
    SpgemmOptions options;
    options.cpu_mapping = CpuMapping::hierarchical;
    for (bool sorted : {true, false}) {
      options.sort_rows = sorted;
      const auto plan = UnderTest<C>::symbolic(this->device(A), this->device(B), options);
      ASSERT_FALSE(plan.stats().numeric_bins.empty());
      EXPECT_EQ(plan.stats().count_bins.back().name, "long");
      EXPECT_GT(plan.stats().count_bins.back().rows, 0);
      EXPECT_EQ(plan.stats().numeric_bins.back().name, "long");
      EXPECT_GT(plan.stats().numeric_bins.back().rows, 0);
      EXPECT_TRUE(this->multiply_matches(A, B, options)) << (sorted ? "sorted" : "unsorted");
      EXPECT_TRUE(this->plan_matches(A, B, options)) << (sorted ? "sorted" : "unsorted");
    }
  }

  /// A plan of A * B whose last numeric bin is the long rows (`long_rows`
  /// of them, where not negative; not checked where `in_long_bin` is off)
  /// reuses right with B and reports `moved` (B with an entry moved onto a
  /// column the plan lacks) as a mismatch.
  void expect_moved_entry_reported(const Host& A, const Host& B, const Host& moved, std::int64_t long_rows,
                                   bool in_long_bin = true) {
    SpgemmOptions options;
    options.cpu_mapping = CpuMapping::hierarchical;
    const auto plan = UnderTest<C>::symbolic(this->device(A), this->device(B), options);
    ASSERT_FALSE(plan.stats().numeric_bins.empty());
    if (in_long_bin) EXPECT_EQ(plan.stats().numeric_bins.back().name, "long");
    if (in_long_bin && long_rows >= 0) EXPECT_EQ(plan.stats().numeric_bins.back().rows, long_rows);
    const auto product = UnderTest<C>::numeric(plan, this->device(A), this->device(B));
    this->space.fence();
    EXPECT_TRUE(matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), options.sort_rows));
    EXPECT_THROW(UnderTest<C>::numeric(plan, this->device(A), this->device(moved)), gustav::plan_mismatch);
  }

  /// B of `cols` columns whose rows (64 entries each, 8,000 rows) use only
  /// every `spacing`-th of the first 16,000 * spacing: rows of A of up to
  /// 8,000 entries make long rows over a wide, sparse span of columns.
  /// Checks the products and that a reuse with an entry of B moved onto
  /// column cols - 1 is reported.
  void expect_spread_columns_right(std::int64_t cols, std::int64_t spacing, std::uint64_t seed) {
    const std::int64_t inner = 8000, used = 16000, per_row = 64;
    ASSERT_LT((used - 1) * spacing + 13, cols - 1);
    Rng rng(seed);
    Host B;
    B.num_rows = static_cast<O>(inner);
    B.num_cols = static_cast<O>(cols);
    B.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<std::int64_t> picks;
      while (static_cast<std::int64_t>(picks.size()) < per_row) {
        const std::int64_t k = rng.below(used);
        if (std::find(picks.begin(), picks.end(), k) == picks.end()) picks.push_back(k);
      }
      std::sort(picks.begin(), picks.end());
      for (const std::int64_t k : picks) {
        B.entries.push_back(static_cast<O>(k * spacing + 13));
        B.values.push_back(random_value<S>(rng));
      }
      B.row_map.push_back(static_cast<Z>(B.entries.size()));
    }
    const Host A = rows_over({8000, 0, 5000, 3, 7999}, inner, seed + 1);
    expect_long_rows_right(A, B);

    Host moved = B;
    moved.entries[static_cast<std::size_t>(per_row) - 1] = static_cast<O>(cols - 1);
    expect_moved_entry_reported(A, B, moved, 3);
  }
};
TYPED_TEST_SUITE(LongRows, AllConfigs, ConfigNames);

TYPED_TEST(LongRows, SlicesOverLongRowsOfB) {
  // B's rows hold 0 to 64 entries (32 on average): threads of a slice share
  // B's rows in warp groups. Rows of A with 2000 to 3000 entries make 64,000
  // to 96,000 products each, several slices; a row of A with no entries and
  // short rows sit between them.
  const std::int64_t inner = 3000;
  const auto B = this->random(inner, 50000, 32, 71);
  const auto A = this->rows_over({2000, 0, 3000, 5, 2500, 1, 3000}, inner, 72);
  this->expect_long_rows_right(A, B);
}

TYPED_TEST(LongRows, SlicesThroughEmptyRowsOfB) {
  // Half of B's rows are empty and the rest hold one or two entries: slice
  // and stretch boundaries fall on empty rows, and a thread's stretch runs
  // on over many entries that add nothing.
  const std::int64_t inner = 60000;
  RandomShape shape;
  shape.empty_rows = 0.5;
  const auto B = this->random(inner, 40000, 1, 73, shape);
  const auto A = this->rows_over({60000, 30000, 0, 45000, 2}, inner, 74);
  this->expect_long_rows_right(A, B);
}

TYPED_TEST(LongRows, OneLongRowOfBSharedBySlices) {
  // One row of B with 40,000 entries, named by every long row of A: a
  // single entry of A holds several slices, which split it between them.
  const std::int64_t inner = 2000;
  RandomShape shape;
  shape.long_row = 7;
  shape.long_row_length = 40000;
  const auto B = this->random(inner, 60000, 2, 75, shape);
  auto A = this->rows_over({1500, 800, 1999}, inner, 76);
  // Make sure each long row of A names row 7 of B.
  Rng rng(77);
  typename TestFixture::Host with_seven;
  with_seven.num_rows = A.num_rows;
  with_seven.num_cols = A.num_cols;
  with_seven.row_map.assign(1, 0);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(A.num_rows); ++i) {
    bool has_seven = false;
    for (auto p = A.row_map[i]; p < A.row_map[i + 1]; ++p) has_seven = has_seven || A.entries[p] == 7;
    for (auto p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      if (!has_seven && A.entries[p] > 7 && (p == A.row_map[i] || A.entries[p - 1] < 7)) {
        with_seven.entries.push_back(7);
        with_seven.values.push_back(random_value<typename TestFixture::S>(rng));
        has_seven = true;
      }
      with_seven.entries.push_back(A.entries[p]);
      with_seven.values.push_back(A.values[p]);
    }
    if (!has_seven) {
      with_seven.entries.push_back(7);
      with_seven.values.push_back(random_value<typename TestFixture::S>(rng));
    }
    with_seven.row_map.push_back(static_cast<typename TestFixture::Z>(with_seven.entries.size()));
  }
  this->expect_long_rows_right(with_seven, B);
}

TYPED_TEST(LongRows, ReadOutOfSparseAndCrowdedStretches) {
  // The read-out gathers a stretch's columns in scratch where they are few
  // and writes them directly where a stretch is crowded. Row 7 of B holds
  // 40,000 consecutive columns and the other rows two random ones each over
  // 300,000 columns, so the long rows of A that name row 7 have a solid
  // block of columns followed by sparse ones: both kinds of stretch in one
  // row, with stretches of a few columns between them.
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const std::int64_t inner = 5000, cols = 300000, block_first = 1000, block = 40000;
  const Host scattered = this->random(inner, cols, 2, 83);
  Host B;
  B.num_rows = scattered.num_rows;
  B.num_cols = scattered.num_cols;
  B.row_map.assign(1, 0);
  Rng rng(84);
  for (std::int64_t i = 0; i < inner; ++i) {
    if (i == 7) {
      for (std::int64_t c = block_first; c < block_first + block; ++c) {
        B.entries.push_back(static_cast<O>(c));
        B.values.push_back(random_value<typename TestFixture::S>(rng));
      }
    } else {
      for (auto p = scattered.row_map[i]; p < scattered.row_map[i + 1]; ++p) {
        B.entries.push_back(scattered.entries[p]);
        B.values.push_back(scattered.values[p]);
      }
    }
    B.row_map.push_back(static_cast<Z>(B.entries.size()));
  }
  // Row 0 names every row of B (row 7 among them); the others most.
  const Host A = this->rows_over({inner, 4300, 4700, 4100}, inner, 85);
  this->expect_long_rows_right(A, B);
}

TYPED_TEST(LongRows, ReuseDetectsAProductOutsideThePlannedRow) {
  // One long row of A over every row of B; B's last column is unused when
  // the plan is made. Moving one entry of B there keeps B's shape and nnz,
  // but a product of the long row now falls on a column its planned row
  // lacks: the long rows' ranked window must say so, not add it elsewhere.
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  const std::int64_t inner = 3000, cols = 50001;
  Host B = this->random(inner, cols - 1, 32, 81);
  B.num_cols = static_cast<O>(cols);
  const Host A = this->rows_over({3000}, inner, 82);
  Host moved = B;
  std::size_t r = 0;
  while (moved.row_map[r + 1] == moved.row_map[r]) ++r;
  moved.entries[static_cast<std::size_t>(moved.row_map[r + 1]) - 1] = static_cast<O>(cols - 1);
  this->expect_moved_entry_reported(A, B, moved, 1);
}

TYPED_TEST(LongRows, ManySlicesOfFewColumnsAcrossWideWindows) {
  // B's 400,000 columns, of which its rows use only 16,000 spread evenly
  // (every 25th): a row of A with 8,000 entries makes 512,000 products on
  // about 16,000 columns, dozens of slices over a wide row, in two windows
  // of the adding walk. A reuse with one entry of B moved onto an unused
  // column near B's last must be reported, not added elsewhere.
  this->expect_spread_columns_right(400000, 25, 86);
}

TYPED_TEST(LongRows, OneWideWindowOfRanksPerGroup) {
  // B's 250,000 columns: past one window with a rank per word (163,840
  // columns on CUDA, about 196,000 on hosts), within one with a rank per 256
  // columns, the layout the adding walk takes for it.
  this->expect_spread_columns_right(250000, 15, 88);
}

TYPED_TEST(LongRows, RowsWithAProductPerEntryOfC) {
  // Each row of B holds one column, all distinct: a row of A over 20,000 of
  // them has as many products as entries of C, and no two products meet.
  // A reuse with one entry of B moved onto an unused column must be
  // reported.
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const std::int64_t inner = 20000, cols = 60000, stride = 7919;  // 7919 is prime to 60,000
  Rng rng(88);
  Host B;
  B.num_rows = static_cast<O>(inner);
  B.num_cols = static_cast<O>(cols);
  B.row_map.assign(1, 0);
  std::vector<char> used(static_cast<std::size_t>(cols));
  for (std::int64_t k = 0; k < inner; ++k) {
    const std::int64_t c = k * stride % cols;
    used[static_cast<std::size_t>(c)] = 1;
    B.entries.push_back(static_cast<O>(c));
    B.values.push_back(random_value<typename TestFixture::S>(rng));
    B.row_map.push_back(static_cast<Z>(B.entries.size()));
  }
  const Host A = this->rows_over({inner, 5, 0, 19000}, inner, 89);
  this->expect_long_rows_right(A, B);

  Host moved = B;
  moved.entries[0] = static_cast<O>(std::find(used.begin(), used.end(), 0) - used.begin());
  this->expect_moved_entry_reported(A, B, moved, 2);
}

TYPED_TEST(LongRows, RowsOfFewColumnsSummedInScratch) {
  // B's 1,200 columns: a long row's values fit the scratch its window
  // leaves, so each slice sums its products there and adds each sum into C
  // once (long_row_add.hpp). Rows 0 to 2,999 of B hold 8 entries each, so
  // rows of A over them (more than 4,096 entries: long rows on GPUs) make
  // tens of thousands of products on about 1,200 columns, many slices a
  // row; rows 3,000 to 7,999 hold one entry every tenth row, so a row of A
  // over them makes a few hundred products, its row's only slice, which
  // stores its sums. Hosts take these rows whole in team tables: there the
  // case checks the products only. A reuse with an entry of B moved onto
  // B's unused last column must be reported.
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const std::int64_t inner = 8000, crowded = 3000, cols = 1201;
  Rng rng(93);
  Host B;
  B.num_rows = static_cast<O>(inner);
  B.num_cols = static_cast<O>(cols);
  B.row_map.assign(1, 0);
  for (std::int64_t k = 0; k < inner; ++k) {
    const std::int64_t length = k < crowded ? 8 : (k % 10 == 0 ? 1 : 0);
    std::vector<std::int64_t> picks;
    while (static_cast<std::int64_t>(picks.size()) < length) {
      const std::int64_t c = rng.below(cols - 1);
      if (std::find(picks.begin(), picks.end(), c) == picks.end()) picks.push_back(c);
    }
    std::sort(picks.begin(), picks.end());
    for (const std::int64_t c : picks) {
      B.entries.push_back(static_cast<O>(c));
      B.values.push_back(random_value<typename TestFixture::S>(rng));
    }
    B.row_map.push_back(static_cast<Z>(B.entries.size()));
  }
  // Rows of A: over the crowded rows and others, over the sparse rows
  // only (entries at crowded and after), and short rows between them.
  Host A = this->rows_over({7000, 4, 0, 5200}, inner, 94);
  {
    Host sparse_row = this->rows_over({4800}, inner - crowded, 95);
    for (auto& c : sparse_row.entries) c = static_cast<O>(c + crowded);
    A.entries.insert(A.entries.end(), sparse_row.entries.begin(), sparse_row.entries.end());
    A.values.insert(A.values.end(), sparse_row.values.begin(), sparse_row.values.end());
    A.row_map.push_back(static_cast<Z>(A.entries.size()));
    A.num_rows = static_cast<O>(A.num_rows + 1);
  }
  const bool on_gpu = !gustav::detail::is_host_space<TestSpace>();
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  for (bool sorted : {true, false}) {
    options.sort_rows = sorted;
    if (on_gpu) {
      const auto plan = UnderTest<TypeParam>::symbolic(this->device(A), this->device(B), options);
      ASSERT_FALSE(plan.stats().numeric_bins.empty());
      EXPECT_EQ(plan.stats().numeric_bins.back().name, "long");
      EXPECT_EQ(plan.stats().numeric_bins.back().rows, 3);
    }
    EXPECT_TRUE(this->multiply_matches(A, B, options)) << (sorted ? "sorted" : "unsorted");
    EXPECT_TRUE(this->plan_matches(A, B, options)) << (sorted ? "sorted" : "unsorted");
  }
  // Row 0 of A names row k of B: its last entry moves onto column cols - 1.
  const auto k = static_cast<std::size_t>(A.entries[0]);
  ASSERT_LT(k, static_cast<std::size_t>(crowded));
  Host moved = B;
  moved.entries[static_cast<std::size_t>(moved.row_map[k + 1]) - 1] = static_cast<O>(cols - 1);
  this->expect_moved_entry_reported(A, B, moved, 3, on_gpu);
}

TYPED_TEST(LongRows, KeptOffsetsFollowRowsThatChangeLength) {
  // Two long rows of A over B, one of B's rows full, so that both rows of C
  // hold every column and any product falls within them. Moving an entry
  // of B to another row, or an entry of A from one row to the other, keeps
  // the shapes and nnz but not the offsets the plan kept from its first
  // numeric call: each repeat must sum the products it now has.
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  using S = typename TestFixture::S;
  const std::int64_t inner = 3000, cols = 20000, full = 1234;
  Host B = this->random(inner, cols, 8, 90);
  {
    Rng rng(91);
    Host with_full;
    with_full.num_rows = B.num_rows;
    with_full.num_cols = B.num_cols;
    with_full.row_map.assign(1, 0);
    for (std::int64_t k = 0; k < inner; ++k) {
      if (k == full) {
        for (std::int64_t c = 0; c < cols; ++c) {
          with_full.entries.push_back(static_cast<O>(c));
          with_full.values.push_back(random_value<S>(rng));
        }
      } else {
        for (auto p = B.row_map[k]; p < B.row_map[k + 1]; ++p) {
          with_full.entries.push_back(B.entries[p]);
          with_full.values.push_back(B.values[p]);
        }
      }
      with_full.row_map.push_back(static_cast<Z>(with_full.entries.size()));
    }
    B = with_full;
  }
  // Row 1 of A: the full row and ten others; row 0: every other row of B.
  const std::vector<std::int64_t> few = {3, 77, 400, 901, 1500, 1777, 2048, 2222, 2600, 2999};
  auto a_with = [&](const std::vector<std::int64_t>& second) {
    Rng rng(92);
    Host A;
    A.num_rows = 2;
    A.num_cols = static_cast<O>(inner);
    A.row_map.assign(1, 0);
    for (std::int64_t k = 0; k < inner; ++k)
      if (k == full || std::find(second.begin(), second.end(), k) == second.end()) {
        A.entries.push_back(static_cast<O>(k));
        A.values.push_back(random_value<S>(rng));
      }
    A.row_map.push_back(static_cast<Z>(A.entries.size()));
    std::vector<std::int64_t> row(second);
    row.push_back(full);
    std::sort(row.begin(), row.end());
    for (const std::int64_t k : row) {
      A.entries.push_back(static_cast<O>(k));
      A.values.push_back(random_value<S>(rng));
    }
    A.row_map.push_back(static_cast<Z>(A.entries.size()));
    return A;
  };
  const Host A = a_with(few);
  const Host A_moved = a_with(std::vector<std::int64_t>(few.begin() + 1, few.end()));
  ASSERT_EQ(A_moved.entries.size(), A.entries.size());
  // B with the last entry of row 5 moved to the front of row 6 (a column
  // below row 6's first), so rows 5 and 6 change length.
  Host B_moved = B;
  {
    const auto p5 = static_cast<std::size_t>(B.row_map[6]) - 1;
    ASSERT_GT(B.row_map[6], B.row_map[5]);
    ASSERT_GT(B.row_map[7], B.row_map[6]);
    const O column = B.entries[static_cast<std::size_t>(B.row_map[6])];
    ASSERT_GT(column, O(0));
    B_moved.entries[p5] = O(0);  // row 6 starts with column 0 (its first is above it)
    B_moved.row_map[6] = B.row_map[6] - 1;
  }
  SpgemmOptions options;
  options.cpu_mapping = CpuMapping::hierarchical;
  const auto plan = UnderTest<TypeParam>::symbolic(this->device(A), this->device(B), options);
  ASSERT_FALSE(plan.stats().numeric_bins.empty());
  ASSERT_EQ(plan.stats().numeric_bins.back().name, "long");
  ASSERT_EQ(plan.stats().numeric_bins.back().rows, 2);
  auto expect_sums = [&](const Host& a, const Host& b, const char* what) {
    const auto product = UnderTest<TypeParam>::numeric(plan, this->device(a), this->device(b));
    this->space.fence();
    EXPECT_TRUE(matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(a, b), options.sort_rows))
        << what;
  };
  expect_sums(A, B, "first numeric call");
  EXPECT_GT(plan.stats().long_row_offsets_bytes, 0u);
  expect_sums(A, B, "repeat with the kept offsets");
  expect_sums(A, B_moved, "rows of B changed length");
  expect_sums(A, B_moved, "repeat after the offsets were computed again");
  expect_sums(A_moved, B, "rows of A changed length");
  expect_sums(A, B, "back to the first structure");
}

}  // namespace
}  // namespace gustav::test
