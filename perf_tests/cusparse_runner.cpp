#include "cusparse_runner.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "timing.hpp"

namespace gustav::bench {

namespace {

struct CusparseFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw CusparseFailure(std::string(what) + ": " + cusparseGetErrorString(s));
}
void check(cudaError_t s, const char* what) {
  if (s != cudaSuccess) throw CusparseFailure(std::string(what) + ": " + cudaGetErrorString(s));
}

/// Device buffer freed on scope exit; counts towards the peak.
class Buffer {
 public:
  Buffer(std::size_t bytes, std::size_t& live, std::size_t& peak) : bytes_(bytes), live_(live) {
    if (bytes > 0) check(cudaMalloc(&ptr_, bytes), "cudaMalloc(cuSPARSE buffer)");
    live_ += bytes_;
    if (live_ > peak) peak = live_;
  }
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
    live_ -= bytes_;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
  std::size_t& live_;
};

/// C's three arrays, cudaMalloc'd; freed (errors ignored) with the last
/// owner. Kokkos views are not used here: a Kokkos view freed after a device
/// fault throws from its destructor and ends the process.
struct CArrays {
  int* row_map = nullptr;
  int* entries = nullptr;
  double* values = nullptr;
  std::size_t bytes = 0;
  ~CArrays() {
    cudaFree(row_map);
    cudaFree(entries);
    cudaFree(values);
  }
};

std::shared_ptr<CArrays> allocate_c(int rows, std::int64_t nnz) {
  auto c = std::make_shared<CArrays>();
  const std::size_t n = static_cast<std::size_t>(nnz);
  const std::size_t offsets = (static_cast<std::size_t>(rows) + 1) * sizeof(int);
  check(cudaMalloc(reinterpret_cast<void**>(&c->row_map), offsets), "cudaMalloc(C's row offsets)");
  check(cudaMalloc(reinterpret_cast<void**>(&c->entries), std::max<std::size_t>(n, 1) * sizeof(int)),
        "cudaMalloc(C's column indices)");
  check(cudaMalloc(reinterpret_cast<void**>(&c->values), std::max<std::size_t>(n, 1) * sizeof(double)),
        "cudaMalloc(C's values)");
  c->bytes = offsets + n * (sizeof(int) + sizeof(double));
  return c;
}

/// False once a fault (an illegal address, a failed launch) has made the
/// CUDA context unusable; such errors persist through cudaGetLastError.
bool device_usable() {
  cudaGetLastError();
  return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
}

/// cusparseHandle_t released on scope exit.
struct Handle {
  cusparseHandle_t h = nullptr;
  Handle() { check(cusparseCreate(&h), "cusparseCreate"); }
  ~Handle() {
    if (h) cusparseDestroy(h);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

cusparseSpMatDescr_t describe(const CusparseCsr& m) {
  cusparseSpMatDescr_t d;
  check(cusparseCreateCsr(&d, m.rows, m.cols, m.nnz, const_cast<int*>(m.row_map), const_cast<int*>(m.entries),
                          const_cast<double*>(m.values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateCsr");
  return d;
}

struct Phases {
  double symbolic = 0, numeric = 0, reuse = 0;
  std::size_t peak = 0;
};

/// One product with the non-reuse API (timed), then the reuse API's numeric
/// step (timed) on a second descriptor set.
Phases one_product(cusparseHandle_t handle, const CusparseCsr& A, const CusparseCsr& B, cusparseSpGEMMAlg_t alg,
                   CusparseProduct& out, bool keep) {
  Phases ph;
  std::size_t live = 0;
  const double alpha = 1.0, beta = 0.0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMatDescr_t a = describe(A), b = describe(B), c;
  check(cusparseCreateCsr(&c, A.rows, B.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateCsr(C)");
  cusparseSpGEMMDescr_t desc;
  check(cusparseSpGEMM_createDescr(&desc), "cusparseSpGEMM_createDescr");
  struct Cleanup {
    cusparseSpMatDescr_t a, b, c;
    cusparseSpGEMMDescr_t d;
    ~Cleanup() {
      cusparseDestroySpMat(a);
      cusparseDestroySpMat(b);
      cusparseDestroySpMat(c);
      cusparseSpGEMM_destroyDescr(d);
    }
  } cleanup{a, b, c, desc};

  check(cudaDeviceSynchronize(), "sync");
  Stopwatch clock;
  std::size_t size1 = 0, size2 = 0, size3 = 0;
  check(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc, &size1, nullptr),
        "cusparseSpGEMM_workEstimation");
  Buffer buf1(size1, live, ph.peak);
  check(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc, &size1,
                                      buf1.get()),
        "cusparseSpGEMM_workEstimation");
  void* buf3_ptr = nullptr;
  std::unique_ptr<Buffer> buf3;
  if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
    const float chunk = 0.2f;
    check(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc, chunk, &size3,
                                        nullptr, nullptr),
          "cusparseSpGEMM_estimateMemory");
    buf3 = std::make_unique<Buffer>(size3, live, ph.peak);
    buf3_ptr = buf3->get();
    check(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc, chunk, &size3,
                                        buf3_ptr, &size2),
          "cusparseSpGEMM_estimateMemory");
  } else {
    check(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc, &size2, nullptr),
          "cusparseSpGEMM_compute");
  }
  Buffer buf2(size2, live, ph.peak);
  check(cusparseSpGEMM_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc, &size2, buf2.get()),
        "cusparseSpGEMM_compute");
  std::int64_t rows = 0, cols = 0, nnz = 0;
  check(cusparseSpMatGetSize(c, &rows, &cols, &nnz), "cusparseSpMatGetSize");
  check(cudaDeviceSynchronize(), "cusparseSpGEMM_compute (sync)");
  ph.symbolic = clock.lap();
  if (nnz < 0 || nnz > INT_MAX)
    throw CusparseFailure("cusparseSpMatGetSize: nnz(C) = " + std::to_string(nnz) + " does not fit 32-bit indices");
  const auto arrays = allocate_c(A.rows, nnz);
  check(cusparseCsrSetPointers(c, arrays->row_map, arrays->entries, arrays->values), "cusparseCsrSetPointers");
  check(cusparseSpGEMM_copy(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc), "cusparseSpGEMM_copy");
  check(cudaDeviceSynchronize(), "cusparseSpGEMM_copy (sync)");
  ph.numeric = clock.lap();
  if (keep) {
    out.row_map = decltype(out.row_map)(arrays->row_map, static_cast<std::size_t>(A.rows) + 1);
    out.entries = decltype(out.entries)(arrays->entries, static_cast<std::size_t>(nnz));
    out.values = decltype(out.values)(arrays->values, static_cast<std::size_t>(nnz));
    out.storage = arrays;
    out.measurement.nnz_c = nnz;
  }
  return ph;
}

/// Numeric-only time of the reuse API (structure computed once, untimed).
double reuse_numeric(cusparseHandle_t handle, const CusparseCsr& A, const CusparseCsr& B, std::size_t& peak) {
  std::size_t live = 0;
  const double alpha = 1.0, beta = 0.0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  cusparseSpMatDescr_t a = describe(A), b = describe(B), c;
  check(cusparseCreateCsr(&c, A.rows, B.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
        "cusparseCreateCsr(C)");
  cusparseSpGEMMDescr_t desc;
  check(cusparseSpGEMM_createDescr(&desc), "cusparseSpGEMM_createDescr");
  struct Cleanup {
    cusparseSpMatDescr_t a, b, c;
    cusparseSpGEMMDescr_t d;
    ~Cleanup() {
      cusparseDestroySpMat(a);
      cusparseDestroySpMat(b);
      cusparseDestroySpMat(c);
      cusparseSpGEMM_destroyDescr(d);
    }
  } cleanup{a, b, c, desc};
  std::size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
  check(cusparseSpGEMMreuse_workEstimation(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s1, nullptr),
        "cusparseSpGEMMreuse_workEstimation");
  Buffer b1(s1, live, peak);
  check(cusparseSpGEMMreuse_workEstimation(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s1, b1.get()),
        "cusparseSpGEMMreuse_workEstimation");
  check(cusparseSpGEMMreuse_nnz(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s2, nullptr, &s3, nullptr,
                                &s4, nullptr),
        "cusparseSpGEMMreuse_nnz");
  Buffer b2(s2, live, peak), b3(s3, live, peak), b4(s4, live, peak);
  check(cusparseSpGEMMreuse_nnz(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s2, b2.get(), &s3, b3.get(),
                                &s4, b4.get()),
        "cusparseSpGEMMreuse_nnz");
  std::int64_t rows = 0, cols = 0, nnz = 0;
  check(cusparseSpMatGetSize(c, &rows, &cols, &nnz), "cusparseSpMatGetSize");
  if (nnz < 0 || nnz > INT_MAX)
    throw CusparseFailure("cusparseSpMatGetSize: nnz(C) = " + std::to_string(nnz) + " does not fit 32-bit indices");
  const auto arrays = allocate_c(A.rows, nnz);
  check(cusparseCsrSetPointers(c, arrays->row_map, arrays->entries, arrays->values), "cusparseCsrSetPointers");
  check(cusparseSpGEMMreuse_copy(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s5, nullptr),
        "cusparseSpGEMMreuse_copy");
  Buffer b5(s5, live, peak);
  check(cusparseSpGEMMreuse_copy(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s5, b5.get()),
        "cusparseSpGEMMreuse_copy");
  // First numeric call outside the timing (it may set up internal state).
  check(cusparseSpGEMMreuse_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, desc),
        "cusparseSpGEMMreuse_compute");
  check(cudaDeviceSynchronize(), "cusparseSpGEMMreuse_compute (sync)");
  Stopwatch clock;
  check(cusparseSpGEMMreuse_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, desc),
        "cusparseSpGEMMreuse_compute");
  check(cudaDeviceSynchronize(), "sync");
  return clock.lap();
}

}  // namespace

CusparseProduct run_cusparse(const CusparseCsr& A, const CusparseCsr& B, int warmups, int reps) {
  CusparseProduct out;
  Measurement& m = out.measurement;
  m.implementation = "cusparse";
  // What failed, in order; a fault that breaks the context ends the attempts,
  // since every later call would fail with it.
  std::string failures;
  auto record = [&](std::string& into, const std::string& where, const char* what) {
    into += (into.empty() ? "" : "; ") + where + what;
    if (!device_usable()) {
      out.device_lost = true;
      into += "; the CUDA context is no longer usable";
    }
  };
  try {
    Handle handle;
    const cusparseSpGEMMAlg_t algorithms[] = {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_ALG2, CUSPARSE_SPGEMM_ALG3};
    const char* names[] = {"default", "ALG2", "ALG3"};
    for (int k = 0; k < 3 && !m.ran && !out.device_lost; ++k) {
      try {
        m.symbolic.clear();
        m.numeric.clear();
        m.total.clear();
        std::size_t peak = 0;
        for (int r = 0; r < warmups + reps; ++r) {
          const Phases ph = one_product(handle.h, A, B, algorithms[k], out, r == warmups + reps - 1);
          peak = std::max(peak, ph.peak);
          if (r >= warmups) {
            m.symbolic.push_back(ph.symbolic);
            m.numeric.push_back(ph.numeric);
            m.total.push_back(ph.symbolic + ph.numeric);
          }
        }
        m.ran = true;
        m.peak_temp_bytes = peak;
        m.implementation = k == 0 ? "cusparse" : std::string("cusparse/") + names[k];
      } catch (const std::exception& e) {
        record(failures, std::string(names[k]) + ": ", e.what());
      }
    }
    if (m.ran) {
      if (!failures.empty()) m.note = "fell back after " + failures;
      try {
        std::size_t peak = 0;
        for (int r = 0; r < reps; ++r) m.reuse.push_back(reuse_numeric(handle.h, A, B, peak));
      } catch (const std::exception& e) {
        m.reuse.clear();
        record(m.note, "reuse API: ", e.what());
      }
    }
  } catch (const std::exception& e) {  // the handle could not be made
    record(failures, "", e.what());
  }
  if (!m.ran) {
    m.failed = true;
    m.note = failures;
  }
  if (out.device_lost) {
    // The product's arrays are as unusable as the rest of the device.
    m.ran = false;
    m.failed = true;
    out.row_map = {};
    out.entries = {};
    out.values = {};
  }
  return out;
}

}  // namespace gustav::bench
