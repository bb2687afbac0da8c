#pragma once
// Checks a sample of C's rows against a plain host computation, for products
// too large to check whole (and on which no peer runs). The sample holds the
// row of A with the most products, the row with the most entries of A, and
// `count` further rows spread evenly over A.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_types.hpp"

namespace gustav::tool {

struct SampledCheck {
  std::int64_t rows_checked = 0;
  std::int64_t entries_checked = 0;
  std::string first_problem;  ///< empty when every sampled row agrees
};

/// Rows of A to check: the heaviest by products, the longest, and an even spread.
inline std::vector<std::int64_t> sample_rows(const bench::HostMatrix& A, const bench::HostMatrix& B,
                                             std::int64_t count) {
  std::vector<std::int64_t> rows;
  const std::int64_t n = A.num_rows;
  if (n == 0) return rows;
  std::int64_t heaviest = 0, longest = 0, most_products = -1, most_entries = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t products = 0;
    for (auto p = A.row_map[i]; p < A.row_map[i + 1]; ++p) products += B.row_map[A.entries[p] + 1] - B.row_map[A.entries[p]];
    if (products > most_products) most_products = products, heaviest = i;
    if (A.row_map[i + 1] - A.row_map[i] > most_entries) most_entries = A.row_map[i + 1] - A.row_map[i], longest = i;
  }
  rows.push_back(heaviest);
  rows.push_back(longest);
  for (std::int64_t k = 0; k < count; ++k) rows.push_back(k * n / std::max<std::int64_t>(count, 1));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

/// Compares the sampled rows of the device matrix C with the host product.
template <class Matrix>
SampledCheck check_sampled_rows(const bench::HostMatrix& A, const bench::HostMatrix& B, const Matrix& C,
                                std::int64_t count, double rtol = 1e-10) {
  SampledCheck out;
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C.graph.row_map);
  for (const std::int64_t i : sample_rows(A, B, count)) {
    std::map<std::int64_t, double> expected;
    double scale = 0;
    for (auto p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
      const auto k = A.entries[p];
      for (auto q = B.row_map[k]; q < B.row_map[k + 1]; ++q) {
        expected[B.entries[q]] += A.values[p] * B.values[q];
        scale = std::max(scale, std::abs(A.values[p] * B.values[q]));
      }
    }
    const auto begin = static_cast<std::int64_t>(row_map(i)), end = static_cast<std::int64_t>(row_map(i + 1));
    const auto range = std::make_pair(begin, end);
    auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(C.graph.entries, range));
    auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(C.values, range));
    ++out.rows_checked;
    out.entries_checked += end - begin;
    std::ostringstream problem;
    if (end - begin != static_cast<std::int64_t>(expected.size())) {
      problem << "row " << i << " has " << end - begin << " entries, expected " << expected.size();
    } else {
      for (std::int64_t p = 0; p < end - begin && problem.str().empty(); ++p) {
        const auto it = expected.find(static_cast<std::int64_t>(entries(p)));
        if (it == expected.end()) {
          problem << "row " << i << " has column " << entries(p) << ", which the product does not";
        } else if (std::abs(values(p) - it->second) > rtol * std::max(scale, 1e-300) * 64) {
          problem << "row " << i << ", column " << entries(p) << ": " << values(p) << " instead of " << it->second;
        }
      }
    }
    if (!problem.str().empty() && out.first_problem.empty()) out.first_problem = problem.str();
  }
  return out;
}

}  // namespace gustav::tool
