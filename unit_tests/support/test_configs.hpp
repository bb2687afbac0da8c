#pragma once
// The (scalar, ordinal, offset) configurations every kernel test runs in, on
// the binary's execution space.
#include <gtest/gtest.h>

#include <Kokkos_Complex.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "gustav/host_csr.hpp"
#include "support/test_space.hpp"

namespace gustav::test {

template <class S, class O, class Z>
struct Config {
  using scalar = S;
  using ordinal = O;
  using offset = Z;
  using space = TestSpace;
  using device = Kokkos::Device<TestSpace, typename TestSpace::memory_space>;
  using matrix = KokkosSparse::CrsMatrix<S, O, device, void, Z>;
  using host = HostCsr<S, O, Z>;
};

#ifndef GUSTAV_TEST_FEW_CONFIGS
#define GUSTAV_TEST_FEW_CONFIGS 0
#endif

#if GUSTAV_TEST_FEW_CONFIGS
/// The sanitized Serial binary (unit_tests/CMakeLists.txt): what AddressSanitizer and
/// UndefinedBehaviorSanitizer look for does not depend on the scalar type, so
/// two configurations, 32- and 64-bit indices; the other binaries run all four.
using AllConfigs = ::testing::Types<Config<double, int, int>, Config<float, std::int64_t, std::int64_t>>;
#else
/// The configurations every kernel test runs in.
using AllConfigs = ::testing::Types<Config<double, int, int>, Config<double, int, std::size_t>,
                                    Config<float, std::int64_t, std::int64_t>,
                                    Config<Kokkos::complex<double>, int, std::int64_t>>;
#endif

/// A typed test's own list of configurations: the first alone in the
/// sanitized Serial binary (see AllConfigs), all of them elsewhere.
template <class First, class... Rest>
using ConfigsOrFirst =
    std::conditional_t<GUSTAV_TEST_FEW_CONFIGS != 0, ::testing::Types<First>, ::testing::Types<First, Rest...>>;

struct ConfigNames {
  template <class C>
  static std::string GetName(int) {
    std::string s = std::is_same_v<typename C::scalar, double>  ? "double"
                    : std::is_same_v<typename C::scalar, float> ? "float"
                                                                : "complex";
    s += sizeof(typename C::ordinal) == 4 ? "_int32" : "_int64";
    s += std::is_same_v<typename C::offset, std::size_t> ? "_sizet" : sizeof(typename C::offset) == 4 ? "_off32" : "_off64";
    return s;
  }
};

}  // namespace gustav::test
