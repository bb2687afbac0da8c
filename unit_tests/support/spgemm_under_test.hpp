#pragma once
// The SpGEMM entry points the kernel tests call, compiled once per
// configuration (spgemm_instantiation_*.cpp) instead of in every test file:
// on CUDA each instantiation of the kernels costs minutes of nvcc time.
#include "gustav/options.hpp"
#include "gustav/plan.hpp"
#include "support/test_configs.hpp"

namespace gustav::test {

template <class C>
struct UnderTest {
  using Matrix = typename C::matrix;
  using Plan = SpgemmPlan<TestSpace, typename C::offset, typename C::ordinal>;

  static Plan symbolic(const Matrix& A, const Matrix& B, const SpgemmOptions& options = {});
  static Matrix numeric(const Plan& plan, const Matrix& A, const Matrix& B);
  static void refill(const Plan& plan, const Matrix& A, const Matrix& B, Matrix& out);
  static Matrix multiply(const Matrix& A, const Matrix& B, const SpgemmOptions& options = {});
  static Matrix multiply(const Matrix& A, const Matrix& B, const SpgemmOptions& options, SpgemmStats& stats);
};

extern template struct UnderTest<Config<double, int, int>>;
extern template struct UnderTest<Config<double, int, std::size_t>>;
extern template struct UnderTest<Config<float, std::int64_t, std::int64_t>>;
extern template struct UnderTest<Config<Kokkos::complex<double>, int, std::int64_t>>;

}  // namespace gustav::test
