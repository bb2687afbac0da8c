#pragma once
// Small hand-written CSR operands for the input-check tests: int indices and
// offsets, double values, copied to the test space on use.
#include <Kokkos_Core.hpp>
#include <vector>

#include "gustav/gustav.hpp"
#include "support/test_space.hpp"

namespace gustav::test {

using RawDevice = Kokkos::Device<TestSpace, typename TestSpace::memory_space>;

template <class T>
Kokkos::View<T*, RawDevice> device_view(const std::vector<T>& v) {
  Kokkos::View<T*, RawDevice> d("gustav::test::view", v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

struct RawCsr {
  int rows = 0, cols = 0;
  std::vector<int> row_map, entries;
  std::vector<double> values;
  /// The operand on the test space, as gustav's raw-view API takes it.
  auto ref() const {
    return make_csr_ref(rows, cols, device_view(row_map), device_view(entries), device_view(values));
  }
};

/// A valid 3 x 3 matrix with 4 entries.
inline RawCsr good_raw_csr() { return {3, 3, {0, 2, 3, 4}, {0, 2, 1, 0}, {1.0, 2.0, 3.0, 4.0}}; }

}  // namespace gustav::test
