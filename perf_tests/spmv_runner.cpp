#include "spmv_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#if defined(GUSTAV_BENCH_CUSPARSE)
#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdexcept>
#endif

namespace gustav::bench {

double spmv_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::size_t offset_bytes,
                  std::size_t ordinal_bytes, std::size_t scalar_bytes, bool reads_y) {
  const double matrix = static_cast<double>(rows + 1) * offset_bytes +
                        static_cast<double>(nnz) * static_cast<double>(ordinal_bytes + scalar_bytes);
  const double vectors = static_cast<double>(cols) * scalar_bytes + static_cast<double>(rows) * scalar_bytes * (reads_y ? 2 : 1);
  return matrix + vectors;
}

void summarise(SpmvMeasurement& m, double bytes, std::int64_t nnz) {
  m.median_seconds = median(m.seconds);
  if (m.median_seconds <= 0) return;
  m.gbytes_per_second = bytes / m.median_seconds * 1e-9;
  m.gflops = 2.0 * static_cast<double>(nnz) / m.median_seconds * 1e-9;
}

std::string describe(const SpmvComparison& c) {
  std::ostringstream s;
  char line[160];
  std::snprintf(line, sizeof line, "  %lld x %lld, nnz %lld, %.3g MB moved per SpMV\n", (long long)c.rows,
                (long long)c.cols, (long long)c.nnz, c.bytes * 1e-6);
  s << line;
  std::snprintf(line, sizeof line, "  %-14s %12s %9s %7s %9s  %s\n", "implementation", "median ms", "GB/s", "% copy",
                "GFLOP/s", "check");
  s << line;
  for (const auto& m : c.runs) {
    if (!m.ran) {
      s << "  " << std::left << std::setw(14) << m.implementation << " did not run: " << m.note << "\n";
      continue;
    }
    // Gustav is the reference; a peer agrees, DISAGREES, or could not be checked.
    std::string check;
    if (m.implementation == "gustav") check = "reference";
    else if (!m.checked) check = m.note;
    else if (m.agrees) check = "agrees";
    else check = "DISAGREES: " + m.note;
    const double of_copy = c.copy_gbytes_per_second > 0 ? 100.0 * m.gbytes_per_second / c.copy_gbytes_per_second : 0.0;
    std::snprintf(line, sizeof line, "  %-14s %12.4f %9.2f %7.1f %9.3f  ", m.implementation.c_str(),
                  m.median_seconds * 1e3, m.gbytes_per_second, of_copy, m.gflops);
    s << line << check << "\n";
  }
  return s.str();
}

std::string compare_vectors(const std::vector<double>& reference, const std::vector<double>& y, double rtol) {
  std::ostringstream why;
  if (reference.size() != y.size()) {
    why << "y has " << y.size() << " entries instead of " << reference.size();
    return why.str();
  }
  double scale = 0;
  for (double v : reference) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!(std::abs(y[i] - reference[i]) <= rtol * std::max(scale, 1e-300))) {
      why << "y(" << i << ") = " << std::setprecision(17) << y[i] << " instead of " << reference[i];
      return why.str();
    }
  }
  return "";
}

#if defined(GUSTAV_BENCH_CUSPARSE)
namespace {

struct CusparseFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw CusparseFailure(std::string(what) + ": " + cusparseGetErrorString(s));
}
void check(cudaError_t s, const char* what) {
  if (s != cudaSuccess) throw CusparseFailure(std::string(what) + ": " + cudaGetErrorString(s));
}

/// Handle, descriptors and buffers of one SpMV, released on scope exit
/// (set up outside the constructor, so that a failure half-way releases too).
class CusparseSpmv {
 public:
  explicit CusparseSpmv(const CusparseSpmvInput& in) : in_(in) {}

  void set_up() {
    const CusparseSpmvInput& in = in_;
    check(cusparseCreate(&handle_), "cusparseCreate");
    const auto index = in.indices64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    check(cusparseCreateCsr(&a_, in.rows, in.cols, in.nnz, const_cast<void*>(in.row_map),
                            const_cast<void*>(in.entries), const_cast<double*>(in.values), index, index,
                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
          "cusparseCreateCsr");
    check(cudaMalloc(reinterpret_cast<void**>(&y_), sizeof(double) * std::max<std::int64_t>(in.rows, 1)),
          "cudaMalloc(y)");
    check(cusparseCreateDnVec(&x_desc_, in.cols, const_cast<double*>(in.x), CUDA_R_64F), "cusparseCreateDnVec(x)");
    check(cusparseCreateDnVec(&y_desc_, in.rows, y_, CUDA_R_64F), "cusparseCreateDnVec(y)");
    std::size_t bytes = 0;
    check(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &in.alpha, a_, x_desc_, &in.beta,
                                  y_desc_, CUDA_R_64F, algorithm(), &bytes),
          "cusparseSpMV_bufferSize");
    if (bytes > 0) check(cudaMalloc(&buffer_, bytes), "cudaMalloc(SpMV buffer)");
    check(cudaMemcpy(y_, in.y_initial, sizeof(double) * in.rows, cudaMemcpyDeviceToDevice), "cudaMemcpy(y)");
  }
  ~CusparseSpmv() {
    if (y_desc_) cusparseDestroyDnVec(y_desc_);
    if (x_desc_) cusparseDestroyDnVec(x_desc_);
    if (a_) cusparseDestroySpMat(a_);
    if (handle_) cusparseDestroy(handle_);
    if (buffer_) cudaFree(buffer_);
    if (y_) cudaFree(y_);
  }
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;

  void run() {
    check(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &in_.alpha, a_, x_desc_, &in_.beta, y_desc_,
                       CUDA_R_64F, algorithm(), buffer_),
          "cusparseSpMV");
  }
  void sync() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
  void copy_y(double* to) {
    check(cudaMemcpy(to, y_, sizeof(double) * in_.rows, cudaMemcpyDeviceToDevice), "cudaMemcpy(y)");
  }

 private:
  cusparseSpMVAlg_t algorithm() const { return in_.deterministic ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_ALG_DEFAULT; }

  CusparseSpmvInput in_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t a_ = nullptr;
  cusparseDnVecDescr_t x_desc_ = nullptr, y_desc_ = nullptr;
  double* y_ = nullptr;
  void* buffer_ = nullptr;
};

}  // namespace

SpmvMeasurement run_cusparse_spmv(const CusparseSpmvInput& in, int warmups, int reps) {
  SpmvMeasurement m;
  m.implementation = "cusparse";
  try {
    CusparseSpmv spmv(in);
    spmv.set_up();
    spmv.sync();
    spmv.run();
    spmv.sync();
    spmv.copy_y(in.y_first);
    for (int r = 0; r < warmups + reps; ++r) {
      spmv.sync();
      Stopwatch clock;
      spmv.run();
      spmv.sync();
      const double t = clock.lap();
      if (r >= warmups) m.seconds.push_back(t);
    }
    m.ran = true;
  } catch (const CusparseFailure& e) {
    cudaGetLastError();
    m.note = e.what();
  }
  return m;
}
#endif

}  // namespace gustav::bench
