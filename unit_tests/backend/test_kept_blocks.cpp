// Blocks kept between calls (gustav/memory.hpp): products of different
// sizes one after the other take and give back the same blocks (a larger
// block serves a smaller product, a smaller one is passed over), with and
// without gustav::release_cached_memory() between them, and each is right;
// a kept block counts towards a memory budget; host temporaries are kept
// within the cache's bounds and released on request.
#include "gustav/memory.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class KeptBlocks : public SpgemmTest<C> {};
TYPED_TEST_SUITE(KeptBlocks, AllConfigs, ConfigNames);

TYPED_TEST(KeptBlocks, ProductsOfDifferentSizesInTurnStayRight) {
  const auto small = this->random(300, 300, 4, 101);
  const auto large = this->random(20000, 20000, 6, 102);
  for (const bool release : {false, true}) {
    SCOPED_TRACE(release ? "released between calls" : "kept between calls");
    for (const auto* m : {&small, &large, &small, &large, &large}) {
      EXPECT_TRUE(this->multiply_matches(*m, *m));
      EXPECT_TRUE(this->plan_matches(*m, *m));
      if (release) gustav::release_cached_memory();
    }
  }
}

TYPED_TEST(KeptBlocks, AKeptBlockCountsTowardsTheBudget) {
  const auto large = this->random(20000, 20000, 6, 103);
  const auto small = this->random(2000, 2000, 6, 104);
  // The large product leaves its blocks behind; the small one, under a
  // budget of its own unbounded peak, must not take a kept block that the
  // budget has no room for.
  EXPECT_TRUE(this->multiply_matches(large, large));
  const auto dS = this->device(small);
  const auto unbounded = TestFixture::Run::symbolic(dS, dS, SpgemmOptions{});
  SpgemmOptions options;
  options.memory_budget_bytes = unbounded.stats().symbolic_peak_temp_bytes + 4096;
  EXPECT_TRUE(this->multiply_matches(large, large));
  const auto plan = TestFixture::Run::symbolic(dS, dS, options);
  EXPECT_LE(plan.stats().symbolic_peak_temp_bytes, options.memory_budget_bytes);
  EXPECT_TRUE(this->plan_matches(small, small, options));
}

TYPED_TEST(KeptBlocks, HostTemporariesAreKeptWithinBoundsAndReleased) {
  if (!test_space_is_host) GTEST_SKIP() << "host memory is kept only where the products run on the host";
  using HostCache = detail::BlockCache<Kokkos::HostSpace::device_type>;
  const auto large = this->random(20000, 20000, 6, 105);
  gustav::release_cached_memory();
  EXPECT_EQ(HostCache::instance().held_bytes(), 0u);
  EXPECT_TRUE(this->multiply_matches(large, large));
  const std::size_t held = HostCache::instance().held_bytes();
  EXPECT_GT(held, 0u);
  EXPECT_LE(held, detail::cached_bytes_max);
  // The next call takes the same blocks and gives them back: no more is held.
  EXPECT_TRUE(this->multiply_matches(large, large));
  EXPECT_EQ(HostCache::instance().held_bytes(), held);
  gustav::release_cached_memory();
  EXPECT_EQ(HostCache::instance().held_bytes(), 0u);
}

}  // namespace
}  // namespace gustav::test
