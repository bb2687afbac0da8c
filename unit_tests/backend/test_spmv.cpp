// y = alpha * A * x + beta * y against a serial reference: every shape,
// unsorted and duplicate entries, one very long row, power-law rows, the
// alpha / beta cases (beta = 0 with NaN in y), every row mapping on
// purpose, and the input checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "gustav/spmv.hpp"
#include "gustav/spmv/listing_memory.hpp"
#include "support/random_csr.hpp"
#include "support/test_configs.hpp"
#include "support/raw_csr.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

/// The real type of a scalar (double for Kokkos::complex<double>).
template <class S>
struct real_of {
  using type = S;
};
template <class R>
struct real_of<Kokkos::complex<R>> {
  using type = R;
};

template <class S>
double magnitude(const S& v) {
  if constexpr (std::is_arithmetic_v<S>) {
    return std::abs(static_cast<double>(v));
  } else {
    return std::hypot(static_cast<double>(v.real()), static_cast<double>(v.imag()));
  }
}

template <class S>
S not_a_number() {
  using R = typename real_of<S>::type;
  const R nan = std::numeric_limits<R>::quiet_NaN();
  if constexpr (std::is_arithmetic_v<S>) {
    return nan;
  } else {
    return S(nan, nan);
  }
}

template <class S>
bool is_nan(const S& v) {
  return std::isnan(magnitude(v));
}

template <class C>
class Spmv : public ::testing::Test {
 protected:
  using S = typename C::scalar;
  using O = typename C::ordinal;
  using Z = typename C::offset;
  using Matrix = typename C::matrix;
  using Host = typename C::host;
  using Vector = Kokkos::View<S*, typename C::device>;
  using Real = typename real_of<S>::type;

  TestSpace space;

  Host random(std::int64_t rows, std::int64_t cols, double avg, std::uint64_t seed, RandomShape shape = {}) {
    shape.rows = rows;
    shape.cols = cols;
    shape.avg_per_row = avg;
    return random_csr<S, O, Z>(shape, seed);
  }

  /// Every row exactly `length` entries, in distinct random columns.
  Host rows_of_length(std::int64_t rows, std::int64_t cols, std::int64_t length, std::uint64_t seed) {
    return rows_of_lengths(cols, std::vector<std::int64_t>(static_cast<std::size_t>(rows), length), seed);
  }

  /// Row i of exactly lengths[i] entries, in distinct random columns.
  Host rows_of_lengths(std::int64_t cols, const std::vector<std::int64_t>& lengths, std::uint64_t seed) {
    Rng rng(seed);
    Host A;
    A.num_rows = static_cast<O>(lengths.size());
    A.num_cols = static_cast<O>(cols);
    std::vector<std::int64_t> all(static_cast<std::size_t>(cols));
    for (std::int64_t c = 0; c < cols; ++c) all[c] = c;
    for (const std::int64_t length : lengths) {
      for (std::int64_t t = 0; t < length; ++t) std::swap(all[t], all[t + rng.below(cols - t)]);
      for (std::int64_t t = 0; t < length; ++t) {
        A.entries.push_back(static_cast<O>(all[t]));
        A.values.push_back(random_value<S>(rng));
      }
      A.row_map.push_back(static_cast<Z>(A.entries.size()));
    }
    return A;
  }

  std::vector<S> random_vector(std::int64_t n, std::uint64_t seed) {
    Rng rng(seed);
    std::vector<S> v(static_cast<std::size_t>(n));
    for (auto& e : v) e = random_value<S>(rng);
    return v;
  }

  /// Copies `from` into the device view `to`, which has its length.
  template <class View, class T>
  void copy_to_device(const View& to, const std::vector<T>& from) {
    auto h = Kokkos::create_mirror_view(to);
    for (std::size_t i = 0; i < from.size(); ++i) h(i) = from[i];
    Kokkos::deep_copy(space, to, h);
    space.fence();
  }

  Vector device_vector(const std::vector<S>& v) {
    Vector d("gustav::test::vector", v.size());
    copy_to_device(d, v);
    return d;
  }

  std::vector<S> host_vector(const Vector& d) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
    return std::vector<S>(h.data(), h.data() + h.extent(0));
  }

  /// gustav::spmv on a CrsMatrix, from y0.
  std::vector<S> spmv(const Host& A, S alpha, const std::vector<S>& x, S beta, const std::vector<S>& y0) {
    const Matrix a = to_crs<Matrix>(space, A);
    const Vector y = device_vector(y0);
    gustav::spmv(space, alpha, a, device_vector(x), beta, y);
    space.fence();
    return host_vector(y);
  }

  /// y = 1.5 A x - 0.5 y0 with the row mapping forced.
  std::vector<S> forced_spmv(const Host& A, const detail::RowMapping& mapping, const std::vector<S>& x,
                             const std::vector<S>& y0) {
    const Matrix a = to_crs<Matrix>(space, A);
    const Vector y = device_vector(y0);
    detail::spmv_impl(space, S(1.5), detail::operand_input<TestSpace>(make_csr_ref(a)), device_vector(x), S(-0.5), y,
                      "gustav::spmv", &mapping);
    space.fence();
    return host_vector(y);
  }

  /// A matrix in device arrays that a test may rewrite in place (same
  /// sizes), as a caller's arrays might change between calls.
  struct RewritableMatrix {
    typename Matrix::row_map_type::non_const_type row_map;
    typename Matrix::index_type::non_const_type entries;
    typename Matrix::values_type::non_const_type values;
    O num_rows = 0;
    O num_cols = 0;

    auto ref() const { return make_csr_ref(num_rows, num_cols, row_map, entries, values); }
    detail::SpmvListingKey key(const detail::RowMapping& m) const {
      return {row_map.data(), entries.data(), num_rows, static_cast<std::int64_t>(entries.extent(0)), m.medium_row,
              m.long_row};
    }
  };

  RewritableMatrix rewritable(const Host& A) {
    RewritableMatrix d;
    d.num_rows = A.num_rows;
    d.num_cols = A.num_cols;
    d.row_map = decltype(d.row_map)("gustav::test::row_map", A.row_map.size());
    d.entries = decltype(d.entries)("gustav::test::entries", A.entries.size());
    d.values = decltype(d.values)("gustav::test::values", A.values.size());
    rewrite(d, A);
    return d;
  }

  /// Copies A's arrays over d's, which have A's sizes.
  void rewrite(RewritableMatrix& d, const Host& A) {
    ASSERT_EQ(d.row_map.extent(0), A.row_map.size());
    ASSERT_EQ(d.entries.extent(0), A.entries.size());
    copy_to_device(d.row_map, A.row_map);
    copy_to_device(d.entries, A.entries);
    copy_to_device(d.values, A.values);
  }

  /// y = 1.5 A x - 0.5 y0 on d (holding A) with the row mapping forced,
  /// checked against the reference; y is returned through `got`.
  ::testing::AssertionResult forced_on(const RewritableMatrix& d, const Host& A, const detail::RowMapping& mapping,
                                       std::uint64_t seed, std::vector<S>* got = nullptr) {
    const auto x = random_vector(A.num_cols, seed), y0 = random_vector(A.num_rows, seed + 1);
    const Vector y = device_vector(y0);
    detail::spmv_impl(space, S(1.5), detail::operand_input<TestSpace>(d.ref()), device_vector(x), S(-0.5), y,
                      "gustav::spmv", &mapping);
    space.fence();
    const std::vector<S> result = host_vector(y);
    if (got) *got = result;
    return agrees(A, S(1.5), x, S(-0.5), y0, result);
  }

  /// Calls on d holding A list nothing; d is then rewritten in place with
  /// B (same sizes), one row of which is past long_row and one past
  /// medium_row only. The first call on B finds them listed after all,
  /// remembers them, and gives the same bits as the calls after it.
  ::testing::AssertionResult listed_after_rewrite(const Host& A, const Host& B, const detail::RowMapping& mapping,
                                                  std::uint64_t seed) {
    auto d = rewritable(A);
    auto& memory = detail::SpmvListingMemory<TestSpace>::instance();
    memory.forget(d.key(mapping));
    for (int call = 0; call < 2; ++call) {
      auto matches = forced_on(d, A, mapping, seed + call);
      if (!matches) return matches << " (before the rewrite, call " << call << ")";
      const auto listed = memory.find(d.key(mapping));
      if (!listed || !listed->none()) return ::testing::AssertionFailure() << "A's calls did not remember an empty list";
    }
    rewrite(d, B);
    std::vector<S> first, again;
    auto matches = forced_on(d, B, mapping, seed + 2, &first);
    if (!matches) return matches << " (first call after the rewrite)";
    const auto listed = memory.find(d.key(mapping));
    if (!listed || listed->warp_rows != 1 || listed->team_rows != 1)
      return ::testing::AssertionFailure() << "the first call after the rewrite did not remember one row of each";
    for (int call = 1; call < 3; ++call) {
      auto repeat = forced_on(d, B, mapping, seed + 2, &again);
      if (!repeat) return repeat << " (call " << call << " after the rewrite)";
      if (std::memcmp(first.data(), again.data(), first.size() * sizeof(S)) != 0)
        return ::testing::AssertionFailure() << "call " << call << " after the rewrite gave other bits than the first";
    }
    return ::testing::AssertionSuccess();
  }

  /// Whether `calls` calls with the row mapping forced, from the same
  /// random x and y, match the reference and give the same bits.
  ::testing::AssertionResult forced_repeats_bits(const Host& A, const detail::RowMapping& mapping, int calls,
                                                 std::uint64_t seed) {
    const std::vector<S> x = random_vector(A.num_cols, seed), y0 = random_vector(A.num_rows, seed + 1);
    const std::vector<S> first = forced_spmv(A, mapping, x, y0);
    const auto matches = agrees(A, S(1.5), x, S(-0.5), y0, first);
    if (!matches) return matches;
    for (int call = 1; call < calls; ++call) {
      const std::vector<S> again = forced_spmv(A, mapping, x, y0);
      if (std::memcmp(first.data(), again.data(), first.size() * sizeof(S)) != 0)
        return ::testing::AssertionFailure() << "call " << call << " gave other bits than the first";
    }
    return ::testing::AssertionSuccess();
  }

  /// The implementation with the row mapping forced, from random x and y.
  ::testing::AssertionResult forced_matches_reference(const Host& A, const detail::RowMapping& mapping,
                                                      std::uint64_t seed) {
    const auto x = random_vector(A.num_cols, seed);
    const auto y0 = random_vector(A.num_rows, seed + 1);
    return agrees(A, S(1.5), x, S(-0.5), y0, forced_spmv(A, mapping, x, y0));
  }

  /// Obviously right: each row's products summed in storage order; within
  /// a bound of the rounding of both sums.
  ::testing::AssertionResult agrees(const Host& A, S alpha, const std::vector<S>& x, S beta,
                                    const std::vector<S>& y0, const std::vector<S>& got) {
    const double eps = std::numeric_limits<Real>::epsilon();
    for (O i = 0; i < A.num_rows; ++i) {
      S sum = S();
      double scale = 0;
      for (Z p = A.row_map[i]; p < A.row_map[i + 1]; ++p) {
        sum += A.values[p] * x[A.entries[p]];
        scale += magnitude(A.values[p]) * magnitude(x[A.entries[p]]);
      }
      const bool read_y = !(beta == S(0));
      const S want = read_y ? S(beta * y0[i] + alpha * sum) : S(alpha * sum);
      scale = magnitude(alpha) * scale + (read_y ? magnitude(beta) * magnitude(y0[i]) : 0.0);
      // A row whose map steps down (an overlapping row map) sums nothing.
      const double length =
          A.row_map[i + 1] > A.row_map[i] ? static_cast<double>(A.row_map[i + 1] - A.row_map[i]) : 0.0;
      const double tolerance = 4 * (length + 4) * eps * scale + std::numeric_limits<Real>::min();
      if (!(magnitude(got[i] - want) <= tolerance))
        return ::testing::AssertionFailure() << "y(" << i << ") is off by " << magnitude(got[i] - want)
                                             << " (tolerance " << tolerance << ")";
    }
    return ::testing::AssertionSuccess();
  }

  /// Runs y = alpha * A * x + beta * y with random x and y and checks it.
  ::testing::AssertionResult matches_reference(const Host& A, S alpha, S beta, std::uint64_t seed) {
    const auto x = random_vector(A.num_cols, seed);
    const auto y0 = random_vector(A.num_rows, seed + 1);
    return agrees(A, alpha, x, beta, y0, spmv(A, alpha, x, beta, y0));
  }

  ::testing::AssertionResult matches_reference(const Host& A, std::uint64_t seed) {
    return matches_reference(A, S(1.5), S(-0.5), seed);
  }

  /// The mapping the kernel will use for A, and whether it is `expected`.
  ::testing::AssertionResult maps_as(const Host& A, const detail::RowMapping& expected) {
    const auto m = detail::choose_spmv_mapping<TestSpace>(A.num_rows, A.nnz());
    if (m.vector_length == expected.vector_length && m.team_size == expected.team_size &&
        m.rows_per_worker == expected.rows_per_worker && m.team_per_row == expected.team_per_row &&
        m.long_row == expected.long_row && m.medium_row == expected.medium_row &&
        m.stream_rows == expected.stream_rows && m.stream_products == expected.stream_products)
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "mapping " << m.vector_length << " lanes, " << m.team_size
                                         << " workers, " << m.rows_per_worker << " rows per worker, "
                                         << (m.team_per_row ? "a team per row, " : "") << "rows to warps from "
                                         << m.medium_row << ", to teams from " << m.long_row << ", streamed in "
                                         << m.stream_rows << " rows with room for " << m.stream_products;
  }

  /// spmv from y0 = `y0` with A's row map replaced by `row_map`: the
  /// invalid_input message ("" if none) and y afterwards.
  std::pair<std::string, std::vector<S>> spmv_with_row_map(const Host& A, const std::vector<Z>& row_map,
                                                           const std::vector<S>& y0,
                                                           const detail::RowMapping* forced = nullptr) {
    const Matrix a = to_crs<Matrix>(space, A);
    typename Matrix::row_map_type::non_const_type bad("gustav::test::row_map", row_map.size());
    copy_to_device(bad, row_map);
    const Vector y = device_vector(y0);
    std::string error;
    try {
      const auto ref = make_csr_ref(a.numRows(), a.numCols(), bad, a.graph.entries, a.values);
      const Vector x = device_vector(random_vector(A.num_cols, 5));
      if (forced) {
        detail::spmv_impl(space, S(1), detail::operand_input<TestSpace>(ref), x, S(1), y, "gustav::spmv", forced);
      } else {
        gustav::spmv(space, S(1), ref, x, S(1), y);
      }
    } catch (const gustav::invalid_input& e) {
      error = e.what();
    }
    space.fence();
    return {error, host_vector(y)};
  }

  /// spmv with A's row map replaced by `malformed`'s (whose rows may
  /// overlap or run backwards) and the mapping forced: no error, every row
  /// summed over its range as that row map gives it (held to [0, nnz]);
  /// then a sound call on the same kept workspace matches the reference.
  ::testing::AssertionResult sums_each_row_over_its_range(const Host& A, const Host& malformed,
                                                          const detail::RowMapping& mapping, std::uint64_t seed) {
    const auto y0 = random_vector(A.num_rows, seed);
    const auto [error, y] = spmv_with_row_map(A, malformed.row_map, y0, &mapping);
    if (!error.empty()) return ::testing::AssertionFailure() << "error: " << error;
    const auto summed = agrees(malformed, S(1), random_vector(A.num_cols, 5), S(1), y0, y);
    if (!summed) return summed;
    return forced_matches_reference(A, mapping, seed + 1);
  }
};

/// Unsorted rows with repeated columns, a share of empty rows and one row
/// (`long_row`) of `length` entries: what the forced-mapping tests run on.
RandomShape untidy_shape(double empty_rows, std::int64_t long_row, std::int64_t length) {
  RandomShape shape;
  shape.sorted = false;
  shape.duplicates = true;
  shape.empty_rows = empty_rows;
  shape.long_row = long_row;
  shape.long_row_length = length;
  return shape;
}

/// The mapping of CPU backends: one thread per team, `rows` rows per chunk.
detail::RowMapping host_mapping(int rows) {
  detail::RowMapping m;
  m.rows_per_worker = rows;
  return m;
}

/// A GPU mapping.
detail::RowMapping device_mapping(int lanes, int workers, int rows, bool team_per_row, std::int64_t long_row,
                                  std::int64_t medium_row = std::numeric_limits<std::int64_t>::max()) {
  detail::RowMapping m;
  m.medium_row = medium_row;
  m.vector_length = lanes;
  m.team_size = workers;
  m.rows_per_worker = rows;
  m.team_per_row = team_per_row;
  m.long_row = long_row;
  return m;
}
/// A mapping of the streaming kernel (every backend runs it when forced):
/// `rows` rows per team, scratch for `products` products of 8 bytes.
detail::RowMapping stream_mapping(std::int64_t rows, std::int64_t products, std::int64_t medium_row,
                                  std::int64_t long_row) {
  detail::RowMapping m = device_mapping(1, 256, 1, false, long_row, medium_row);
  m.stream_rows = rows;
  m.stream_products = products;
  return m;
}
TYPED_TEST_SUITE(Spmv, AllConfigs, ConfigNames);

TYPED_TEST(Spmv, SquareRandom) { EXPECT_TRUE(this->matches_reference(this->random(300, 300, 6, 1), 1)); }

TYPED_TEST(Spmv, TallRectangular) { EXPECT_TRUE(this->matches_reference(this->random(500, 40, 5, 2), 2)); }

TYPED_TEST(Spmv, WideRectangular) { EXPECT_TRUE(this->matches_reference(this->random(30, 800, 40, 3), 3)); }

TYPED_TEST(Spmv, ZeroRows) {
  using S = typename TestFixture::S;
  const auto A = this->random(0, 50, 3, 4);
  EXPECT_TRUE(this->spmv(A, S(1), this->random_vector(50, 4), S(1), {}).empty());
}

TYPED_TEST(Spmv, ZeroColumnsScalesY) {
  EXPECT_TRUE(this->matches_reference(this->random(40, 0, 3, 5), 5));
}

TYPED_TEST(Spmv, NoEntriesScalesY) { EXPECT_TRUE(this->matches_reference(this->random(100, 80, 0, 6), 6)); }

TYPED_TEST(Spmv, EmptyRows) {
  RandomShape shape;
  shape.empty_rows = 0.6;
  EXPECT_TRUE(this->matches_reference(this->random(400, 300, 5, 7, shape), 7));
}

TYPED_TEST(Spmv, UnsortedRows) {
  RandomShape shape;
  shape.sorted = false;
  EXPECT_TRUE(this->matches_reference(this->random(400, 350, 12, 8, shape), 8));
}

TYPED_TEST(Spmv, DuplicatesAreSummed) {
  using S = typename TestFixture::S;
  typename TestFixture::Host A;
  A.num_rows = 1;
  A.num_cols = 3;
  A.row_map = {0, 3};
  A.entries = {1, 0, 1};
  A.values = {S(2), S(7), S(3)};
  const auto y = this->spmv(A, S(1), {S(0), S(10), S(0)}, S(0), {S(0)});
  EXPECT_TRUE(y[0] == S(50));
}

TYPED_TEST(Spmv, RandomDuplicatesInUnsortedRows) {
  RandomShape shape;
  shape.sorted = false;
  shape.duplicates = true;
  EXPECT_TRUE(this->matches_reference(this->random(500, 60, 9, 9, shape), 9));
}

TYPED_TEST(Spmv, OneVeryLongRow) {
  RandomShape shape;
  shape.long_row = 123;
  shape.long_row_length = 5000;
  EXPECT_TRUE(this->matches_reference(this->random(2000, 6000, 4, 10, shape), 10));
}

TYPED_TEST(Spmv, PowerLaw) {
  using C = TypeParam;
  const auto A = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(12, 8, 11);
  EXPECT_TRUE(this->matches_reference(A, 11));
}

TYPED_TEST(Spmv, BetaZeroIgnoresNaNInY) {
  using S = typename TestFixture::S;
  const auto A = this->random(300, 200, 6, 12);
  const auto x = this->random_vector(200, 12);
  const std::vector<S> y0(300, not_a_number<S>());
  const auto y = this->spmv(A, S(2), x, S(0), y0);
  EXPECT_TRUE(std::none_of(y.begin(), y.end(), [](const S& v) { return is_nan(v); }));
  EXPECT_TRUE(this->agrees(A, S(2), x, S(0), y0, y));
}

TYPED_TEST(Spmv, BetaOneAccumulates) {
  using S = typename TestFixture::S;
  EXPECT_TRUE(this->matches_reference(this->random(300, 250, 7, 13), S(1), S(1), 13));
}

TYPED_TEST(Spmv, GeneralAlphaAndBeta) {
  // Complex configurations get complex alpha and beta.
  using S = typename TestFixture::S;
  Rng rng(14);
  const S alpha = random_value<S>(rng);
  const S beta = random_value<S>(rng);
  EXPECT_TRUE(this->matches_reference(this->random(300, 250, 7, 14), alpha, beta, 14));
}

TYPED_TEST(Spmv, AlphaZeroOnlyScalesY) {
  // x is all NaN: alpha = 0 must not read it (nor A).
  using S = typename TestFixture::S;
  const auto A = this->random(200, 150, 5, 15);
  const std::vector<S> x(150, not_a_number<S>());
  const auto y0 = this->random_vector(200, 15);
  const auto y = this->spmv(A, S(0), x, S(3), y0);
  for (std::size_t i = 0; i < y0.size(); ++i) EXPECT_TRUE(y[i] == S(S(3) * y0[i])) << "y(" << i << ")";
}

TYPED_TEST(Spmv, AlphaAndBetaZeroClearY) {
  using S = typename TestFixture::S;
  const auto A = this->random(200, 150, 5, 16);
  const std::vector<S> y0(200, not_a_number<S>());
  const auto y = this->spmv(A, S(0), this->random_vector(150, 16), S(0), y0);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_TRUE(y[i] == S(0)) << "y(" << i << ")";
}

// One test per row mapping: rows of 1 (50,000 rows), 6 (60,000 rows), 8,
// 100 and 5000 entries. On GPUs the first two are streamed, the others get
// 2, 32 and 32 lanes per worker, the last a team of workers per row; on
// CPUs one lane and chunks of 1024, 170, 128, 10 and 1 rows.

TYPED_TEST(Spmv, RowsOfOneEntry) {
  // Streamed on GPUs: 2048 rows a team (8 a thread), room for 1.25 times
  // their 2048 entries and 64 more.
  const auto A = this->rows_of_length(50000, 50000, 1, 17);
  EXPECT_TRUE(this->maps_as(A, test_space_is_host ? host_mapping(1024) : stream_mapping(2048, 2624, 16, 1024)));
  EXPECT_TRUE(this->matches_reference(A, 17));
}

TYPED_TEST(Spmv, RowsOfSixEntriesOnManyRows) {
  // Streamed on GPUs: 256 rows a team, room for 1.25 times their 1536
  // entries and 64 more (1984); rows past 18 entries would be listed.
  const auto A = this->rows_of_length(60000, 60000, 6, 52);
  EXPECT_TRUE(this->maps_as(A, test_space_is_host ? host_mapping(170) : stream_mapping(256, 1984, 18, 1024)));
  EXPECT_TRUE(this->matches_reference(A, 52));
}

TYPED_TEST(Spmv, RowsOfEightEntries) {
  const auto A = this->rows_of_length(20000, 20000, 8, 18);
  EXPECT_TRUE(this->maps_as(A, test_space_is_host ? host_mapping(128) : device_mapping(2, 128, 2, false, 1024, 16)));
  EXPECT_TRUE(this->matches_reference(A, 18));
}

TYPED_TEST(Spmv, RowsOfHundredEntries) {
  const auto A = this->rows_of_length(2000, 3000, 100, 19);
  EXPECT_TRUE(this->maps_as(A, test_space_is_host ? host_mapping(10) : device_mapping(32, 8, 2, false, 1600, 1600)));
  EXPECT_TRUE(this->matches_reference(A, 19));
}

TYPED_TEST(Spmv, RowsOfFiveThousandEntries) {
  const auto A = this->rows_of_length(40, 6000, 5000, 20);
  EXPECT_TRUE(this->maps_as(A, test_space_is_host ? host_mapping(1) : device_mapping(32, 8, 1, true, 80000, 80000)));
  EXPECT_TRUE(this->matches_reference(A, 20));
}

// The whole-team kernels forced, so that every backend runs them.

TYPED_TEST(Spmv, TeamPerRowMatchesReference) {
  const RandomShape shape = untidy_shape(0.2, 7, 3000);
  auto mapping = test_space_is_host ? host_mapping(1) : device_mapping(32, 8, 1, true, 0);
  mapping.team_per_row = true;
  EXPECT_TRUE(this->forced_matches_reference(this->random(600, 400, 20, 23, shape), mapping, 23));
}

TYPED_TEST(Spmv, LongRowsOnTeamsMatchReference) {
  // Power-law rows: every row past 40 entries is listed for a team.
  using C = TypeParam;
  const auto A = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(12, 8, 24);
  auto mapping = test_space_is_host ? host_mapping(64) : device_mapping(8, 32, 4, false, 0);
  mapping.long_row = 40;
  mapping.medium_row = 40;
  EXPECT_TRUE(this->forced_matches_reference(A, mapping, 24));
}

TYPED_TEST(Spmv, RowsListedForWarpsAndTeams) {
  // Rows past 12 entries go to a warp each, past 200 to a team each.
  const RandomShape shape = untidy_shape(0.2, 11, 3000);
  const auto A = this->random(700, 500, 10, 25, shape);
  auto mapping = test_space_is_host ? host_mapping(3) : device_mapping(2, 128, 2, false, 0);
  mapping.medium_row = 12;
  mapping.long_row = 200;
  EXPECT_TRUE(this->forced_matches_reference(A, mapping, 25));
}

TYPED_TEST(Spmv, PowerLawRowsListedForWarpsAndTeams) {
  using C = TypeParam;
  const auto A = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(12, 8, 26);
  auto mapping = test_space_is_host ? host_mapping(16) : device_mapping(1, 256, 8, false, 0);
  mapping.medium_row = 16;
  mapping.long_row = 64;
  EXPECT_TRUE(this->forced_matches_reference(A, mapping, 26));
}

TYPED_TEST(Spmv, EveryLaneCountMatchesReference) {
  // The row kernel is compiled once per lane count on GPUs, each with its
  // own stride and shuffle tree: every count, with rows past 3 rounds of
  // the lanes listed for warps and past 300 entries for teams.
  const RandomShape shape = untidy_shape(0.15, 17, 900);
  const auto A = this->random(900, 700, 24, 32, shape);
  for (const int lanes : {1, 2, 4, 8, 16, 32}) {
    auto mapping = test_space_is_host ? host_mapping(lanes) : device_mapping(lanes, 256 / lanes, 2, false, 0);
    mapping.medium_row = 3 * lanes;
    mapping.long_row = 300;
    EXPECT_TRUE(this->forced_matches_reference(A, mapping, 32 + lanes)) << lanes << " lanes";
  }
}

TYPED_TEST(Spmv, LongRowsOnWarpsMatchReference) {
  // Rows of up to 350 entries listed for a warp each: past four rounds of a
  // warp's lanes they are summed with four loads in flight, then a tail.
  const auto A = this->random(400, 3000, 175, 39, untidy_shape(0.1, 3, 1200));
  auto mapping = test_space_is_host ? host_mapping(4) : device_mapping(2, 128, 2, false, 0);
  mapping.medium_row = 8;
  mapping.long_row = 1000;
  EXPECT_TRUE(this->forced_matches_reference(A, mapping, 39));
}

TYPED_TEST(Spmv, RepeatedCallsWithListedRows) {
  // The list of long rows is kept between calls: its counters must be back
  // at zero for the next one.
  using C = TypeParam;
  const auto A = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(11, 8, 27);
  auto mapping = test_space_is_host ? host_mapping(8) : device_mapping(8, 32, 1, false, 0);
  mapping.medium_row = 10;
  mapping.long_row = 30;
  for (int call = 0; call < 3; ++call) EXPECT_TRUE(this->forced_matches_reference(A, mapping, 27 + call)) << call;
  mapping.medium_row = 30;
  for (int call = 0; call < 2; ++call) EXPECT_TRUE(this->forced_matches_reference(A, mapping, 30 + call)) << call;
}

TYPED_TEST(Spmv, ListedRowsAfterCallsThatListNothing) {
  // Calls take turns with the list's two counter sets, the listed-rows
  // kernel of each clearing the set of the call before it: calls between
  // them that run no such kernel (a team per row, rows too short) or list
  // nothing (a wrong row map) must not leave a set that the next listing
  // call finds dirty.
  using C = TypeParam;
  using Z = typename TestFixture::Z;
  const auto A = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(11, 8, 53);
  auto listing = test_space_is_host ? host_mapping(8) : device_mapping(8, 32, 1, false, 0);
  listing.medium_row = 10;
  listing.long_row = 30;
  auto team_rows = test_space_is_host ? host_mapping(1) : device_mapping(32, 8, 1, true, 0);
  team_rows.team_per_row = true;
  auto bad_row_map = A.row_map;
  bad_row_map.back() = static_cast<Z>(bad_row_map.back() + 1);
  EXPECT_TRUE(this->forced_matches_reference(A, listing, 53));
  EXPECT_TRUE(this->forced_matches_reference(A, team_rows, 54));
  EXPECT_TRUE(this->forced_matches_reference(A, listing, 55));
  EXPECT_NE(this->spmv_with_row_map(A, bad_row_map, this->random_vector(A.num_rows, 56), &listing).first, "");
  EXPECT_TRUE(this->forced_matches_reference(A, listing, 57));
  EXPECT_TRUE(this->forced_matches_reference(A, listing, 58));
  EXPECT_TRUE(this->matches_reference(this->random(50, 40, 3, 59), 59));
  EXPECT_TRUE(this->forced_matches_reference(A, listing, 60));
}

TYPED_TEST(Spmv, RepeatsOnOneMatrixRememberWhatWasListed) {
  // Calls on the same arrays: the first lists power-law rows for warps and
  // teams and remembers how many; the later ones launch the listed-rows
  // kernel at that size. Every call matches the reference in the same bits.
  using C = TypeParam;
  using S = typename TestFixture::S;
  const auto A = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(11, 8, 61);
  auto mapping = test_space_is_host ? host_mapping(8) : device_mapping(8, 32, 1, false, 0);
  mapping.medium_row = 10;
  mapping.long_row = 30;
  auto d = this->rewritable(A);
  auto& memory = detail::SpmvListingMemory<TestSpace>::instance();
  memory.forget(d.key(mapping));
  std::vector<S> first, again;
  ASSERT_TRUE(this->forced_on(d, A, mapping, 61, &first));
  const auto listed = memory.find(d.key(mapping));
  ASSERT_TRUE(listed.has_value());
  EXPECT_GT(listed->warp_rows, 0);
  EXPECT_GT(listed->team_rows, 0);
  EXPECT_GE(listed->segments, listed->team_rows);
  for (int call = 1; call < 4; ++call) {
    ASSERT_TRUE(this->forced_on(d, A, mapping, 61, &again)) << call;
    EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(S)), 0) << call;
  }
}

TYPED_TEST(Spmv, LongRowsWrittenInPlaceAfterCallsThatListedNothing) {
  // Calls on a matrix of short rows list nothing, and later calls on its
  // arrays launch no listed-rows kernel ahead. Rewritten in place (the same
  // arrays and sizes) with rows past both thresholds, the next call finds
  // them listed after all and sums them after its wait, in the same bits as
  // the calls after it, which list them from the start.
  using Z = typename TestFixture::Z;
  const auto A = this->rows_of_length(400, 300, 6, 62);
  // The same 2,400 entries: rows of 5 and 6, one of 280 (past long_row: a
  // team's) and one of 100 (past medium_row: a warp's).
  std::vector<std::int64_t> lengths(400, 5);
  for (int i = 100; i < 130; ++i) lengths[i] = 6;
  lengths[0] = 280;
  lengths[5] = 100;
  const auto B = this->rows_of_lengths(300, lengths, 63);
  ASSERT_EQ(B.row_map.back(), static_cast<Z>(A.entries.size()));
  auto mapping = test_space_is_host ? host_mapping(3) : device_mapping(2, 128, 2, false, 0);
  mapping.medium_row = 12;
  mapping.long_row = 200;
  EXPECT_TRUE(this->listed_after_rewrite(A, B, mapping, 64));
}

TYPED_TEST(Spmv, StreamedRowsWrittenInPlaceAfterCallsThatListedNothing) {
  // The same with the streaming kernel: a long row whose block overflows
  // the scratch, and one whose block fits.
  using Z = typename TestFixture::Z;
  const auto A = this->rows_of_length(500, 300, 4, 69);
  // The same 2,000 entries: rows of 3 and 4, one of 150 and one of 40.
  std::vector<std::int64_t> lengths(500, 4);
  for (int i = 300; i < 482; ++i) lengths[i] = 3;
  lengths[7] = 150;
  lengths[260] = 40;
  const auto B = this->rows_of_lengths(300, lengths, 70);
  ASSERT_EQ(B.row_map.back(), static_cast<Z>(A.entries.size()));
  EXPECT_TRUE(this->listed_after_rewrite(A, B, stream_mapping(16, 16 * 6, 12, 120), 71));
}

TYPED_TEST(Spmv, CallsThatListNothingBetweenCallsThatList) {
  // A call that launches no listed-rows kernel must leave the list's
  // counters as the next listing call expects them: calls on a matrix that
  // lists nothing and on one that lists rows, in turn, each of the former
  // after its first with no listed-rows kernel at all (had such a call
  // switched counter sets, the next listing call would find the set of the
  // one before it still counted).
  using C = TypeParam;
  const auto X = random_rmat<typename C::scalar, typename C::ordinal, typename C::offset>(11, 8, 75);
  const auto Y = this->rows_of_length(600, 500, 5, 76);
  auto mapping = test_space_is_host ? host_mapping(8) : device_mapping(8, 32, 1, false, 0);
  mapping.medium_row = 10;
  mapping.long_row = 30;
  auto dx = this->rewritable(X);
  auto dy = this->rewritable(Y);
  auto& memory = detail::SpmvListingMemory<TestSpace>::instance();
  memory.forget(dx.key(mapping));
  memory.forget(dy.key(mapping));
  for (int round = 0; round < 4; ++round) {
    EXPECT_TRUE(this->forced_on(dy, Y, mapping, 77 + round)) << round;
    EXPECT_TRUE(this->forced_on(dx, X, mapping, 81 + round)) << round;
  }
  const auto y_listed = memory.find(dy.key(mapping));
  ASSERT_TRUE(y_listed.has_value());
  EXPECT_TRUE(y_listed->none());
}

TYPED_TEST(Spmv, SegmentedTeamRowsMatchReferenceAndRepeat) {
  // Rows listed for teams are cut into segments of spmv_segment_entries
  // that any team may sum: rows at, just under and just over one segment,
  // rows of several segments next to each other, among short rows. Every
  // call must give the same bits, whichever team sums a row's last segment.
  constexpr std::int64_t seg = detail::spmv_segment_entries;
  std::vector<std::int64_t> lengths(300);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>(i % 7);
  const std::vector<std::int64_t> long_rows{seg - 1, seg, seg + 1, 4 * seg + 3, 9 * seg, 3 * seg - 5};
  const std::size_t at[] = {3, 4, 100, 101, 102, 299};
  for (std::size_t k = 0; k < long_rows.size(); ++k) lengths[at[k]] = long_rows[k];
  const auto A = this->rows_of_lengths(12 * seg, lengths, 41);
  auto mapping = test_space_is_host ? host_mapping(4) : device_mapping(4, 64, 1, false, 0);
  mapping.medium_row = 16;
  mapping.long_row = 1000;
  EXPECT_TRUE(this->forced_repeats_bits(A, mapping, 4, 41));
}

TYPED_TEST(Spmv, StreamedBlocksMatchReference) {
  // Blocks of 40 rows with scratch for about 50 % more products than they
  // hold on average: most are streamed, those with the long row or many
  // long-ish rows are summed from A; rows past 12 entries are listed for
  // warps, past 200 for teams.
  const auto A = this->random(700, 500, 6, 45, untidy_shape(0.2, 7, 3000));
  EXPECT_TRUE(this->forced_matches_reference(A, stream_mapping(40, 360, 12, 200), 45));
}

TYPED_TEST(Spmv, StreamedAndUnstreamedBlocksMatchReferenceAndRepeat) {
  // Room for every block, for none, and for some: each matches the
  // reference, and a block goes the same way on every call, so repeated
  // calls give the same bits.
  const auto A = this->random(900, 600, 7, 46, untidy_shape(0.1, 300, 900));
  EXPECT_TRUE(this->forced_matches_reference(A, stream_mapping(16, 16 * 30, 24, 400), 46));
  EXPECT_TRUE(this->forced_matches_reference(A, stream_mapping(16, 1, 24, 400), 47));
  EXPECT_TRUE(this->forced_repeats_bits(A, stream_mapping(16, 16 * 7, 24, 400), 3, 46));
}

TYPED_TEST(Spmv, StreamedBlocksOfManyRowsAndOfOneRow) {
  // Blocks as large as the launch keeps them (it lowers rows per team
  // past a row per thread until the teams fill the device), and blocks of
  // a single row each.
  const auto A = this->random(300, 250, 4, 48, untidy_shape(0.3, 0, 4));
  EXPECT_TRUE(this->forced_matches_reference(A, stream_mapping(4096, 3000, 64, 1000), 48));
  EXPECT_TRUE(this->forced_matches_reference(A, stream_mapping(1, 8, 64, 1000), 49));
}

TYPED_TEST(Spmv, BadRowMapEndLeavesYAlone) {
  // The end points are checked by the kernels themselves: a wrong one is
  // reported, and y keeps its values.
  using Z = typename TestFixture::Z;
  const auto A = this->random(300, 200, 6, 28);
  const auto y0 = this->random_vector(300, 28);
  auto row_map = A.row_map;
  row_map.back() = static_cast<Z>(row_map.back() - 1);
  auto [error, y] = this->spmv_with_row_map(A, row_map, y0);
  EXPECT_EQ(error, "gustav::spmv: A has a row_map ending at " + std::to_string(row_map.back()) + " but " +
                       std::to_string(A.nnz()) + " entries");
  EXPECT_TRUE(y == y0);
  row_map = A.row_map;
  row_map.front() = 2;
  std::tie(error, y) = this->spmv_with_row_map(A, row_map, y0);
  EXPECT_EQ(error, "gustav::spmv: A has a row_map starting at 2, not 0");
  EXPECT_TRUE(y == y0);
}

TYPED_TEST(Spmv, MalformedInnerRowMapStaysInBounds) {
  // Inner entries are not checked, but must not send a kernel outside the
  // arrays: a decreasing entry and one past nnz (run under the sanitizer).
  using Z = typename TestFixture::Z;
  const auto A = this->random(300, 200, 6, 29);
  auto row_map = A.row_map;
  row_map[100] = static_cast<Z>(A.nnz() + 1000);
  row_map[200] = 0;
  const auto result = this->spmv_with_row_map(A, row_map, this->random_vector(300, 29));
  EXPECT_EQ(result.first, "");
}

TYPED_TEST(Spmv, OverlappingRowsOverflowingTheListsStayInBounds) {
  // Rows that overlap (inner entries of the row map are not checked) hold
  // more entries between them than A has, so more rows, and more
  // segments, are listed than a sound A allows: those that find the lists
  // full are summed where they are. Every row is summed over its range as
  // the row map gives it, and a sound call afterwards, on the same kept
  // workspace, is unaffected.
  using Z = typename TestFixture::Z;
  const auto A = this->random(1001, 200, 6, 43);
  auto overlapping = A;
  for (std::size_t i = 1; i + 1 < overlapping.row_map.size(); ++i)
    overlapping.row_map[i] = i % 2 == 1 ? static_cast<Z>(A.nnz()) : Z(0);
  auto mapping = test_space_is_host ? host_mapping(4) : device_mapping(2, 128, 1, false, 0);
  mapping.medium_row = 16;
  mapping.long_row = 1000;
  EXPECT_TRUE(this->sums_each_row_over_its_range(A, overlapping, mapping, 43));
}

TYPED_TEST(Spmv, OverlappingRowsInStreamedBlocksStayInBounds) {
  // As above with the streaming kernel: rows outside their block's
  // entries are summed from A, and the lists overflow as before.
  using Z = typename TestFixture::Z;
  const auto A = this->random(1001, 200, 6, 50);
  auto overlapping = A;
  for (std::size_t i = 1; i + 1 < overlapping.row_map.size(); ++i)
    overlapping.row_map[i] = i % 3 == 1 ? static_cast<Z>(A.nnz()) : static_cast<Z>((i * 7) % A.nnz());
  EXPECT_TRUE(this->sums_each_row_over_its_range(A, overlapping, stream_mapping(32, 400, 16, 1000), 50));
}

TYPED_TEST(Spmv, RawViews) {
  using S = typename TestFixture::S;
  const auto A = this->random(250, 180, 5, 21);
  const auto a = to_crs<typename TestFixture::Matrix>(this->space, A);
  const auto x = this->random_vector(180, 21);
  const auto y0 = this->random_vector(250, 22);
  const auto y = this->device_vector(y0);
  gustav::spmv(this->space, S(2), make_csr_ref(a.numRows(), a.numCols(), a.graph.row_map, a.graph.entries, a.values),
               this->device_vector(x), S(0.5), y);
  this->space.fence();
  EXPECT_TRUE(this->agrees(A, S(2), x, S(0.5), y0, this->host_vector(y)));
}

// Input checks, with their exact messages.

/// Runs gustav::spmv and returns the invalid_input message ("" if none).
std::string spmv_error(const RawCsr& A, std::size_t x_length, std::size_t y_length) {
  try {
    gustav::spmv(TestSpace(), 1.0, A.ref(), device_view(std::vector<double>(x_length, 1.0)), 0.0,
                 device_view(std::vector<double>(y_length, 0.0)));
  } catch (const gustav::invalid_input& e) {
    return e.what();
  }
  return "";
}

TEST(SpmvValidation, GoodOperandsPass) { EXPECT_EQ(spmv_error(good_raw_csr(), 3, 3), ""); }

TEST(SpmvValidation, XTooShort) {
  EXPECT_EQ(spmv_error(good_raw_csr(), 2, 3), "gustav::spmv: x has 2 entries but A has 3 columns");
}

TEST(SpmvValidation, YTooLong) { EXPECT_EQ(spmv_error(good_raw_csr(), 3, 4), "gustav::spmv: y has 4 entries but A has 3 rows"); }

TEST(SpmvValidation, RowMapTooShort) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 2, 4};
  EXPECT_EQ(spmv_error(A, 3, 3), "gustav::spmv: A has a row_map of length 3 but 3 rows (expected 4)");
}

TEST(SpmvValidation, RowMapEndDiffersFromEntries) {
  RawCsr A = good_raw_csr();
  A.row_map = {0, 2, 3, 3};
  EXPECT_EQ(spmv_error(A, 3, 3), "gustav::spmv: A has a row_map ending at 3 but 4 entries");
}

TEST(SpmvValidation, ValuesCountDiffers) {
  RawCsr A = good_raw_csr();
  A.values = {1.0, 2.0, 3.0, 4.0, 5.0};
  EXPECT_EQ(spmv_error(A, 3, 3), "gustav::spmv: A has 5 values but 4 entries");
}

TEST(SpmvValidation, NegativeDimensions) {
  RawCsr A = good_raw_csr();
  A.rows = -1;
  EXPECT_EQ(spmv_error(A, 3, 3), "gustav::spmv: A has negative dimensions -1 x 3");
}

}  // namespace
}  // namespace gustav::test
