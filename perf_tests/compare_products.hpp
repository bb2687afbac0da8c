#pragma once
// Checks a peer's C against Gustav's: same structure (rows compared as sets
// of columns, since peers may leave rows unsorted) and values equal to a
// relative tolerance. Returns "" when they agree, else the first difference.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gustav/host_csr.hpp"

namespace gustav::bench {

template <class MatrixX, class MatrixY>
std::string compare_products(const MatrixX& X, const MatrixY& Y, double rtol = 1e-9) {
  const auto x = to_host_csr<double, std::int64_t, std::int64_t>(X);
  const auto y = to_host_csr<double, std::int64_t, std::int64_t>(Y);
  std::ostringstream why;
  if (x.num_rows != y.num_rows || x.num_cols != y.num_cols) {
    why << "shape " << y.num_rows << " x " << y.num_cols << " instead of " << x.num_rows << " x " << x.num_cols;
    return why.str();
  }
  if (x.nnz() != y.nnz()) {
    why << "nnz(C) = " << y.nnz() << " instead of " << x.nnz();
    return why.str();
  }
  std::vector<std::pair<std::int64_t, double>> rx, ry;
  for (std::int64_t i = 0; i < x.num_rows; ++i) {
    rx.clear();
    ry.clear();
    for (auto p = x.row_map[i]; p < x.row_map[i + 1]; ++p) rx.emplace_back(x.entries[p], x.values[p]);
    for (auto p = y.row_map[i]; p < y.row_map[i + 1]; ++p) ry.emplace_back(y.entries[p], y.values[p]);
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
  return "";
}

}  // namespace gustav::bench
