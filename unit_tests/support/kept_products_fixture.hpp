#pragma once
// Typed-test fixture for plans that keep their products
// (SpgemmOptions::keep_product_positions): the options, new values for a
// repeat, and the comparison of a product with the serial reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "support/new_values.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {

template <class C>
class KeptProductsTest : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using typename SpgemmTest<C>::S;
  using typename SpgemmTest<C>::O;
  using typename SpgemmTest<C>::Z;

  /// Products kept in `layout`, on the hierarchical mapping (GPUs use it
  /// anyway; the CPU's thread per row keeps none).
  static SpgemmOptions keeping(KeptLayout layout = KeptLayout::automatic) {
    SpgemmOptions o;
    o.keep_product_positions = true;
    o.kept_layout = layout;
    o.cpu_mapping = CpuMapping::hierarchical;
    return o;
  }

  /// The first row of `h` with two entries or more (h.num_rows if none).
  static std::size_t first_row_of_two(const Host& h) {
    std::size_t r = 0;
    while (r < static_cast<std::size_t>(h.num_rows) && h.row_map[r + 1] - h.row_map[r] < 2) ++r;
    return r;
  }

  /// `h` with the first two entries of row `r` swapped: the same products,
  /// each in C's structure, but no longer where a plan recorded them.
  static Host with_two_swapped(Host h, std::size_t r) {
    const auto at = static_cast<std::size_t>(h.row_map[r]);
    std::swap(h.entries[at], h.entries[at + 1]);
    return h;
  }

  /// Numeric on `plan`, a repeat with new values (from `seed` and seed + 1)
  /// and a second repeat with the same values, which must give the same
  /// bits in every row of C of at most `same_bits_up_to` entries (all rows
  /// by default); each product checked against the reference.
  template <class Plan>
  void expect_repeats_match(const Plan& plan, const Host& A, const Host& B, std::uint64_t seed,
                            std::int64_t same_bits_up_to = -1) {
    using Run = UnderTest<C>;
    auto product = Run::numeric(plan, this->device(A), this->device(B));
    EXPECT_TRUE(matches(product, A, B)) << "first numeric";
    const auto A2 = with_new_values(A, seed);
    const auto B2 = with_new_values(B, seed + 1);
    Run::refill(plan, this->device(A2), this->device(B2), product);
    EXPECT_TRUE(matches(product, A2, B2)) << "after new values";
    const auto first = to_host_csr<S, O, Z>(product);
    Run::refill(plan, this->device(A2), this->device(B2), product);
    this->space.fence();
    const auto again = to_host_csr<S, O, Z>(product);
    std::int64_t differing_rows = 0, compared_rows = 0;
    for (std::size_t r = 0; r + 1 < first.row_map.size(); ++r) {
      const auto begin = static_cast<std::size_t>(first.row_map[r]), end = static_cast<std::size_t>(first.row_map[r + 1]);
      if (same_bits_up_to >= 0 && static_cast<std::int64_t>(end - begin) > same_bits_up_to) continue;
      ++compared_rows;
      if (!std::equal(first.values.begin() + begin, first.values.begin() + end, again.values.begin() + begin))
        ++differing_rows;
    }
    EXPECT_GT(compared_rows, 0) << "no row compared";
    EXPECT_EQ(differing_rows, 0) << "two calls with the same values differ";
  }

  ::testing::AssertionResult matches(const typename SpgemmTest<C>::Matrix& product, const Host& A, const Host& B) {
    this->space.fence();
    return matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), true);
  }
};

}  // namespace gustav::test
