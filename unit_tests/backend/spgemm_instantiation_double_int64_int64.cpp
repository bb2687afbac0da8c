// Compiles the SpGEMM kernels for one test configuration.
#include "support/spgemm_under_test_impl.hpp"

namespace gustav::test {
template struct UnderTest<Config<double, std::int64_t, std::int64_t>>;
}  // namespace gustav::test
