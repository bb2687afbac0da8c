#pragma once
// Typed-test fixture for plans that keep their products
// (SpgemmOptions::keep_product_positions): the options, new values for a
// repeat, and the comparison of a product with the serial reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
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

  /// B with the first entry of one of its rows moved to a column that no
  /// row of C using that row of B has: a product outside the plan's C.
  static Host with_a_product_outside(const Host& A, const Host& B) {
    const auto k = static_cast<O>(first_row_of_two(B));
    std::set<std::int64_t> reached;
    for (std::size_t i = 0; i + 1 < A.row_map.size(); ++i) {
      bool uses = false;
      for (auto j = A.row_map[i]; j < A.row_map[i + 1]; ++j) uses = uses || A.entries[j] == k;
      if (!uses) continue;
      for (auto j = A.row_map[i]; j < A.row_map[i + 1]; ++j) {
        const auto r = static_cast<std::size_t>(A.entries[j]);
        for (auto p = B.row_map[r]; p < B.row_map[r + 1]; ++p) reached.insert(static_cast<std::int64_t>(B.entries[p]));
      }
    }
    std::int64_t outside = 0;
    while (reached.count(outside)) ++outside;
    EXPECT_LT(outside, static_cast<std::int64_t>(B.num_cols)) << "every column is reached";
    Host moved = B;
    moved.entries[static_cast<std::size_t>(B.row_map[k])] = static_cast<O>(outside);
    return moved;
  }

  /// `h` with its first row of two entries or more no longer strictly
  /// increasing: its second entry repeats the first, or the two swap.
  static Host with_an_unordered_row(const Host& h, bool repeated) {
    const std::size_t r = first_row_of_two(h);
    if (!repeated) return with_two_swapped(h, r);
    Host unordered = h;
    const auto at = static_cast<std::size_t>(h.row_map[r]);
    unordered.entries[at + 1] = unordered.entries[at];
    return unordered;
  }

  /// A plan made with `options` whose first numeric call meets a product
  /// outside C raises plan_mismatch and learns nothing, then sums by the
  /// default path (repeats compared to the bit up to `same_bits_up_to`).
  void expect_a_first_call_outside_c_learns_nothing(const SpgemmOptions& options, const Host& A, const Host& B,
                                                    std::uint64_t seed, std::int64_t same_bits_up_to = -1) {
    using Run = UnderTest<C>;
    const auto plan = Run::symbolic(this->device(A), this->device(B), options);
    const auto outside = with_a_product_outside(A, B);
    EXPECT_THROW(Run::numeric(plan, this->device(A), this->device(outside)), gustav::plan_mismatch);
    EXPECT_EQ(plan.stats().masks_bytes, 0u);
    expect_repeats_match(plan, A, B, seed, same_bits_up_to);
    EXPECT_EQ(plan.stats().masks_bytes, 0u);
  }

  /// A plan made with `options` learns masks in its first numeric call, and
  /// a copy made before it sums from them (masks_bytes the same).
  void expect_copies_share_masks(const SpgemmOptions& options, const Host& A, std::uint64_t seed) {
    using Run = UnderTest<C>;
    const auto plan = Run::symbolic(this->device(A), this->device(A), options);
    const auto copy = plan;
    auto product = Run::numeric(plan, this->device(A), this->device(A));
    ASSERT_GT(plan.stats().masks_bytes, 0u);
    const auto A2 = with_new_values(A, seed);
    Run::refill(copy, this->device(A2), this->device(A2), product);
    EXPECT_TRUE(matches(product, A2, A2));
    EXPECT_EQ(copy.stats().masks_bytes, plan.stats().masks_bytes);
  }

  /// On a plan made with `options` that has learned masks: two columns of
  /// a row of B swapped (every product still inside C) are summed by the
  /// default path and the masks dropped; a product outside C raises
  /// plan_mismatch; the plan then goes on by the default path.
  void expect_changed_structure_keeps_the_default_contract(const SpgemmOptions& options, const Host& A,
                                                           const Host& B, std::uint64_t seed) {
    using Run = UnderTest<C>;
    const auto plan = Run::symbolic(this->device(A), this->device(B), options);
    auto product = Run::numeric(plan, this->device(A), this->device(B));
    ASSERT_GT(plan.stats().masks_bytes, 0u);
    const auto swapped = with_two_swapped(B, first_row_of_two(B));
    EXPECT_NO_THROW(Run::refill(plan, this->device(A), this->device(swapped), product));
    EXPECT_TRUE(matches(product, A, swapped));
    EXPECT_EQ(plan.stats().masks_bytes, 0u) << "the masks are dropped";
    const auto outside = with_a_product_outside(A, B);
    EXPECT_THROW(Run::refill(plan, this->device(A), this->device(outside), product), gustav::plan_mismatch);
    const auto A2 = with_new_values(A, seed);
    Run::refill(plan, this->device(A2), this->device(B), product);
    EXPECT_TRUE(matches(product, A2, B));
    EXPECT_EQ(plan.stats().masks_bytes, 0u);
  }

  ::testing::AssertionResult matches(const typename SpgemmTest<C>::Matrix& product, const Host& A, const Host& B) {
    this->space.fence();
    return matches_reference<S>(to_host_csr<S, O, Z>(product), reference_multiply(A, B), true);
  }
};

}  // namespace gustav::test
