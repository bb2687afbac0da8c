// The structure fingerprint's pass (validation/structure_fingerprint.hpp):
// a thread's strided or contiguous share of an array, taken four elements at
// a time with its key advanced by adds, sums exactly the defined terms, so
// shares of any shape add up to the same fingerprint.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gustav/validation/structure_fingerprint.hpp"
#include "support/random_csr.hpp"

namespace gustav::test {
namespace {

/// The array as array_terms reads it (an element by index); callable on the
/// host and, for nvcc, from the host-device function that reads it.
struct Elements {
  const std::int64_t* data;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return data[i]; }
};

std::uint64_t defined_terms(const std::vector<std::int64_t>& values, std::int64_t first, std::int64_t last,
                            std::int64_t step, std::uint64_t kind) {
  std::uint64_t sum = 0;
  for (std::int64_t i = first; i < last; i += step)
    sum += detail::structure_term(kind, i, values[static_cast<std::size_t>(i)]);
  return sum;
}

TEST(StructureFingerprint, ArrayTermsSumTheDefinedTermsForAnyShare) {
  Rng rng(150);
  std::vector<std::int64_t> values(1000);
  for (auto& v : values) v = static_cast<std::int64_t>(rng.below(1 << 30)) - (1 << 29);
  const Elements at{values.data()};
  for (const std::int64_t first : {0, 1, 5, 997, 1000})
    for (const std::int64_t last : {0, 3, 640, 999, 1000})
      for (const std::int64_t step : {1, 2, 3, 4, 7, 256, 2000})
        for (const std::uint64_t kind : {0u, 1u, 2u, 3u}) {
          SCOPED_TRACE("first " + std::to_string(first) + ", last " + std::to_string(last) + ", step " +
                       std::to_string(step) + ", kind " + std::to_string(kind));
          EXPECT_EQ(detail::array_terms(at, first, last, step, kind), defined_terms(values, first, last, step, kind));
        }
}

TEST(StructureFingerprint, InterleavedSharesAddUpToTheWholeArray) {
  Rng rng(151);
  std::vector<std::int64_t> values(5003);
  for (auto& v : values) v = static_cast<std::int64_t>(rng.below(100000));
  const Elements at{values.data()};
  const std::int64_t n = static_cast<std::int64_t>(values.size());
  const std::uint64_t whole = defined_terms(values, 0, n, 1, 3);
  for (const std::int64_t threads : {1, 2, 32, 256, 6000}) {
    std::uint64_t sum = 0;
    for (std::int64_t t = 0; t < threads; ++t) sum += detail::array_terms(at, t, n, threads, 3);
    EXPECT_EQ(sum, whole) << threads << " threads";
  }
}

}  // namespace
}  // namespace gustav::test
