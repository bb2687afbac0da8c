// The sort of a short row's keys (common/spread_sort.hpp) against std::sort:
// keys spread over their buckets (the counting sort), crowded into a few
// (the network), repeated columns (ordered by their place), columns past
// the range, and every length up to 64; and the wider form's of up to 512.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gustav/common/spread_sort.hpp"

namespace gustav::detail {
namespace {

/// Keys of `n` products: column high, place low.
std::vector<std::uint64_t> keys_of(const std::vector<std::uint32_t>& columns) {
  std::vector<std::uint64_t> keys;
  for (std::size_t i = 0; i < columns.size(); ++i) keys.push_back((std::uint64_t(columns[i]) << 32) | i);
  return keys;
}

/// Whether `sort(keys, spare, n)` (arrays of `capacity` keys) puts
/// `columns`' keys in std::sort's order.
template <class Sort>
::testing::AssertionResult sorts_like_std_with(const std::vector<std::uint32_t>& columns, int capacity,
                                               const Sort& sort) {
  auto keys = keys_of(columns);
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  keys.resize(static_cast<std::size_t>(capacity));
  std::vector<std::uint64_t> spare(static_cast<std::size_t>(capacity));
  const std::uint64_t* sorted = sort(keys.data(), spare.data(), static_cast<int>(columns.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (sorted[i] != expected[i])
      return ::testing::AssertionFailure() << "key " << i << " of " << expected.size() << " is out of order";
  return ::testing::AssertionSuccess();
}

/// Whether sort_spread_keys puts `columns`' keys in std::sort's order.
::testing::AssertionResult sorts_like_std(const std::vector<std::uint32_t>& columns, std::int64_t range) {
  return sorts_like_std_with(columns, 64, [&](std::uint64_t* keys, std::uint64_t* spare, int n) {
    return sort_spread_keys(keys, spare, n, spread_bucket_shift(range));
  });
}

/// Whether sort_wide_keys puts `columns`' keys in std::sort's order.
::testing::AssertionResult wide_sorts_like_std(const std::vector<std::uint32_t>& columns, std::int64_t range) {
  return sorts_like_std_with(columns, wide_sort_keys_max, [&](std::uint64_t* keys, std::uint64_t* spare, int n) {
    return sort_wide_keys(keys, spare, n, wide_bucket_shift(range));
  });
}

/// `n` random columns below `range`, two of them past it (4e9 at 7, range +
/// 1 at n / 2), as a column past B's that the passes report: each falls in
/// the last bucket.
std::vector<std::uint32_t> with_columns_past(std::int64_t range, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> columns;
  for (int i = 0; i < n; ++i) columns.push_back(static_cast<std::uint32_t>(rng() % static_cast<std::uint64_t>(range)));
  columns[7] = 4000000000u;
  columns[static_cast<std::size_t>(n / 2)] = static_cast<std::uint32_t>(range + 1);
  return columns;
}

TEST(SpreadSort, EveryLengthOfSpreadColumns) {
  std::mt19937_64 rng(1);
  for (const std::int64_t range : {std::int64_t(1) << 20, std::int64_t(1000000), std::int64_t(100), std::int64_t(7)}) {
    for (int n = 0; n <= 64; ++n) {
      std::vector<std::uint32_t> columns;
      for (int i = 0; i < n; ++i) columns.push_back(static_cast<std::uint32_t>(rng() % range));
      EXPECT_TRUE(sorts_like_std(columns, range)) << n << " keys over " << range << " columns";
    }
  }
}

TEST(SpreadSort, EvenlySpreadColumnsTakeTheBuckets) {
  // One column in each 64th of the range, in reverse: no bucket holds more
  // than one key, so the counting sort alone orders them.
  std::vector<std::uint32_t> columns;
  for (int i = 63; i >= 0; --i) columns.push_back(static_cast<std::uint32_t>(i * 16384 + 5));
  EXPECT_TRUE(sorts_like_std(columns, std::int64_t(1) << 20));
}

TEST(SpreadSort, CrowdedColumnsTakeTheNetwork) {
  // Hub columns: most keys in the lowest bucket.
  std::mt19937_64 rng(2);
  for (int n = spread_sort_keys_min; n <= 64; ++n) {
    std::vector<std::uint32_t> columns;
    for (int i = 0; i < n; ++i) columns.push_back(static_cast<std::uint32_t>(i % 3 == 0 ? rng() % (1 << 20) : rng() % 40));
    EXPECT_TRUE(sorts_like_std(columns, std::int64_t(1) << 20)) << n;
  }
}

TEST(SpreadSort, RepeatedColumnsKeepTheirPlaces) {
  // Pairs of one column: their keys differ only in the place, which must
  // order them (the row's runs are summed in place order).
  std::vector<std::uint32_t> columns;
  for (int i = 0; i < 32; ++i) {
    columns.push_back(static_cast<std::uint32_t>((31 - i) * 30000));
    columns.push_back(static_cast<std::uint32_t>((31 - i) * 30000));
  }
  EXPECT_TRUE(sorts_like_std(columns, 1000000));
}

TEST(SpreadSort, ColumnsPastTheRangeStayInOrder) {
  EXPECT_TRUE(sorts_like_std(with_columns_past(4096, 40, 3), 4096));
}

TEST(SpreadSort, BucketShift) {
  EXPECT_EQ(spread_bucket_shift(1), 32);
  EXPECT_EQ(spread_bucket_shift(64), 32);
  EXPECT_EQ(spread_bucket_shift(65), 33);
  EXPECT_EQ(spread_bucket_shift(std::int64_t(1) << 20), 46);
  EXPECT_EQ(spread_bucket_shift(1000000), 46);
  EXPECT_EQ(spread_bucket_shift(std::int64_t(1) << 40), 58);
}

TEST(WideSort, EveryLengthOfSpreadColumns) {
  std::mt19937_64 rng(11);
  for (const std::int64_t range : {std::int64_t(1) << 20, std::int64_t(100000), std::int64_t(300), std::int64_t(5)}) {
    for (int n = 0; n <= wide_sort_keys_max; n += (n < 80 ? 1 : 7)) {
      std::vector<std::uint32_t> columns;
      for (int i = 0; i < n; ++i) columns.push_back(static_cast<std::uint32_t>(rng() % range));
      EXPECT_TRUE(wide_sorts_like_std(columns, range)) << n << " keys over " << range << " columns";
    }
  }
  std::vector<std::uint32_t> full;
  for (int i = 0; i < wide_sort_keys_max; ++i) full.push_back(static_cast<std::uint32_t>(rng() % 100000));
  EXPECT_TRUE(wide_sorts_like_std(full, 100000));
}

TEST(WideSort, CrowdedRepeatedAndOutOfRangeColumns) {
  std::mt19937_64 rng(12);
  // Hub columns: most keys in the lowest buckets (the shell sort takes them).
  std::vector<std::uint32_t> hubs;
  for (int i = 0; i < 400; ++i) hubs.push_back(static_cast<std::uint32_t>(i % 4 == 0 ? rng() % 100000 : rng() % 50));
  EXPECT_TRUE(wide_sorts_like_std(hubs, 100000));
  // Runs of one column: ordered by their places.
  std::vector<std::uint32_t> pairs;
  for (int i = 0; i < 200; ++i) {
    pairs.push_back(static_cast<std::uint32_t>((199 - i) * 500));
    pairs.push_back(static_cast<std::uint32_t>((199 - i) * 500));
  }
  EXPECT_TRUE(wide_sorts_like_std(pairs, 100000));
  EXPECT_TRUE(wide_sorts_like_std(with_columns_past(100000, 300, 13), 100000));
}

TEST(WideSort, BucketShift) {
  EXPECT_EQ(wide_bucket_shift(1), 32);
  EXPECT_EQ(wide_bucket_shift(256), 32);
  EXPECT_EQ(wide_bucket_shift(257), 33);
  EXPECT_EQ(wide_bucket_shift(100000), 41);
  EXPECT_EQ(wide_bucket_shift(std::int64_t(1) << 20), 44);
}

}  // namespace
}  // namespace gustav::detail
