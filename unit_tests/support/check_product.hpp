#pragma once
// Compares a computed C with the reference: same columns in every row (in
// ascending order when sorted output was asked for), and every value within
// the rounding bound of its own products.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "gustav/host_csr.hpp"
#include "support/reference_spgemm.hpp"

namespace gustav::test {

template <class S>
struct RealOf {
  using type = S;
};
template <class R>
struct RealOf<Kokkos::complex<R>> {
  using type = R;
};

/// Host copy of C (any CrsMatrix or CsrViews-like object with row_map /
/// entries / values) compared with `ref`.
template <class S, class HostC>
::testing::AssertionResult matches_reference(const HostC& C, const std::vector<ReferenceRow<S>>& ref, bool sorted) {
  using Real = typename RealOf<S>::type;
  const long double eps = std::numeric_limits<Real>::epsilon();
  if (static_cast<std::size_t>(C.num_rows) != ref.size())
    return ::testing::AssertionFailure() << "C has " << C.num_rows << " rows, expected " << ref.size();
  std::int64_t expected_nnz = 0;
  for (const auto& r : ref) expected_nnz += static_cast<std::int64_t>(r.size());
  if (C.nnz() != expected_nnz)
    return ::testing::AssertionFailure() << "nnz(C) = " << C.nnz() << ", expected " << expected_nnz;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const auto begin = static_cast<std::int64_t>(C.row_map[i]);
    const auto end = static_cast<std::int64_t>(C.row_map[i + 1]);
    if (end - begin != static_cast<std::int64_t>(ref[i].size()))
      return ::testing::AssertionFailure() << "row " << i << " has " << end - begin << " entries, expected "
                                           << ref[i].size();
    std::set<std::int64_t> seen;
    for (std::int64_t p = begin; p < end; ++p) {
      const std::int64_t col = static_cast<std::int64_t>(C.entries[p]);
      if (!seen.insert(col).second)
        return ::testing::AssertionFailure() << "row " << i << " holds column " << col << " twice";
      if (sorted && p > begin && static_cast<std::int64_t>(C.entries[p - 1]) >= col)
        return ::testing::AssertionFailure() << "row " << i << " is not strictly ascending at position " << p - begin;
      const auto it = ref[i].find(col);
      if (it == ref[i].end())
        return ::testing::AssertionFailure() << "row " << i << " has unexpected column " << col;
      const auto got = widen(C.values[p]);
      const long double err = std::abs(got - it->second.value);
      const long double bound = 4 * eps * static_cast<long double>(it->second.terms + 1) * it->second.magnitude;
      if (!(err <= bound))
        return ::testing::AssertionFailure() << "C(" << i << ", " << col << ") off by " << static_cast<double>(err)
                                             << " (bound " << static_cast<double>(bound) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace gustav::test
