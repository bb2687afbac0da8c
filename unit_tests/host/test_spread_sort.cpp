// The sort of a short row's keys (common/spread_sort.hpp) against std::sort:
// keys spread over their buckets (the counting sort), crowded into a few
// (the network), repeated columns (ordered by their place), columns past
// the range, and every length up to 64.
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

/// Whether sort_spread_keys puts `columns`' keys in std::sort's order.
::testing::AssertionResult sorts_like_std(const std::vector<std::uint32_t>& columns, std::int64_t range) {
  auto keys = keys_of(columns);
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  keys.resize(64);
  std::uint64_t spare[64];
  const std::uint64_t* sorted =
      sort_spread_keys(keys.data(), spare, static_cast<int>(columns.size()), spread_bucket_shift(range));
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (sorted[i] != expected[i])
      return ::testing::AssertionFailure() << "key " << i << " of " << expected.size() << " is out of order";
  return ::testing::AssertionSuccess();
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
  // A column past B's (which the passes report) falls in the last bucket.
  std::mt19937_64 rng(3);
  std::vector<std::uint32_t> columns;
  for (int i = 0; i < 40; ++i) columns.push_back(static_cast<std::uint32_t>(rng() % 4096));
  columns[7] = 4000000000u;
  columns[20] = 70000;
  EXPECT_TRUE(sorts_like_std(columns, 4096));
}

TEST(SpreadSort, BucketShift) {
  EXPECT_EQ(spread_bucket_shift(1), 32);
  EXPECT_EQ(spread_bucket_shift(64), 32);
  EXPECT_EQ(spread_bucket_shift(65), 33);
  EXPECT_EQ(spread_bucket_shift(std::int64_t(1) << 20), 46);
  EXPECT_EQ(spread_bucket_shift(1000000), 46);
  EXPECT_EQ(spread_bucket_shift(std::int64_t(1) << 40), 58);
}

}  // namespace
}  // namespace gustav::detail
