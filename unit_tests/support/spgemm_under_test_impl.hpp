#pragma once
// Definitions behind spgemm_under_test.hpp; included only by the
// instantiation files.
#include "gustav/spgemm.hpp"
#include "support/spgemm_under_test.hpp"

namespace gustav::test {

template <class C>
typename UnderTest<C>::Plan UnderTest<C>::symbolic(const Matrix& A, const Matrix& B, const SpgemmOptions& options) {
  return gustav::symbolic(TestSpace(), A, B, options);
}

template <class C>
typename UnderTest<C>::Matrix UnderTest<C>::numeric(const Plan& plan, const Matrix& A, const Matrix& B) {
  return gustav::numeric(TestSpace(), plan, A, B);
}

template <class C>
void UnderTest<C>::refill(const Plan& plan, const Matrix& A, const Matrix& B, Matrix& out) {
  gustav::numeric(TestSpace(), plan, A, B, out);
}

template <class C>
typename UnderTest<C>::Matrix UnderTest<C>::multiply(const Matrix& A, const Matrix& B, const SpgemmOptions& options) {
  return gustav::multiply(TestSpace(), A, B, options);
}

template <class C>
typename UnderTest<C>::Matrix UnderTest<C>::multiply(const Matrix& A, const Matrix& B, const SpgemmOptions& options,
                                                     SpgemmStats& stats) {
  return gustav::multiply(TestSpace(), A, B, options, stats);
}

}  // namespace gustav::test
