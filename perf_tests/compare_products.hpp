#pragma once
// Checks a peer's C against Gustav's: same structure (rows compared as sets
// of columns, since peers may leave rows unsorted) and values equal to a
// relative tolerance. Returns "" when they agree, else the first difference.
//
// Rows are brought to the host in blocks of about `block_entries` entries,
// in each matrix's own types: a product of 1.6e9 entries would otherwise take
// some 90 GB of host memory for two 64-bit copies of both matrices.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gustav::bench {

namespace detail {

/// The entries and values of rows [first, last) of a CrsMatrix, on the host.
template <class Matrix>
struct HostRows {
  Kokkos::View<typename Matrix::ordinal_type*, Kokkos::HostSpace> entries;
  Kokkos::View<typename Matrix::value_type*, Kokkos::HostSpace> values;
  std::int64_t offset = 0;  ///< row_map[first]: where the block starts in M

  HostRows(const Matrix& M, std::int64_t begin, std::int64_t end) : offset(begin) {
    const std::pair<std::int64_t, std::int64_t> range(begin, end);
    entries = Kokkos::View<typename Matrix::ordinal_type*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::compare::entries"), end - begin);
    values = Kokkos::View<typename Matrix::value_type*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "bench::compare::values"), end - begin);
    Kokkos::deep_copy(entries, Kokkos::subview(M.graph.entries, range));
    Kokkos::deep_copy(values, Kokkos::subview(M.values, range));
  }
};

}  // namespace detail

template <class MatrixX, class MatrixY>
std::string compare_products(const MatrixX& X, const MatrixY& Y, double rtol = 1e-9,
                             std::int64_t block_entries = std::int64_t(1) << 26) {
  std::ostringstream why;
  if (X.numRows() != Y.numRows() || X.numCols() != Y.numCols()) {
    why << "shape " << Y.numRows() << " x " << Y.numCols() << " instead of " << X.numRows() << " x " << X.numCols();
    return why.str();
  }
  if (static_cast<std::int64_t>(X.nnz()) != static_cast<std::int64_t>(Y.nnz())) {
    why << "nnz(C) = " << Y.nnz() << " instead of " << X.nnz();
    return why.str();
  }
  const auto xr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X.graph.row_map);
  const auto yr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y.graph.row_map);
  const std::int64_t rows = X.numRows();
  std::vector<std::pair<std::int64_t, double>> rx, ry;
  for (std::int64_t first = 0; first < rows;) {
    // A block of whole rows of X holding about block_entries entries (at
    // least one row); Y's rows are checked to have the same lengths.
    std::int64_t last = first + 1;
    while (last < rows && static_cast<std::int64_t>(xr(last + 1) - xr(first)) <= block_entries) ++last;
    const detail::HostRows<MatrixX> x(X, static_cast<std::int64_t>(xr(first)), static_cast<std::int64_t>(xr(last)));
    const detail::HostRows<MatrixY> y(Y, static_cast<std::int64_t>(yr(first)), static_cast<std::int64_t>(yr(last)));
    for (std::int64_t i = first; i < last; ++i) {
      rx.clear();
      ry.clear();
      for (std::int64_t p = xr(i); p < static_cast<std::int64_t>(xr(i + 1)); ++p)
        rx.emplace_back(x.entries(p - x.offset), x.values(p - x.offset));
      for (std::int64_t p = yr(i); p < static_cast<std::int64_t>(yr(i + 1)); ++p)
        ry.emplace_back(y.entries(p - y.offset), y.values(p - y.offset));
      if (rx.size() != ry.size()) {
        why << "row " << i << " has " << ry.size() << " entries instead of " << rx.size();
        return why.str();
      }
      std::sort(rx.begin(), rx.end());
      std::sort(ry.begin(), ry.end());
      double scale = 0;
      for (const auto& e : rx) scale = std::max(scale, std::abs(e.second));
      for (std::size_t k = 0; k < rx.size(); ++k) {
        if (rx[k].first != ry[k].first) {
          why << "row " << i << " has column " << ry[k].first << " where " << rx[k].first << " was expected";
          return why.str();
        }
        if (!(std::abs(rx[k].second - ry[k].second) <= rtol * std::max(scale, 1e-300))) {
          why << "C(" << i << ", " << rx[k].first << ") = " << ry[k].second << " instead of " << rx[k].second;
          return why.str();
        }
      }
    }
    first = last;
  }
  return "";
}

}  // namespace gustav::bench
