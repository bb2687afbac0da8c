// The CPU numeric phase's hashed rows: where a position per column of B
// outgrows a core's L2 and no ring holds the rows (scattered columns), each
// product finds its position in a small hash table of its row's columns. A
// row of C longer than such tables take keeps a position (or rank) per
// column of B, and rows of C of a few entries on average keep one too. Each
// must sum right over new values and catch a product moved out of its row:
// one column past a column the row holds, or far from any.
#include <algorithm>
#include <cstdint>
#include <string>

#include "gustav/common/host_caches.hpp"
#include "support/new_values.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class HashedRows : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;

  /// `A` with its first row replaced by one entry on every column.
  Host with_full_first_row(const Host& A) {
    Host h;
    h.num_rows = A.num_rows;
    h.num_cols = A.num_cols;
    h.row_map.assign(1, 0);
    Rng rng(7);
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(A.num_cols); ++k) {
      h.entries.push_back(static_cast<O>(k));
      h.values.push_back(random_value<S>(rng));
    }
    h.row_map.push_back(static_cast<Z>(h.entries.size()));
    for (std::int64_t i = 1; i < static_cast<std::int64_t>(A.num_rows); ++i) {
      for (auto p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
        h.entries.push_back(A.entries[p]);
        h.values.push_back(A.values[p]);
      }
      h.row_map.push_back(static_cast<Z>(h.entries.size()));
    }
    return h;
  }

  /// Plans A * B, checks the planned numeric phase over new values against
  /// the reference, and returns how the plan's dense rows sum.
  std::string check_planned(const Host& A, const Host& B, std::uint64_t seed) {
    const auto plan = SpgemmTest<C>::Run::symbolic(this->device(A), this->device(B));
    const auto A2 = with_new_values(A, seed), B2 = with_new_values(B, seed + 1);
    const auto C2 = SpgemmTest<C>::Run::numeric(plan, this->device(A2), this->device(B2));
    EXPECT_TRUE(matches_reference<S>(to_host_csr<S, O, Z>(C2), reference_multiply(A2, B2), true));
    for (const std::int64_t moved : {1, 7919}) {
      auto B3 = B;
      for (auto& e : B3.entries) e = static_cast<O>((static_cast<std::int64_t>(e) + moved) % B.num_cols);
      EXPECT_THROW(SpgemmTest<C>::Run::numeric(plan, this->device(A), this->device(B3)), gustav::plan_mismatch)
          << "columns moved by " << moved;
    }
    return plan.stats().numeric_rows;
  }
};
TYPED_TEST_SUITE(HashedRows, AllConfigs, ConfigNames);

// B's positions take at least twice a core's L2 (and 6 MB): rows of C of
// about 40 scattered columns are hashed on the host; with a first row of C
// of about 12,000 columns (every row of B) they are not, nor are rows of
// about 4 (a position per column is faster there).
TYPED_TEST(HashedRows, ScatteredRowsHashedUnlessLongOrTiny) {
  const std::int64_t cols =
      std::max<std::int64_t>(1500000, static_cast<std::int64_t>(detail::host_l2_bytes() / 2));
  const auto A = this->random(2000, 1500, 5, 401);
  const auto B = this->random(1500, cols, 8, 402);
  const std::string mid_rows = this->check_planned(A, B, 403);
  const std::string long_row = this->check_planned(this->with_full_first_row(A), B, 405);
  const std::string tiny_rows =
      this->check_planned(this->random(2000, 1500, 1, 406), this->random(1500, cols, 4, 407), 408);
  if (test_space_is_host) {
    EXPECT_EQ(mid_rows, "hashed");
    EXPECT_NE(long_row, "hashed");
    EXPECT_NE(long_row, "");
    EXPECT_NE(tiny_rows, "hashed");
    EXPECT_NE(tiny_rows, "");
  }
}

// Columns that share their low bits (multiples of 4,096), empty rows, and
// rows of C from one entry (scanned) to about 1,000: the tables, sized by
// each row, hold them all.
TYPED_TEST(HashedRows, ColumnsSharingLowBits) {
  using O = typename TestFixture::O;
  // Wide enough for the positions to outgrow any core's L2.
  const std::int64_t cols =
      std::max<std::int64_t>(4096 * 1000, static_cast<std::int64_t>(detail::host_l2_bytes() / 2));
  auto B = this->random(600, 1000, 5, 411);
  B.num_cols = static_cast<O>(cols);
  for (auto& e : B.entries) e = static_cast<O>(static_cast<std::int64_t>(e) * 4096);
  RandomShape shape;
  shape.empty_rows = 0.1;
  shape.long_row = 5;
  shape.long_row_length = 300;
  const auto A = this->random(800, 600, 6, 412, shape);
  const std::string rows = this->check_planned(A, B, 413);
  if (test_space_is_host) EXPECT_EQ(rows, "hashed");
}

}  // namespace
}  // namespace gustav::test
