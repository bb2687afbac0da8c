// Products on an execution space instance of the caller's own (on CUDA, a
// non-blocking stream): the bins that run side by side on Gustav's streams
// start only after the caller's work queued on the instance before the call,
// and the caller's later work on the instance (here, copying C's values out
// with only the instance fenced) sees them finished. On host backends the
// instance is the default one and the bins run in turn.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <memory>

#include "gustav/host_csr.hpp"
#include "gustav/spgemm.hpp"
#include "support/check_product.hpp"
#include "support/random_csr.hpp"
#include "support/reference_spgemm.hpp"
#include "support/test_configs.hpp"
#include "support/test_space.hpp"

namespace gustav::test {
namespace {

using C = Config<double, int, int>;

/// An instance of TestSpace on a stream of its own (CUDA), else the default.
class OwnInstance {
 public:
  OwnInstance() {
#if defined(GUSTAV_TEST_BACKEND_CUDA)
    if (cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess) stream_ = nullptr;
    if (stream_) space_ = std::make_unique<TestSpace>(stream_);
#endif
    if (!space_) space_ = std::make_unique<TestSpace>();
  }
  ~OwnInstance() {
    space_.reset();  // the instance before its stream
#if defined(GUSTAV_TEST_BACKEND_CUDA)
    if (stream_) cudaStreamDestroy(stream_);
#endif
  }
  const TestSpace& space() const { return *space_; }

 private:
#if defined(GUSTAV_TEST_BACKEND_CUDA)
  cudaStream_t stream_ = nullptr;
#endif
  std::unique_ptr<TestSpace> space_;
};

/// Scales `values` by `factor` on `space`, a few times over so that the
/// kernel is still running when the host goes on (nothing fenced).
template <class Values>
void scale_slowly(const TestSpace& space, const Values& values, double factor) {
  Kokkos::parallel_for(
      "test::scale_slowly", Kokkos::RangePolicy<TestSpace>(space, 0, values.extent(0)), KOKKOS_LAMBDA(const int i) {
        double v = values(i);
        for (int r = 0; r < 64; ++r) v = v * factor / factor;
        values(i) = v * factor;
      });
}

/// C copied to the host, its values through `space` first with only that
/// instance fenced (to_host_csr waits for the whole device).
template <class Matrix>
typename C::host host_copy_via(const TestSpace& space, const Matrix& product) {
  auto values = Kokkos::create_mirror_view(product.values);
  Kokkos::deep_copy(space, values, product.values);
  space.fence();
  auto host = to_host_csr<double, int, int>(product);
  for (std::size_t e = 0; e < host.values.size(); ++e) host.values[e] = values(e);
  return host;
}

TEST(SpgemmStreams, BinsSideBySideFollowTheCallersInstance) {
  const OwnInstance own;
  const TestSpace& space = own.space();
  // Rows of about 40 entries over rows of B of about 8, and one long row:
  // worker, team and long bins all busy.
  RandomShape a_shape;
  a_shape.rows = 6000;
  a_shape.cols = 5000;
  a_shape.avg_per_row = 40;
  a_shape.long_row = 17;
  a_shape.long_row_length = 4000;
  RandomShape b_shape;
  b_shape.rows = 5000;
  b_shape.cols = 7000;
  b_shape.avg_per_row = 8;
  const auto A = random_csr<double, int, int>(a_shape, 120);
  auto B = random_csr<double, int, int>(b_shape, 121);
  const auto dA = to_crs<typename C::matrix>(space, A);
  const auto dB = to_crs<typename C::matrix>(space, B);
  space.fence();
  for (const bool kept : {false, true}) {
    SCOPED_TRACE(kept ? "keeping product positions" : "default numeric phase");
    SpgemmOptions options;
    options.keep_product_positions = kept;
    const auto plan = gustav::symbolic(space, dA, dB, options);
    for (int round = 0; round < 3; ++round) {
      // B's values change on the instance right before each numeric call.
      scale_slowly(space, dB.values, 2.0);
      for (auto& v : B.values) v *= 2.0;
      const auto product = gustav::numeric(space, plan, dA, dB);
      EXPECT_TRUE(matches_reference<double>(host_copy_via(space, product), reference_multiply(A, B), true))
          << "round " << round;
    }
  }
  // One-shot, after another change of B's values.
  scale_slowly(space, dB.values, 0.5);
  for (auto& v : B.values) v *= 0.5;
  const auto product = gustav::multiply(space, dA, dB);
  EXPECT_TRUE(matches_reference<double>(host_copy_via(space, product), reference_multiply(A, B), true));
}

}  // namespace
}  // namespace gustav::test
