#pragma once
// Pseudo-random numbers for the generators, identical on every platform:
// xoshiro256** seeded through splitmix64, and conversions to doubles and
// bounded integers written out here, because the <random> distributions may
// give different numbers on different standard libraries.
#include <cstdint>

namespace gustav::generators::detail {

/// One step of splitmix64's output function: a strong 64-bit mixer, used to
/// seed xoshiro and to hash entry positions.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The high 64 bits of a * b, from 32-bit halves (no 128-bit type needed).
inline std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t a_lo = a & 0xFFFFFFFFull, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xFFFFFFFFull, b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo;
  const std::uint64_t hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi;
  const std::uint64_t hi_hi = a_hi * b_hi;
  const std::uint64_t middle = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFull) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (middle >> 32);
}

/// The top 53 bits of x as a double in [0, 1): exact, so platform-independent.
inline double unit_double(std::uint64_t x) { return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0); }

/// xoshiro256** (Blackman and Vigna): fast, 256 bits of state, passes the usual
/// statistical batteries; plenty for matrix generation.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& word : state_) {
      s += 0x9E3779B97F4A7C15ull;
      word = mix64(s);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in [0, 1).
  double uniform() { return unit_double(next()); }

  /// Uniform integer in [0, n) by Lemire's multiply-shift, n >= 1. The bias,
  /// below n / 2^64, is far beneath anything a generated matrix could show.
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(mul_high(next(), static_cast<std::uint64_t>(n)));
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

/// The value of entry (row, col) of a random matrix, uniform in
/// [-1, -0.25] u [0.25, 1]. It depends on the position, not on the order in
/// which edges were drawn, so merging repeated edges cannot change it, and
/// values stay away from zero so that no product cancels by accident.
inline double signed_value(std::uint64_t seed, std::int64_t row, std::int64_t col) {
  const std::uint64_t h = mix64(mix64(seed ^ 0xD1B54A32D192ED03ull) ^ mix64(static_cast<std::uint64_t>(row)) ^
                                (static_cast<std::uint64_t>(col) * 0x9E3779B97F4A7C15ull));
  // (2^51 + 3m) / 2^53 for m < 2^51 is 0.25 + 0.75 m / 2^51 computed exactly:
  // the numerator stays below 2^53. Writing 0.25 + 0.75 * u instead would
  // round differently where the compiler fuses it into one multiply-add.
  const std::uint64_t m = h >> 13;
  const double magnitude = static_cast<double>((std::uint64_t(1) << 51) + 3 * m) * (1.0 / 9007199254740992.0);
  return (h & 1) ? -magnitude : magnitude;
}

}  // namespace gustav::generators::detail
