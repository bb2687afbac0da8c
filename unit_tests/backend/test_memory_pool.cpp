// The memory pool's fill (memory_pool/memory_pool.hpp): every chunk starts
// with its fill byte over the whole chunk by default, or over the leading
// bytes a pass asks for (the summed dense rows set their positions alone).
// A missed word would start a dense row's positions at garbage. Each case
// fills with a byte of its own, so a block the host's block cache hands back
// from an earlier pool cannot already hold it.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"
#include "gustav/memory_pool/memory_pool.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

using Device = Kokkos::Device<TestSpace, typename TestSpace::memory_space>;

/// Words among the first `checked_bytes` of each chunk that are not all
/// `fill_byte`, for a pool of `chunks` chunks of `chunk_bytes` filled over
/// `fill_bytes`.
int words_not_filled(std::size_t chunk_bytes, int chunks, int fill_byte, std::size_t fill_bytes,
                     std::size_t checked_bytes) {
  detail::TempMemory temp;
  detail::MemoryPool<Device> pool(TestSpace(), "gustav::test::pool", chunk_bytes, chunks, fill_byte, temp,
                                  fill_bytes);
  std::uint64_t word = 0;
  for (int b = 0; b < 8; ++b) word |= std::uint64_t(fill_byte & 0xFF) << (8 * b);
  const std::int64_t words = static_cast<std::int64_t>(checked_bytes / 8);
  int missed = 0;
  using Words = Kokkos::RangePolicy<TestSpace, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_reduce(
      "gustav::test::pool_fill", Words(TestSpace(), 0, chunks * words),
      KOKKOS_LAMBDA(const std::int64_t i, int& count) {
        const auto* chunk = reinterpret_cast<const std::uint64_t*>(pool.chunk(static_cast<int>(i / words)));
        if (chunk[i % words] != word) ++count;
      },
      missed);
  pool.free(temp);
  return missed;
}

TEST(MemoryPoolFill, WholeChunksByDefault) {
  // 40 bytes round up to 48: the last word is the rounding's, filled too.
  EXPECT_EQ(words_not_filled(40, 7, 0xA1, ~std::size_t(0), 48), 0);
  EXPECT_EQ(words_not_filled(4096, 3, 0x5A, ~std::size_t(0), 4096), 0);
}

TEST(MemoryPoolFill, LeadingBytesOfEveryChunk) {
  // 12 bytes take two words; each of the 5 chunks gets them, not only the first.
  EXPECT_EQ(words_not_filled(40, 5, 0xB2, 12, 16), 0);
  EXPECT_EQ(words_not_filled(1 << 16, 9, 0xC3, 3 << 12, 3 << 12), 0);
}

TEST(MemoryPoolFill, PrefixAsLongAsTheChunkIsTheWholeChunk) {
  EXPECT_EQ(words_not_filled(64, 4, 0xD4, 64, 64), 0);
  EXPECT_EQ(words_not_filled(64, 4, 0xE5, 1000, 64), 0);
}

// A pool whose chunks would pass the size type's range (a sizing's "never
// allowed", ~0, or chunks that together wrap) is refused before anything is
// allocated, rather than rounded to chunks of a few bytes.
TEST(MemoryPool, ChunksPastTheAddressRangeAreRefused) {
  detail::TempMemory temp;
  const auto pool_of = [&](std::size_t chunk_bytes, int chunks) {
    detail::MemoryPool<Device> pool(TestSpace(), "gustav::test::pool", chunk_bytes, chunks, -1, temp);
    pool.free(temp);
  };
  EXPECT_THROW(pool_of(~std::size_t(0), 1), internal_error);
  EXPECT_THROW(pool_of(~std::size_t(0) - 14, 1), internal_error);
  EXPECT_THROW(pool_of(std::size_t(1) << 62, 8), internal_error);
  EXPECT_NO_THROW(pool_of(4096, 8));
  EXPECT_GT(temp.peak(), std::size_t(0));
}

}  // namespace
}  // namespace gustav::test
