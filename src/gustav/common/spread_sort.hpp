#pragma once
/// One thread's sort of at most 64 keys whose high bits spread them over
/// their range, as the columns of a random row of C do: each key goes to
/// one of 64 buckets by its highest bits (a counting sort), and an
/// insertion sort then puts each bucket in order, moving a key only past
/// the few others of its bucket. About 5 operations a key, where the
/// bitonic network (sort_network.hpp) takes 672 compare-exchanges for 64
/// keys. Keys crowded into few buckets (a power-law row's hub columns)
/// would make the insertion sort quadratic and its branches unpredictable:
/// a row with a bucket of more than spread_bucket_keys_max keys goes to the
/// network instead. Either way the order is the keys' own, so the result
/// is the same to the bit.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/sort_network.hpp"

namespace gustav::detail {

constexpr int spread_buckets_shift = 6;
constexpr int spread_buckets = 1 << spread_buckets_shift;
/// A bucket of more keys than this sends the row to the network.
constexpr int spread_bucket_keys_max = 4;
/// Rows of fewer keys than this go to the network: its 80 compare-
/// exchanges for 16 keys cost about what the buckets' clearing and scan do.
constexpr int spread_sort_keys_min = 17;

/// The shift that takes a key whose high 32 bits hold a column below
/// `columns` to its bucket: the column's highest spread_buckets_shift bits.
inline int spread_bucket_shift(std::int64_t columns) {
  int bits = 0;
  while (bits < 32 && (std::int64_t(1) << bits) < columns) ++bits;
  return 32 + (bits > spread_buckets_shift ? bits - spread_buckets_shift : 0);
}

/// Sorts keys[0, n) ascending (n <= 64); `spare` holds 64 keys. Returns
/// where the sorted keys are: keys or spare. `shift` comes from
/// spread_bucket_shift; a key past its range (a column past B's, which the
/// passes' checks report) goes to the last bucket, which keeps the order.
KOKKOS_INLINE_FUNCTION const std::uint64_t* sort_spread_keys(std::uint64_t* keys, std::uint64_t* spare, int n,
                                                            int shift) {
  if (n < spread_sort_keys_min) {
    sort_few_keys(keys, n);
    return keys;
  }
  const auto bucket = [&](std::uint64_t key) {
    const std::uint64_t b = key >> shift;
    return static_cast<int>(b < std::uint64_t(spread_buckets) ? b : std::uint64_t(spread_buckets - 1));
  };
  unsigned char start[spread_buckets] = {};
  bool crowded = false;
  for (int i = 0; i < n; ++i) crowded |= ++start[bucket(keys[i])] > spread_bucket_keys_max;
  if (crowded) {
    sort_few_keys(keys, n);
    return keys;
  }
  int at = 0;
  for (int b = 0; b < spread_buckets; ++b) {
    const int count = start[b];
    start[b] = static_cast<unsigned char>(at);
    at += count;
  }
  for (int i = 0; i < n; ++i) spare[start[bucket(keys[i])]++] = keys[i];
  for (int i = 1; i < n; ++i) {
    const std::uint64_t key = spare[i];
    int j = i;
    for (; j > 0 && spare[j - 1] > key; --j) spare[j] = spare[j - 1];
    spare[j] = key;
  }
  return spare;
}

}  // namespace gustav::detail
