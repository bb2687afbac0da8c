#pragma once
// Every (scalar, ordinal, offset) combination Gustav supports: 3 scalars x 2
// ordinals x 3 offsets. The four of AllConfigs are declared in
// spgemm_under_test.hpp; the other fourteen are declared here and compiled
// in their own spgemm_instantiation_*.cpp files.
#include <Kokkos_Complex.hpp>
#include <cstddef>
#include <cstdint>

#include "support/spgemm_under_test.hpp"
#include "support/test_configs.hpp"

namespace gustav::test {

extern template struct UnderTest<Config<float, int, int>>;
extern template struct UnderTest<Config<float, int, std::int64_t>>;
extern template struct UnderTest<Config<float, int, std::size_t>>;
extern template struct UnderTest<Config<float, std::int64_t, int>>;
extern template struct UnderTest<Config<float, std::int64_t, std::size_t>>;
extern template struct UnderTest<Config<double, int, std::int64_t>>;
extern template struct UnderTest<Config<double, std::int64_t, int>>;
extern template struct UnderTest<Config<double, std::int64_t, std::int64_t>>;
extern template struct UnderTest<Config<double, std::int64_t, std::size_t>>;
extern template struct UnderTest<Config<Kokkos::complex<double>, int, int>>;
extern template struct UnderTest<Config<Kokkos::complex<double>, int, std::size_t>>;
extern template struct UnderTest<Config<Kokkos::complex<double>, std::int64_t, int>>;
extern template struct UnderTest<Config<Kokkos::complex<double>, std::int64_t, std::int64_t>>;
extern template struct UnderTest<Config<Kokkos::complex<double>, std::int64_t, std::size_t>>;

/// All eighteen configurations, in scalar / ordinal / offset order.
using EveryConfig = ::testing::Types<
    Config<float, int, int>, Config<float, int, std::int64_t>, Config<float, int, std::size_t>,
    Config<float, std::int64_t, int>, Config<float, std::int64_t, std::int64_t>,
    Config<float, std::int64_t, std::size_t>,
    Config<double, int, int>, Config<double, int, std::int64_t>, Config<double, int, std::size_t>,
    Config<double, std::int64_t, int>, Config<double, std::int64_t, std::int64_t>,
    Config<double, std::int64_t, std::size_t>,
    Config<Kokkos::complex<double>, int, int>, Config<Kokkos::complex<double>, int, std::int64_t>,
    Config<Kokkos::complex<double>, int, std::size_t>, Config<Kokkos::complex<double>, std::int64_t, int>,
    Config<Kokkos::complex<double>, std::int64_t, std::int64_t>,
    Config<Kokkos::complex<double>, std::int64_t, std::size_t>>;

}  // namespace gustav::test
