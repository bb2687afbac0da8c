// SpgemmOptions::memory_budget_bytes: within a budget the product still
// completes (pools shrink, fewer teams take the rows in turn) and the
// temporaries stay inside it; a budget too small to work in is refused with
// gustav::allocation_error, and the library works afterwards.
#include <string>
#include <vector>

#include "support/spgemm_fixture.hpp"

namespace gustav::test {
namespace {

template <class C>
class MemoryBudget : public SpgemmTest<C> {
 protected:
  using typename SpgemmTest<C>::Host;
  using Run = typename SpgemmTest<C>::Run;
  using S = typename SpgemmTest<C>::S;
  using O = typename SpgemmTest<C>::O;
  using Z = typename SpgemmTest<C>::Z;

  /// A: rows of ~24 entries and one row over every column of B's rows;
  /// B: wide and fairly dense, so rows spill past level 1 and the long row
  /// takes the pool.
  void make_operands(Host& A, Host& B) {
    RandomShape a;
    a.long_row = 7;
    a.long_row_length = 1500;
    A = this->random(600, 1500, 12, 811, a);
    B = this->random(1500, 20000, 40, 812);
  }

  /// Halves the budget from the unbounded peak until it is refused; every
  /// product on the way must be right and within its budget.
  void shrink_until_refused(const SpgemmOptions& base) {
    Host A, B;
    make_operands(A, B);
    const auto dA = this->device(A), dB = this->device(B);
    const auto expected = reference_multiply(A, B);
    const auto unbounded = Run::symbolic(dA, dB, base);
    Run::numeric(unbounded, dA, dB);
    std::size_t budget = std::max(unbounded.stats().symbolic_peak_temp_bytes,
                                  unbounded.stats().numeric_peak_temp_bytes);
    ASSERT_GT(budget, 0u);
    int completed = 0;
    std::string refusal;
    for (int step = 0; step < 40 && refusal.empty(); ++step) {
      SpgemmOptions options = base;
      options.memory_budget_bytes = budget;
      try {
        const auto plan = Run::symbolic(dA, dB, options);
        const auto product = Run::numeric(plan, dA, dB);
        this->space.fence();
        EXPECT_LE(plan.stats().symbolic_peak_temp_bytes, budget) << "symbolic over budget";
        EXPECT_LE(plan.stats().numeric_peak_temp_bytes, budget) << "numeric over budget";
        EXPECT_TRUE(matches_reference<S>(
            to_host_csr<S, O, Z>(product), expected,
            true))
            << "budget " << budget;
        ++completed;
      } catch (const gustav::allocation_error& e) {
        refusal = e.what();
      }
      budget = budget * 3 / 4;
    }
    EXPECT_GE(completed, 1) << "the unbounded peak itself must be a workable budget";
    EXPECT_NE(refusal.find("memory budget"), std::string::npos) << "refusal: " << refusal;
    // The library is usable after the refusal.
    EXPECT_TRUE(this->multiply_matches(A, B, base));
  }
};
TYPED_TEST_SUITE(MemoryBudget, AllConfigs, ConfigNames);

TYPED_TEST(MemoryBudget, ShrinkingBudgetStaysRightUntilRefused) { this->shrink_until_refused({}); }

TYPED_TEST(MemoryBudget, ShrinkingBudgetWithHashAccumulator) {
  SpgemmOptions o;
  o.accumulator = Accumulator::hash;
  this->shrink_until_refused(o);
}

TYPED_TEST(MemoryBudget, ShrinkingBudgetWithHierarchicalMapping) {
  SpgemmOptions o;
  o.cpu_mapping = CpuMapping::hierarchical;
  this->shrink_until_refused(o);
}

TYPED_TEST(MemoryBudget, BudgetBelowThePoolKeepsTheResult) {
  // A budget below the unbounded path's temporaries (so its pool cannot be
  // made as before) still gives the right C whenever it is accepted.
  typename TestFixture::Host A, B;
  this->make_operands(A, B);
  const auto plan = TestFixture::Run::symbolic(this->device(A), this->device(B));
  const std::size_t pool = plan.stats().symbolic_pool_bytes;
  const std::size_t peak = plan.stats().symbolic_peak_temp_bytes;
  if (pool == 0) GTEST_SKIP() << "this backend's default path uses no pool on these operands";
  SpgemmOptions o;
  o.memory_budget_bytes = peak - pool / 2;
  try {
    EXPECT_TRUE(this->multiply_matches(A, B, o));
  } catch (const gustav::allocation_error& e) {
    // Only acceptable when half the pool is less than one chunk.
    EXPECT_NE(std::string(e.what()).find("memory budget"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gustav::test
