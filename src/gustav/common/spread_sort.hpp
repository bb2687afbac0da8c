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
/// A bucket of more keys than this sends the row to the network.
constexpr int spread_bucket_keys_max = 4;
/// Rows of fewer keys than this go to the network: its 80 compare-
/// exchanges for 16 keys cost about what the buckets' clearing and scan do.
constexpr int spread_sort_keys_min = 17;

/// The shift that takes a key whose high 32 bits hold a column below
/// `columns` to one of 2^bucket_bits buckets: the column's highest bits.
inline int bucket_shift_for(std::int64_t columns, int bucket_bits) {
  int bits = 0;
  while (bits < 32 && (std::int64_t(1) << bits) < columns) ++bits;
  return 32 + (bits > bucket_bits ? bits - bucket_bits : 0);
}
inline int spread_bucket_shift(std::int64_t columns) { return bucket_shift_for(columns, spread_buckets_shift); }

/// Keys into 2^BucketBits buckets by key >> shift (keys past the last go to
/// it), then an insertion sort that moves each key only past the others of
/// its bucket; into `spare`, which is returned. Where a bucket would hold
/// more than CrowdMax keys, `crowded(keys, n)` sorts them in place instead
/// and `keys` is returned.
template <int BucketBits, int CrowdMax, class Crowded>
KOKKOS_INLINE_FUNCTION const std::uint64_t* bucket_sort_keys(std::uint64_t* keys, std::uint64_t* spare, int n,
                                                            int shift, const Crowded& crowded) {
  constexpr int buckets = 1 << BucketBits;
  const auto bucket = [&](std::uint64_t key) {
    const std::uint64_t b = key >> shift;
    return static_cast<int>(b < std::uint64_t(buckets) ? b : std::uint64_t(buckets - 1));
  };
  std::uint16_t start[buckets] = {};
  bool crowd = false;
  for (int i = 0; i < n; ++i) crowd |= ++start[bucket(keys[i])] > CrowdMax;
  if (crowd) {
    crowded(keys, n);
    return keys;
  }
  int at = 0;
  for (int b = 0; b < buckets; ++b) {
    const int count = start[b];
    start[b] = static_cast<std::uint16_t>(at);
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
  return bucket_sort_keys<spread_buckets_shift, spread_bucket_keys_max>(
      keys, spare, n, shift, [](std::uint64_t* k, int m) { sort_few_keys(k, m); });
}

/// The wider form, for one host thread's row of up to 512 keys: 256
/// buckets (one or two keys each), the insertion sort within them. A
/// bucket of more than wide_bucket_keys_max keys (hub columns crowding a
/// stretch) sends the keys to a shell sort instead (shell_sort_keys).
/// `shift` takes a key to its bucket: wide_bucket_shift(columns).
constexpr int wide_buckets_shift = 8;
constexpr int wide_bucket_keys_max = 8;
constexpr int wide_sort_keys_max = 512;

inline int wide_bucket_shift(std::int64_t columns) { return bucket_shift_for(columns, wide_buckets_shift); }

/// Sorts keys[0, n) ascending in place: insertion sorts over shrinking
/// gaps (Ciura's), about n^1.3 comparisons, no extra memory.
KOKKOS_INLINE_FUNCTION void shell_sort_keys(std::uint64_t* keys, int n) {
  constexpr int gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (const int gap : gaps) {
    for (int i = gap; i < n; ++i) {
      const std::uint64_t key = keys[i];
      int j = i;
      for (; j >= gap && keys[j - gap] > key; j -= gap) keys[j] = keys[j - gap];
      keys[j] = key;
    }
  }
}

/// Sorts keys[0, n) ascending (n <= wide_sort_keys_max), into `spare` (as
/// many keys) or in place; returns where the sorted keys are.
KOKKOS_INLINE_FUNCTION const std::uint64_t* sort_wide_keys(std::uint64_t* keys, std::uint64_t* spare, int n,
                                                          int shift) {
  return bucket_sort_keys<wide_buckets_shift, wide_bucket_keys_max>(keys, spare, n, shift,
                                                                    [](std::uint64_t* k, int m) { shell_sort_keys(k, m); });
}

}  // namespace gustav::detail
