// The kept sums' chunk kernel (spgemm/sum_kept_chunks.hpp) takes two pieces
// of team scratch; Kokkos rounds each piece up to its scratch alignment and
// returns a null pointer for one that does not fit the team's request. A
// request of the bare sum left the second piece 4 bytes short: every team
// wrote through a null pointer (an illegal address on a GPU at -O0, silent
// when optimized). Here teams shaped as the kernel's take their pieces with
// the kernel's own take_scratch under the kernel's own request, and each
// piece must be there, inside the request.
#include <gtest/gtest.h>

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/types.hpp"
#include "gustav/spgemm/sum_kept_chunks.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

/// Teams (of `teams`) whose pieces were missing or reached past the request.
template <class Scalar>
int teams_short_of_scratch(int teams) {
  using Types = detail::SpgemmTypes<TestSpace, Scalar, int, int, int>;
  using Sum = detail::SumKeptChunks<TestSpace, Types, Kokkos::View<Scalar*, typename Types::device_type>>;
  using Policy = Kokkos::TeamPolicy<TestSpace>;
  const int workers = test_space_is_host ? 1 : Sum::workers;
  const int lanes = test_space_is_host ? 1 : Sum::lanes_per_worker;
  const std::size_t request = Sum::scratch_bytes();
  int short_teams = 0;
  Kokkos::parallel_reduce(
      "gustav::test::kept_chunk_scratch",
      Policy(TestSpace(), teams, workers, lanes).set_scratch_size(0, Kokkos::PerTeam(request)),
      KOKKOS_LAMBDA(const typename Policy::member_type& team, int& count) {
        const auto s = Sum::take_scratch(team);
        const char* begin = reinterpret_cast<const char*>(s.value);
        const char* end = reinterpret_cast<const char*>(s.long_count + Sum::max_long_shares + 1);
        const bool fits = s.value != nullptr && s.long_count != nullptr &&
                          end - begin <= static_cast<std::ptrdiff_t>(request);
        Kokkos::single(Kokkos::PerTeam(team), [&]() { count += fits ? 0 : 1; });
      },
      short_teams);
  return short_teams;
}

TEST(KeptChunkScratch, EveryPieceFitsTheTeamsRequest) {
  EXPECT_EQ(teams_short_of_scratch<double>(8), 0);
  EXPECT_EQ(teams_short_of_scratch<float>(8), 0);
  EXPECT_EQ(teams_short_of_scratch<Kokkos::complex<double>>(8), 0);
}

}  // namespace
}  // namespace gustav::test
