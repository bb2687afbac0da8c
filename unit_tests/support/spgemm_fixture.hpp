#pragma once
// Typed-test fixture: one configuration (scalar, ordinal, offset) on the
// binary's execution space, with helpers that multiply on the device and
// compare with the serial reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gustav/gustav.hpp"
#include "support/check_product.hpp"
#include "support/random_csr.hpp"
#include "support/reference_spgemm.hpp"
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

/// The configurations every kernel test runs in.
using AllConfigs = ::testing::Types<Config<double, int, int>, Config<double, int, std::size_t>,
                                    Config<float, std::int64_t, std::int64_t>,
                                    Config<Kokkos::complex<double>, int, std::int64_t>>;

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

template <class C>
class SpgemmTest : public ::testing::Test {
 protected:
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;
  using Matrix = typename C::matrix;
  using Host = typename C::host;

  TestSpace space;

  Matrix device(const Host& h) { return to_crs<Matrix>(space, h); }

  Host random(std::int64_t rows, std::int64_t cols, double avg, std::uint64_t seed, RandomShape shape = {}) {
    shape.rows = rows;
    shape.cols = cols;
    shape.avg_per_row = avg;
    return random_csr<S, O, Z>(shape, seed);
  }

  /// Multiplies on the device with `options` and checks against the reference.
  ::testing::AssertionResult multiply_matches(const Host& A, const Host& B, const SpgemmOptions& options = {}) {
    const auto product = gustav::multiply(space, device(A), device(B), options);
    space.fence();
    return matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), options.sort_rows);
  }
};

}  // namespace gustav::test
