#pragma once
// The serial reference every kernel is checked against. Written to be
// obviously right, not fast: each row of C is an ordered map from column to
// value, filled by the textbook triple loop in long double (or its complex).
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <type_traits>

#include "gustav/host_csr.hpp"

namespace gustav::test {

template <class S>
struct Wide {
  using type = long double;
};
template <class R>
struct Wide<Kokkos::complex<R>> {
  using type = std::complex<long double>;
};

template <class S>
typename Wide<S>::type widen(const S& v) {
  if constexpr (std::is_arithmetic_v<S>) {
    return static_cast<long double>(v);
  } else {
    return {static_cast<long double>(v.real()), static_cast<long double>(v.imag())};
  }
}

/// One entry of the reference product: the value, the sum of the magnitudes
/// of its products and their number (together they bound rounding error).
template <class S>
struct ReferenceEntry {
  typename Wide<S>::type value{};
  long double magnitude = 0;
  std::int64_t terms = 0;
};

/// One row of the reference product: column -> entry (ordered).
template <class S>
using ReferenceRow = std::map<std::int64_t, ReferenceEntry<S>>;

/// C = A * B row by row. Every column reached by a product appears, even
/// when its sum cancels to zero (that is the structure SpGEMM computes).
template <class S, class O, class Z>
std::vector<ReferenceRow<S>> reference_multiply(const HostCsr<S, O, Z>& A, const HostCsr<S, O, Z>& B) {
  std::vector<ReferenceRow<S>> C(static_cast<std::size_t>(A.num_rows));
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(A.num_rows); ++i) {
    for (Z j = A.row_map[i]; j < A.row_map[i + 1]; ++j) {
      const std::int64_t k = A.entries[j];
      for (Z p = B.row_map[k]; p < B.row_map[k + 1]; ++p) {
        const auto product = widen(A.values[j]) * widen(B.values[p]);
        auto& e = C[i][static_cast<std::int64_t>(B.entries[p])];
        e.value += product;
        e.magnitude += std::abs(product);
        e.terms += 1;
      }
    }
  }
  return C;
}

/// Sum over rows of A of the lengths of the rows of B they select.
template <class S, class O, class Z>
std::int64_t reference_products(const HostCsr<S, O, Z>& A, const HostCsr<S, O, Z>& B) {
  std::int64_t n = 0;
  for (std::size_t j = 0; j < A.entries.size(); ++j)
    n += static_cast<std::int64_t>(B.row_map[A.entries[j] + 1] - B.row_map[A.entries[j]]);
  return n;
}

/// Transpose (for A * A^T on rectangular matrices).
template <class S, class O, class Z>
HostCsr<S, O, Z> reference_transpose(const HostCsr<S, O, Z>& A) {
  HostCsr<S, O, Z> T;
  T.num_rows = A.num_cols;
  T.num_cols = A.num_rows;
  T.row_map.assign(static_cast<std::size_t>(A.num_cols) + 1, 0);
  for (auto c : A.entries) T.row_map[c + 1]++;
  for (std::size_t i = 0; i < static_cast<std::size_t>(A.num_cols); ++i) T.row_map[i + 1] += T.row_map[i];
  T.entries.resize(A.entries.size());
  T.values.resize(A.values.size());
  std::vector<Z> next(T.row_map.begin(), T.row_map.end() - 1);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(A.num_rows); ++i)
    for (Z j = A.row_map[i]; j < A.row_map[i + 1]; ++j) {
      const auto c = A.entries[j];
      T.entries[next[c]] = static_cast<O>(i);
      T.values[next[c]] = A.values[j];
      ++next[c];
    }
  return T;
}

}  // namespace gustav::test
