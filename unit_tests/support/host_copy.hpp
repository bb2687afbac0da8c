#pragma once
// Test helpers shared by the backend tests of operations that return
// gustav::CsrViews (transpose, triple product, Jacobi prolongator).
#include <Kokkos_Core.hpp>
#include <functional>
#include <string>

#include "gustav/host_csr.hpp"

namespace gustav::test {

/// Copies gustav::CsrViews (or any struct of num_rows, num_cols, row_map,
/// entries, values) back to a host CSR matrix, element for element.
template <class S, class O, class Z, class Views>
HostCsr<S, O, Z> host_copy(const Views& v) {
  HostCsr<S, O, Z> h;
  h.num_rows = static_cast<O>(v.num_rows);
  h.num_cols = static_cast<O>(v.num_cols);
  auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.row_map);
  auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.entries);
  auto values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.values);
  h.row_map.assign(row_map.data(), row_map.data() + row_map.extent(0));
  h.entries.assign(entries.data(), entries.data() + entries.extent(0));
  h.values.assign(values.data(), values.data() + values.extent(0));
  return h;
}

/// The message of the exception f throws, or "" when it throws none of type E.
template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace gustav::test
