#pragma once
// Typed-test fixture: one configuration (scalar, ordinal, offset) on the
// binary's execution space, with helpers that multiply on the device and
// compare with the serial reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "support/spgemm_under_test.hpp"
#include "support/test_configs.hpp"
#include "support/check_product.hpp"
#include "support/random_csr.hpp"
#include "support/reference_spgemm.hpp"
#include "support/test_space.hpp"

namespace gustav::test {

template <class C>
class SpgemmTest : public ::testing::Test {
 protected:
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;
  using Matrix = typename C::matrix;
  using Host = typename C::host;

  using Run = UnderTest<C>;
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
    const auto product = UnderTest<C>::multiply(device(A), device(B), options);
    space.fence();
    return matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), options.sort_rows);
  }

  /// As multiply_matches, through gustav::symbolic then gustav::numeric.
  ::testing::AssertionResult plan_matches(const Host& A, const Host& B, const SpgemmOptions& options = {}) {
    const Matrix a = device(A), b = device(B);
    const auto plan = UnderTest<C>::symbolic(a, b, options);
    const auto product = UnderTest<C>::numeric(plan, a, b);
    space.fence();
    return matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), options.sort_rows);
  }
};

}  // namespace gustav::test
