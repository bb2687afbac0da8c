// touch_pages_in_parallel (common/allocation.hpp) puts a fresh array's pages
// in place, populating each thread's stretch of whole pages and writing the
// partial pages at either end itself. It must never write outside the
// array, whatever its alignment and length: each case touches a window of
// a larger allocation whose bytes around the window carry a pattern that
// must survive, and the window must take and give back every value after.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "gustav/common/allocation.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

using Bytes = Kokkos::View<unsigned char*, Kokkos::HostSpace>;
using Window = Kokkos::View<unsigned char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

/// Touches `length` bytes starting `offset` bytes into a larger host
/// allocation, with `margin` bytes of pattern on either side.
void touch_window(std::size_t offset, std::size_t length) {
  constexpr std::size_t margin = 3 * detail::touched_page_bytes;
  Bytes all(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::test::page_touch"), offset + length + margin);
  unsigned char* const data = all.data();
  auto pattern = [](std::size_t i) { return static_cast<unsigned char>(0xA5 ^ (i * 131)); };
  for (std::size_t i = 0; i < all.extent(0); ++i) data[i] = pattern(i);
  const Window window(data + offset, length);
  if constexpr (test_space_is_host) {
    detail::touch_pages_in_parallel(TestSpace(), window, "gustav::test::touch");
  } else {
    detail::touch_pages_in_parallel(Kokkos::DefaultHostExecutionSpace(), window, "gustav::test::touch");
  }
  for (std::size_t i = 0; i < offset; ++i) ASSERT_EQ(data[i], pattern(i)) << "byte " << i << " before the window";
  for (std::size_t i = offset + length; i < all.extent(0); ++i)
    ASSERT_EQ(data[i], pattern(i)) << "byte " << i - offset - length << " after the window";
  for (std::size_t i = 0; i < length; ++i) window(i) = static_cast<unsigned char>(i * 7);
  for (std::size_t i = 0; i < length; ++i) ASSERT_EQ(window(i), static_cast<unsigned char>(i * 7)) << "byte " << i;
}

constexpr std::size_t mib = std::size_t(1) << 20;

TEST(PageTouch, PageAlignedWholePages) { touch_window(0, 5 * mib); }

TEST(PageTouch, MisalignedStartAndPartialLastPage) { touch_window(1000, 5 * mib + 123); }

TEST(PageTouch, StartOneByteBeforeAPageBoundary) { touch_window(4095, 4 * mib + 1); }

TEST(PageTouch, JustTheSmallestTouchedLength) { touch_window(17, detail::huge_page_advice_bytes); }

TEST(PageTouch, ShortArraysAreLeftAlone) {
  // Below huge_page_advice_bytes nothing is touched: the window keeps the
  // pattern it was given.
  const std::size_t length = detail::huge_page_advice_bytes - 1;
  Bytes all(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::test::page_touch"), length);
  for (std::size_t i = 0; i < length; ++i) all(i) = 0x5A;
  detail::touch_pages_in_parallel(Kokkos::DefaultHostExecutionSpace(), all, "gustav::test::touch");
  for (std::size_t i = 0; i < length; i += 997) ASSERT_EQ(all(i), 0x5A) << "byte " << i;
}

}  // namespace
}  // namespace gustav::test
