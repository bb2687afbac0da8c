// The symbolic plan reused with new values, and refused for other matrices.
#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gustav/common/host_caches.hpp"
#include "support/new_values.hpp"
#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class SpgemmReuse : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  /// Row i holds columns i * cols / rows - width .. + width (clipped), with
  /// random values: consecutive rows name consecutive rows of B, so A
  /// streams through B (the CPU passes then fetch no rows of B ahead).
  Host banded(std::int64_t rows, std::int64_t cols, std::int64_t width, std::uint64_t seed) {
    Rng rng(seed);
    Host h;
    h.num_rows = static_cast<typename C::ordinal>(rows);
    h.num_cols = static_cast<typename C::ordinal>(cols);
    h.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < rows; ++i) {
      const std::int64_t centre = i * cols / rows;
      for (std::int64_t j = std::max<std::int64_t>(0, centre - width); j <= std::min(cols - 1, centre + width); ++j) {
        h.entries.push_back(static_cast<typename C::ordinal>(j));
        h.values.push_back(random_value<typename C::scalar>(rng));
      }
      h.row_map.push_back(static_cast<typename C::offset>(h.entries.size()));
    }
    return h;
  }
  /// Plans A * B once, then for each round gives A and B new values (seeds
  /// first_seed + round and first_seed + 50 + round) and checks the
  /// plan's numeric phase against the reference.
  void check_reuse_rounds(const Host& A, const Host& B, std::uint64_t rounds, std::uint64_t first_seed) {
    const auto plan = SpgemmTest<C>::Run::symbolic(this->device(A), this->device(B));
    for (std::uint64_t round = 0; round < rounds; ++round) {
      const auto A2 = with_new_values(A, first_seed + round);
      const auto B2 = with_new_values(B, first_seed + 50 + round);
      const auto C2 = SpgemmTest<C>::Run::numeric(plan, this->device(A2), this->device(B2));
      EXPECT_TRUE(matches_reference<typename C::scalar>(
          to_host_csr<typename C::scalar, typename C::ordinal, typename C::offset>(C2), reference_multiply(A2, B2),
          true))
          << B.num_cols << " columns, round " << round;
    }
  }
};
TYPED_TEST_SUITE(SpgemmReuse, AllConfigs, ConfigNames);

TYPED_TEST(SpgemmReuse, ReuseAfterValueChange) {
  this->check_reuse_rounds(this->random(300, 250, 6, 50), this->random(250, 280, 6, 51), 3, 60);
}

TYPED_TEST(SpgemmReuse, ReuseAfterValueChangeOnBandedProducts) {
  // A banded square A times a banded A (stencil-like) and times a narrow
  // B of a third of the columns (a multigrid A * P).
  const auto A = this->banded(400, 400, 3, 80);
  this->check_reuse_rounds(A, this->banded(400, 400, 2, 81), 2, 90);
  this->check_reuse_rounds(A, this->banded(400, 133, 1, 82), 2, 90);
}

TYPED_TEST(SpgemmReuse, RefillExistingMatrix) {
  const auto A = this->random(200, 200, 6, 52);
  const auto dA = this->device(A);
  const auto plan = TestFixture::Run::symbolic(dA, dA);
  auto C = TestFixture::Run::numeric(plan, dA, dA);
  const auto A2 = with_new_values(A, 53);
  TestFixture::Run::refill(plan, this->device(A2), this->device(A2), C);
  EXPECT_TRUE(matches_reference<typename TestFixture::S>(
      to_host_csr<typename TestFixture::S, typename TestFixture::O, typename TestFixture::Z>(C),
      reference_multiply(A2, A2), true));
}

TYPED_TEST(SpgemmReuse, PlanRefusesOtherShape) {
  const auto A = this->random(100, 100, 5, 54);
  const auto other = this->random(100, 120, 5, 55);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A));
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(other)), gustav::plan_mismatch);
}

TYPED_TEST(SpgemmReuse, PlanRefusesOtherNnz) {
  const auto A = this->random(100, 100, 5, 56);
  auto A2 = A;
  A2.entries.pop_back();
  A2.values.pop_back();
  A2.row_map.back() -= 1;
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(A));
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A2), this->device(A)), gustav::plan_mismatch);
}

// Four million columns: a position per column of B (16 MB a thread) does
// not fit the CPU's dense accumulator, so where A does not stream through B
// its numeric phase ranks the rows (numeric_pass.hpp): over scattered and
// banded rows of B, and a product
// moved out of the planned structure, to a column of a word the row holds
// and to one of a word it does not.
TYPED_TEST(SpgemmReuse, ReuseOverMillionsOfColumns) {
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  const std::int64_t cols = std::int64_t(1) << 22;
  const auto A = this->random(2000, 1500, 4, 95);
  const auto scattered = this->random(1500, cols, 3, 96);
  this->check_reuse_rounds(A, scattered, 2, 97);
  this->check_reuse_rounds(A, this->banded(1500, cols, 3, 98), 2, 97);
  if (test_space_is_host) {
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(scattered));
    ASSERT_EQ(plan.stats().numeric_bins.size(), 1u);
    EXPECT_EQ(plan.stats().numeric_bins[0].name, "dense");
    EXPECT_EQ(plan.stats().numeric_rows, "ranked");
  }
  // Row i of B holds column i * stride + offset.
  const std::int64_t n = 64;
  auto diagonal = [&](std::int64_t width, std::int64_t stride, std::int64_t offset) {
    Host B;
    B.num_rows = static_cast<O>(n);
    B.num_cols = static_cast<O>(width);
    B.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
      B.entries.push_back(static_cast<O>(i * stride + offset));
      B.values.push_back(typename TestFixture::S(1));
      B.row_map.push_back(static_cast<typename TestFixture::Z>(i + 1));
    }
    return B;
  };
  // A permutation that does not stream through B, so that the rows are
  // ranked rather than summed in a ring (each row of C is one column).
  auto permutation = diagonal(n, 1, 0);
  for (std::int64_t i = 0; i < n; ++i) permutation.entries[i] = static_cast<O>((i * 37) % n);
  const auto plan = TestFixture::Run::symbolic(this->device(permutation), this->device(diagonal(cols, 65536, 0)));
  if (test_space_is_host) EXPECT_EQ(plan.stats().numeric_rows, "ranked");
  for (const std::int64_t moved : {1, 40})
    EXPECT_THROW(
        TestFixture::Run::numeric(plan, this->device(permutation), this->device(diagonal(cols, 65536, moved))),
        gustav::plan_mismatch)
        << "column moved by " << moved;
}

// Where A streams through B the CPU's dense rows sum in a value per column
// of B beside the positions, if both fit a core's level-2 cache (B's rows
// reaching its first and last columns, as many columns as just fit); else,
// where every row of C spans few columns, in a ring of values indexed by a
// column's low bits (1.5 million columns, each row of B near its own
// stretch of them: a ring of 2,048 slots, at most 64 KB); else they add
// at each column's position in C's row (1.5 million scattered columns:
// 6 MB of positions, at least 12 MB with values of any scalar), as they do
// where A does not stream. Each must be right and catch a product moved
// out of the structure.
TYPED_TEST(SpgemmReuse, StreamingRowsPerColumnInARingOrByPosition) {
  using S = typename TestFixture::S;
  using O = typename TestFixture::O;
  // Positions and a value per column: 4 + sizeof(S) bytes a column, 32
  // bytes spare for the arrays' alignment.
  const auto summed_cols = static_cast<std::int64_t>((detail::host_l2_bytes() - 32) / (4 + sizeof(S)));
  const std::int64_t ring_cols = 1500000;
  const std::vector<std::pair<std::int64_t, std::string>> cases = {
      {summed_cols, "summed"}, {ring_cols, "ring"}, {1500000, "positions"}};
  for (const auto& [cols, rows_kind] : cases) {
    const auto A = this->banded(2000, 1500, rows_kind == "ring" ? 1 : 2, 195);
    auto B = rows_kind == "ring" ? this->banded(1500, cols, 2, 196) : this->random(1500, cols, 3, 196);
    if (rows_kind == "summed") {
      // Every row of B spans all its columns, so no ring narrower than B
      // holds a row of C.
      typename TestFixture::Host wide = B;
      wide.entries.clear();
      wide.values.clear();
      wide.row_map.assign(1, 0);
      for (std::int64_t i = 0; i < B.num_rows; ++i) {
        wide.entries.push_back(O(0));
        wide.values.push_back(S(1));
        for (auto p = B.row_map[i]; p < B.row_map[i + 1]; ++p)
          if (B.entries[p] != O(0) && B.entries[p] != static_cast<O>(cols - 1)) {
            wide.entries.push_back(B.entries[p]);
            wide.values.push_back(B.values[p]);
          }
        wide.entries.push_back(static_cast<O>(cols - 1));
        wide.values.push_back(S(1));
        wide.row_map.push_back(static_cast<typename TestFixture::Z>(wide.entries.size()));
      }
      B = wide;
    }
    this->check_reuse_rounds(A, B, 2, 197);
    auto moved = B;
    for (auto& e : moved.entries) e = static_cast<O>((static_cast<std::int64_t>(e) + 1) % cols);
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B));
    if (test_space_is_host) EXPECT_EQ(plan.stats().numeric_rows, rows_kind) << cols << " columns";
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(moved)), gustav::plan_mismatch)
        << cols << " columns";
  }
}

// A ring may be wider than a core's L2 (up to four times it): rows of C
// spanning about 40,000 of 1.5 million columns take a ring of 65,536 slots
// (1 to 2 MB), which must sum right, stay clear of neighbouring rows'
// columns a ring's width away, and catch a product moved out of its row.
TYPED_TEST(SpgemmReuse, RingsWiderThanTheCache) {
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using S = typename TestFixture::S;
  const std::int64_t cols = 1500000, rows = 3000, step = 400, reach = 40000;
  // Row k of B: columns k * step + {0, 1, reach / 2, reach - 1}. Rows of B
  // 164 apart (65,600 columns) fall 64 slots apart in the ring, and the
  // ring's slots are reused about every 330 rows of C.
  Host B;
  B.num_rows = static_cast<O>(rows);
  B.num_cols = static_cast<O>(cols);
  B.row_map.assign(1, 0);
  Rng rng(330);
  for (std::int64_t k = 0; k < rows; ++k) {
    for (const std::int64_t offset : {std::int64_t(0), std::int64_t(1), reach / 2, reach - 1}) {
      B.entries.push_back(static_cast<O>(k * step + offset));
      B.values.push_back(random_value<S>(rng));
    }
    B.row_map.push_back(static_cast<typename TestFixture::Z>(B.entries.size()));
  }
  const auto A = this->banded(2 * rows, rows, 1, 331);
  this->check_reuse_rounds(A, B, 2, 332);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B));
  if (test_space_is_host && detail::host_l2_bytes() >= (std::size_t(1) << 19))
    EXPECT_EQ(plan.stats().numeric_rows, "ring");
  auto moved = B;
  for (auto& e : moved.entries) e = static_cast<O>((static_cast<std::int64_t>(e) + 2) % cols);
  EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(moved)), gustav::plan_mismatch);
}

// The ring holds a row's columns by their low bits: a product moved to a
// column absent from its row, or to one a ring's width beyond the row's
// columns (the same slot as a column the row holds), on either side, must
// be caught, and the planned B must still multiply right afterwards. (Each
// call's pool sets its rings up afresh, so this does not test the rows'
// own clean-up within a call.)
TYPED_TEST(SpgemmReuse, RingRowsCatchProductsOutsideTheirRow) {
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  const std::int64_t n = 64;
  // Too many for a value per column to fit a level-2 cache.
  const std::int64_t cols = std::int64_t(1) << 22;
  // Row i of B holds the columns base(i) + offsets; A = I streams through B, so C = B.
  auto rows_at = [&](std::vector<std::int64_t> offsets, std::int64_t moved_row, std::int64_t moved_to) {
    Host B;
    B.num_rows = static_cast<O>(n);
    B.num_cols = static_cast<O>(cols);
    B.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t base = 4096 + 8 * i;
      std::vector<std::int64_t> columns;
      for (const std::int64_t o : offsets) columns.push_back(base + o);
      if (i == moved_row) columns.back() = moved_to;
      std::sort(columns.begin(), columns.end());
      for (const std::int64_t c : columns) {
        B.entries.push_back(static_cast<O>(c));
        B.values.push_back(typename TestFixture::S(i + 1));
      }
      B.row_map.push_back(static_cast<typename TestFixture::Z>(B.entries.size()));
    }
    return B;
  };
  Host identity = rows_at({0}, -1, 0);
  for (std::int64_t i = 0; i < n; ++i) identity.entries[i] = static_cast<O>(i);
  identity.num_cols = static_cast<O>(n);
  const Host planned = rows_at({0, 10}, -1, 0);
  const auto plan = TestFixture::Run::symbolic(this->device(identity), this->device(planned));
  if (test_space_is_host) EXPECT_EQ(plan.stats().numeric_rows, "ring");
  const std::int64_t base5 = 4096 + 8 * 5;
  // Row 5's second column moved: within its span to a column it lacks, and
  // to the columns one ring (of any width up to 2^12) beyond and before.
  for (const std::int64_t to : {base5 + 5, base5 + 10 + 1024, base5 + 10 + 4096, base5 - 1024 + 10, base5 - 4096})
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(identity), this->device(rows_at({0, 10}, 5, to))),
                 gustav::plan_mismatch)
        << "moved to column " << to;
  // A column past B's last, or before its first, is malformed input, not a
  // changed structure, though the ring takes any column (the caller names
  // the fault).
  for (const std::int64_t to : {cols + base5 + 10, std::int64_t(-1)}) {
    if (to < 0 && !std::is_signed_v<O>) continue;
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(identity), this->device(rows_at({0, 10}, 5, to))),
                 gustav::invalid_input)
        << "moved to column " << to;
  }
  // And the planned B itself still multiplies right after the refusals.
  EXPECT_TRUE(matches_reference<typename TestFixture::S>(
      to_host_csr<typename TestFixture::S, O, typename TestFixture::Z>(
          TestFixture::Run::numeric(plan, this->device(identity), this->device(planned))),
      reference_multiply(identity, planned), true));
}

// Rows of C spanning half of 2^62 columns (64-bit indices): no dense
// accumulator, ring or value per column may be sized for them (their sizes
// would wrap), and the product must still be right.
TYPED_TEST(SpgemmReuse, RowsSpanningAHugeColumnRange) {
  using O = typename TestFixture::O;
  if constexpr (sizeof(O) < 8) {
    GTEST_SKIP() << "needs 64-bit column indices";
  } else {
    using Host = typename TestFixture::Host;
    const std::int64_t n = 64;
    const std::int64_t cols = std::int64_t(1) << 62;
    Host identity, B;
    identity.num_rows = identity.num_cols = B.num_rows = static_cast<O>(n);
    B.num_cols = static_cast<O>(cols);
    identity.row_map.assign(1, 0);
    B.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
      identity.entries.push_back(static_cast<O>(i));
      identity.values.push_back(typename TestFixture::S(1));
      identity.row_map.push_back(static_cast<typename TestFixture::Z>(i + 1));
      for (const std::int64_t c : {i, (std::int64_t(1) << 61) + i}) {
        B.entries.push_back(static_cast<O>(c));
        B.values.push_back(typename TestFixture::S(i + 1));
      }
      B.row_map.push_back(static_cast<typename TestFixture::Z>(B.entries.size()));
    }
    this->check_reuse_rounds(identity, B, 2, 310);
    if (test_space_is_host) {
      const auto plan = TestFixture::Run::symbolic(this->device(identity), this->device(B));
      EXPECT_NE(plan.stats().numeric_rows, "ring");
      EXPECT_NE(plan.stats().numeric_rows, "summed");
    }
  }
}

// SpgemmStats::numeric_rows names dense rows only where a numeric pass
// takes them: not for a product without products, nor for the colouring
// numeric phase.
TYPED_TEST(SpgemmReuse, NumericRowsNamedOnlyWhereDenseRowsRun) {
  if (!test_space_is_host) GTEST_SKIP() << "dense rows are the CPU's";
  const auto A = this->banded(200, 200, 2, 320);
  const auto empty = this->random(200, 200, 0, 321);
  EXPECT_EQ(TestFixture::Run::symbolic(this->device(empty), this->device(A)).stats().numeric_rows, "");
  SpgemmOptions coloured;
  coloured.accumulator = Accumulator::mcr;
  EXPECT_EQ(TestFixture::Run::symbolic(this->device(A), this->device(A), coloured).stats().numeric_rows, "");
  EXPECT_NE(TestFixture::Run::symbolic(this->device(A), this->device(A)).stats().numeric_rows, "");
}

TYPED_TEST(SpgemmReuse, StructureChangeIsDetected) {
  // B = identity, then B = a cyclic shift: same shape and nnz, but every
  // product now lands in a column the planned structure does not have.
  using Host = typename TestFixture::Host;
  const std::int64_t n = 64;
  Host I, shift;
  I.num_rows = I.num_cols = shift.num_rows = shift.num_cols = static_cast<typename TestFixture::O>(n);
  I.row_map.assign(1, 0);
  shift.row_map.assign(1, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    I.entries.push_back(static_cast<typename TestFixture::O>(i));
    shift.entries.push_back(static_cast<typename TestFixture::O>((i + 1) % n));
    I.values.push_back(typename TestFixture::S(1));
    shift.values.push_back(typename TestFixture::S(1));
    I.row_map.push_back(static_cast<typename TestFixture::Z>(i + 1));
    shift.row_map.push_back(static_cast<typename TestFixture::Z>(i + 1));
  }
  // A = I streams through B; A = a scattered permutation does not (the CPU
  // passes fetch rows of B ahead for it): both must notice.
  Host scattered = I;
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(83);
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.next() % static_cast<std::uint64_t>(i + 1)]);
  for (std::int64_t i = 0; i < n; ++i) scattered.entries[i] = static_cast<typename TestFixture::O>(order[i]);
  for (const auto& A : {I, scattered}) {
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(I));
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(A), this->device(shift)), gustav::plan_mismatch);
  }
}

// Rows of C that the plan left empty get no thread in the numeric phase:
// products moved into them, with the shapes and nnz unchanged and every
// other row left with a subset of its products, must still be caught. Each
// way on every mapping and numeric phase a plan can take.
TYPED_TEST(SpgemmReuse, ProductsMovedIntoEmptyRowsAreCaught) {
  using Host = typename TestFixture::Host;
  using O = typename TestFixture::O;
  using Z = typename TestFixture::Z;
  const std::int64_t n = 64;
  // Row i of the matrix holds the columns `columns(i)`.
  auto matrix = [&](auto columns) {
    Host h;
    h.num_rows = h.num_cols = static_cast<O>(n);
    h.row_map.assign(1, 0);
    for (std::int64_t i = 0; i < n; ++i) {
      for (const std::int64_t c : columns(i)) {
        h.entries.push_back(static_cast<O>(c));
        h.values.push_back(typename TestFixture::S(1));
      }
      h.row_map.push_back(static_cast<Z>(h.entries.size()));
    }
    return h;
  };
  using Columns = std::vector<std::int64_t>;
  // Even rows hold their own column and the next; odd rows are empty.
  const Host pairs = matrix([](std::int64_t i) { return i % 2 == 0 ? Columns{i, i + 1} : Columns{}; });
  // Every row holds its own column: the same nnz, a product in every row.
  const Host identity = matrix([](std::int64_t i) { return Columns{i}; });
  // One entry, in the last row or the first.
  const Host last = matrix([](std::int64_t i) { return i == n - 1 ? Columns{0} : Columns{}; });
  const Host first = matrix([](std::int64_t i) { return i == 0 ? Columns{0} : Columns{}; });
  // One entry in row 5 of B, which `last` does not reach: C has no entry.
  const Host unreached = matrix([](std::int64_t i) { return i == 5 ? Columns{5} : Columns{}; });
  std::vector<SpgemmOptions> ways(4);
  ways[1].cpu_mapping = CpuMapping::hierarchical;
  ways[2].accumulator = Accumulator::mcr;
  ways[3].validate_indices = false;
  for (std::size_t w = 0; w < ways.size(); ++w) {
    // A's entries move from even rows into the odd ones (B = I).
    auto plan = TestFixture::Run::symbolic(this->device(pairs), this->device(identity), ways[w]);
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(identity), this->device(identity)),
                 gustav::plan_mismatch)
        << "A changed, way " << w;
    // B's entries move into rows of B that the odd rows of C came from
    // (A = I, so C = B).
    plan = TestFixture::Run::symbolic(this->device(identity), this->device(pairs), ways[w]);
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(identity), this->device(identity)),
                 gustav::plan_mismatch)
        << "B changed, way " << w;
    // C's one entry moves to another row, and the one left empty by it
    // has no product to be caught by.
    plan = TestFixture::Run::symbolic(this->device(last), this->device(identity), ways[w]);
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(first), this->device(identity)),
                 gustav::plan_mismatch)
        << "the one entry moved, way " << w;
    // C has no entry at all until B's entry moves into the row A reaches.
    plan = TestFixture::Run::symbolic(this->device(last), this->device(unreached), ways[w]);
    EXPECT_EQ(plan.nnz(), 0);
    EXPECT_THROW(TestFixture::Run::numeric(plan, this->device(last), this->device(first)), gustav::plan_mismatch)
        << "an empty C gains an entry, way " << w;
  }
}

}  // namespace
}  // namespace gustav::test
