// Differential tests: thousands of random products in every configuration,
// each compared with the serial reference. A case is a pure function of its
// seed (support/differential_case.hpp); a failure prints the seed, the case
// and the command that replays it:
//
//   GUSTAV_DIFFERENTIAL_SEED=<seed> gustav_tests_<backend> --gtest_filter='Differential/<config>.<test>'
//
// GUSTAV_DIFFERENTIAL_CASES=<n> changes the number of cases per configuration
// and test (default 300: 18 configurations x 2 tests x 300 = 10,800 cases).
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "support/check_product.hpp"
#include "support/differential_case.hpp"
#include "support/more_configs.hpp"
#include "support/new_values.hpp"
#include "support/random_csr.hpp"
#include "support/reference_spgemm.hpp"
#include "support/test_configs.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

constexpr std::uint64_t default_cases = 300;
/// Failures reported in full per test; the rest are only counted.
constexpr std::int64_t failures_shown = 5;

/// What the differential tests of this run did, printed once at the end.
struct Tally {
  std::int64_t cases = 0;
  std::int64_t failures = 0;
  std::int64_t compressed = 0;        ///< cases whose symbolic phase ran on a compressed B
  std::int64_t dense = 0;             ///< cases that used the dense accumulator
  std::int64_t coloured = 0;          ///< cases that used a colouring numeric phase (mcr, mcw)
  std::int64_t split = 0;             ///< cases split between host and device (co_execution)
  std::int64_t masked = 0;            ///< reuse cases whose later calls summed from learned masks
  std::int64_t positioned = 0;        ///< ... and from learned positions
  std::map<std::string, std::int64_t> bins;  ///< "phase bin" -> cases with rows in it
  double slowest_ms = 0;                      ///< the slowest case, to keep the run fast
  std::string slowest;
};

Tally& tally() {
  static Tally t;
  return t;
}

class DifferentialReport : public ::testing::Environment {
 public:
  void TearDown() override {
    const Tally& t = tally();
    if (t.cases == 0) return;
    std::cout << "[ differential ] " << t.cases << (t.cases == 1 ? " case" : " cases") << " on " << TestSpace::name()
              << ", " << t.failures << " failed; slowest " << t.slowest_ms << " ms (" << t.slowest << ")\n";
    if (t.bins.empty()) return;
    std::cout << "[ differential ] reuse cases with B compressed: " << t.compressed
              << ", with the dense accumulator: " << t.dense << ", coloured (mcr, mcw): " << t.coloured
              << ", split between host and device: " << t.split << ", summed from learned masks: " << t.masked
              << ", from learned positions: " << t.positioned
              << "\n";
    for (const char* phase : {"count", "fill", "numeric"}) {
      std::cout << "[ differential ] reuse cases per " << phase << " bin:";
      for (const auto& [bin, n] : t.bins)
        if (bin.rfind(std::string(phase) + " ", 0) == 0) std::cout << " " << bin.substr(bin.find(' ') + 1) << " " << n;
      std::cout << "\n";
    }
  }
};
[[maybe_unused]] ::testing::Environment* const report =
    ::testing::AddGlobalTestEnvironment(new DifferentialReport);

/// Reads a non-negative integer from the environment (decimal or 0x hex).
bool read_env(const char* name, std::uint64_t& value, std::string& error) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtoull(text, &end, 0);
  if (errno != 0 || *end != '\0' || *text == '-') error = std::string(name) + " is not a number: " + text;
  return true;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

template <class Cfg>
class Differential : public ::testing::Test {
 protected:
  using S = typename Cfg::scalar;
  using O = typename Cfg::ordinal;
  using Z = typename Cfg::offset;
  using Matrix = typename Cfg::matrix;
  using Host = typename Cfg::host;
  using Run = UnderTest<Cfg>;

  TestSpace space;

  Matrix device(const Host& h) { return to_crs<Matrix>(space, h); }

  /// C (on the device) against the reference product of A and B.
  ::testing::AssertionResult matches(const Matrix& C, const Host& A, const Host& B, bool sorted) {
    space.fence();
    if (static_cast<std::int64_t>(C.numCols()) != static_cast<std::int64_t>(B.num_cols))
      return ::testing::AssertionFailure() << "C has " << C.numCols() << " columns, expected " << B.num_cols;
    return matches_reference<S>(to_host_csr<S, O, Z>(C), reference_multiply(A, B), sorted);
  }

  /// Runs `check` on every case of this test: the replayed seed alone, or
  /// the configuration's and test's own run of seeds.
  template <class Check>
  void run_cases(Check check) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string test = std::string(info->test_suite_name()) + "." + info->name();
    std::string error;
    std::uint64_t replay = 0, cases = default_cases;
    const bool replaying = read_env("GUSTAV_DIFFERENTIAL_SEED", replay, error);
    read_env("GUSTAV_DIFFERENTIAL_CASES", cases, error);
    ASSERT_TRUE(error.empty()) << error;
    // Seeds differ between configurations and tests, so that each sees its
    // own cases; any seed replays in any of them.
    const std::uint64_t first = fnv1a(test) % 1000000 * 1000000;
    const std::uint64_t count = replaying ? 1 : cases;
    std::int64_t failures = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t seed = replaying ? replay : first + i;
      const DifferentialCase c = make_differential_case(seed);
      ::testing::AssertionResult result = ::testing::AssertionSuccess();
      const auto start = std::chrono::steady_clock::now();
      try {
        // SHOW=1 prints each case before it runs (the last one shown is the
        // one a crash happened in).
        if (std::getenv("SHOW")) std::cout << "seed " << seed << "\n" << describe(c) << std::flush;
        const Host A = random_csr<S, O, Z>(c.a, c.a_seed);
        const Host B = random_csr<S, O, Z>(c.b, c.b_seed);
        result = check(c, A, B);
      } catch (const std::exception& e) {
        result = ::testing::AssertionFailure() << "threw: " << e.what();
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (ms > tally().slowest_ms) {
        tally().slowest_ms = ms;
        tally().slowest = test + ", seed " + std::to_string(seed);
      }
      ++tally().cases;
      if (result) continue;
      ++tally().failures;
      if (++failures <= failures_shown)
        ADD_FAILURE() << test << ": case with seed " << seed << " failed: " << result.message() << "\n"
                      << describe(c) << "  on " << TestSpace::name()
                      << (test_space_is_host ? ""
                                             : " (cpu_mapping and the automatic, hash and dense accumulators do not "
                                               "apply)")
                      << "\n  replay: GUSTAV_DIFFERENTIAL_SEED=" << seed << " --gtest_filter='" << test << "'";
    }
    if (failures > failures_shown)
      ADD_FAILURE() << test << ": " << failures - failures_shown << " more of " << count << " cases failed";
  }

  void record(const SpgemmStats& stats) {
    Tally& t = tally();
    t.compressed += stats.compressed ? 1 : 0;
    t.dense += stats.accumulator == "dense" ? 1 : 0;
    t.coloured += stats.accumulator == "mcr" || stats.accumulator == "mcw" ? 1 : 0;
    t.split += stats.co_execution == "host and device" ? 1 : 0;
    auto bins = [&](const char* phase, const std::vector<BinUse>& uses) {
      for (const auto& b : uses)
        if (b.rows > 0) ++t.bins[std::string(phase) + " " + b.name];
    };
    bins("count", stats.count_bins);
    bins("fill", stats.fill_bins);
    bins("numeric", stats.numeric_bins);
  }
};
#if GUSTAV_TEST_EVERY_CONFIG
using DifferentialConfigs = EveryConfig;
#else
using DifferentialConfigs = AllConfigs;  // Gustav_TEST_EVERY_CONFIG=OFF: the core four only
#endif
TYPED_TEST_SUITE(Differential, DifferentialConfigs, ConfigNames);

// One call: gustav::multiply with the case's options.
TYPED_TEST(Differential, MultiplyMatchesReference) {
  using Host = typename TestFixture::Host;
  this->run_cases([&](const DifferentialCase& c, const Host& A, const Host& B) {
    const auto C = TestFixture::Run::multiply(this->device(A), this->device(B), c.options);
    return this->matches(C, A, B, c.options.sort_rows);
  });
}

// Symbolic once; numeric with the original values, with new values of A and
// B, and into the existing C with new values of A only.
TYPED_TEST(Differential, ReuseMatchesReference) {
  using Host = typename TestFixture::Host;
  this->run_cases([&](const DifferentialCase& c, const Host& A, const Host& B) -> ::testing::AssertionResult {
    const bool sorted = c.options.sort_rows;
    const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B), c.options);
    this->record(plan.stats());
    const auto reference = reference_multiply(A, B);
    std::int64_t nnz = 0;
    for (const auto& row : reference) nnz += static_cast<std::int64_t>(row.size());
    if (plan.stats().nnz != nnz)
      return ::testing::AssertionFailure() << "plan.stats().nnz = " << plan.stats().nnz << ", expected " << nnz;
    if (plan.stats().products != reference_products(A, B))
      return ::testing::AssertionFailure() << "plan.stats().products = " << plan.stats().products << ", expected "
                                           << reference_products(A, B);

    auto C = TestFixture::Run::numeric(plan, this->device(A), this->device(B));
    if (auto r = this->matches(C, A, B, sorted); !r) return r << " (numeric, original values)";

    const Host A2 = with_new_values(A, c.value_seed);
    const Host B2 = with_new_values(B, c.value_seed + 1);
    const auto C2 = TestFixture::Run::numeric(plan, this->device(A2), this->device(B2));
    if (auto r = this->matches(C2, A2, B2, sorted); !r) return r << " (numeric, new values of A and B)";

    const Host A3 = with_new_values(A, c.value_seed + 2);
    TestFixture::Run::refill(plan, this->device(A3), this->device(B2), C);
    if (auto r = this->matches(C, A3, B2, sorted); !r) return r << " (numeric into the existing C, new values of A)";
    if (plan.stats().masks_bytes > 0) ++tally().masked;
    if (plan.stats().learned_positions_bytes > 0) ++tally().positioned;
    return ::testing::AssertionSuccess();
  });
}

}  // namespace
}  // namespace gustav::test
