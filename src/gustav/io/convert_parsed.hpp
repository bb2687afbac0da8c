#pragma once
/// The template half of read_matrix_market: what the caller's HostCsr types
/// can hold (CsrLimits, checked by the compiled reader) and the conversion
/// of the reader's 64-bit CSR into those types.
#include <Kokkos_Complex.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "gustav/host_csr.hpp"
#include "gustav/io/parsed_matrix.hpp"

namespace gustav::detail {

template <class T>
struct is_complex_scalar : std::false_type {};
template <class T>
struct is_complex_scalar<Kokkos::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_scalar_v = is_complex_scalar<T>::value;

/// The real type underneath a scalar: double for Kokkos::complex<double>.
template <class T>
struct real_part_type {
  using type = T;
};
template <class T>
struct real_part_type<Kokkos::complex<T>> {
  using type = T;
};

/// The largest value of an integer type, clamped to what int64 holds (the
/// reader's counts are int64, so a uint64 limit is never reached).
template <class Int>
constexpr std::int64_t max_in_int64() {
  static_assert(std::is_integral_v<Int>, "HostCsr ordinal and offset types must be integers");
  if constexpr (sizeof(Int) < sizeof(std::int64_t) || std::is_signed_v<Int>)
    return static_cast<std::int64_t>(std::numeric_limits<Int>::max());
  else
    return std::numeric_limits<std::int64_t>::max();
}

template <class Scalar, class Ordinal, class Offset>
CsrLimits csr_limits() {
  CsrLimits limits;
  limits.complex_scalar = is_complex_scalar_v<Scalar>;
  limits.max_ordinal = max_in_int64<Ordinal>();
  limits.max_offset = max_in_int64<Offset>();
  limits.ordinal_bits = static_cast<int>(8 * sizeof(Ordinal));
  limits.offset_bits = static_cast<int>(8 * sizeof(Offset));
  return limits;
}

/// Moves the vector when the types agree, converts (and frees the source)
/// otherwise. The reader's checks guarantee every value fits.
template <class To, class From>
std::vector<To> convert_vector(std::vector<From>&& from) {
  if constexpr (std::is_same_v<To, From>) {
    return std::move(from);
  } else {
    std::vector<To> to(from.size());
    for (std::size_t i = 0; i < from.size(); ++i) to[i] = static_cast<To>(from[i]);
    std::vector<From>().swap(from);
    return to;
  }
}

template <class Scalar>
std::vector<Scalar> convert_values(ParsedMatrix& m) {
  const std::size_t nnz = m.entries.size();
  // Pattern files carry no values: every entry is 1.
  if (m.real.empty()) return std::vector<Scalar>(nnz, Scalar(1));
  if constexpr (is_complex_scalar_v<Scalar>) {
    using Real = typename real_part_type<Scalar>::type;
    std::vector<Scalar> values(nnz);
    for (std::size_t k = 0; k < nnz; ++k)
      values[k] = Scalar(static_cast<Real>(m.real[k]), m.imag.empty() ? Real(0) : static_cast<Real>(m.imag[k]));
    return values;
  } else {
    return convert_vector<Scalar>(std::move(m.real));
  }
}

template <class Scalar, class Ordinal, class Offset>
HostCsr<Scalar, Ordinal, Offset> convert_parsed(ParsedMatrix&& m) {
  HostCsr<Scalar, Ordinal, Offset> out;
  out.num_rows = static_cast<Ordinal>(m.num_rows);
  out.num_cols = static_cast<Ordinal>(m.num_cols);
  out.values = convert_values<Scalar>(m);
  out.row_map = convert_vector<Offset>(std::move(m.row_map));
  out.entries = convert_vector<Ordinal>(std::move(m.entries));
  return out;
}

}  // namespace gustav::detail
