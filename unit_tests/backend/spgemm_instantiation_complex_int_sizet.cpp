// Compiles the SpGEMM kernels for one test configuration.
#include "support/spgemm_under_test_impl.hpp"

namespace gustav::test {
template struct UnderTest<Config<Kokkos::complex<double>, int, std::size_t>>;
}  // namespace gustav::test
