#include "cusparse_runner.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

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
  check(cudaDeviceSynchronize(), "sync");
  ph.symbolic = clock.lap();
  Kokkos::View<int*, Kokkos::CudaSpace> row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, "cusparse::C::row_map"),
                                                A.rows + 1);
  Kokkos::View<int*, Kokkos::CudaSpace> entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, "cusparse::C::entries"),
                                                nnz);
  Kokkos::View<double*, Kokkos::CudaSpace> values(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "cusparse::C::values"), nnz);
  check(cusparseCsrSetPointers(c, row_map.data(), entries.data(), values.data()), "cusparseCsrSetPointers");
  check(cusparseSpGEMM_copy(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, alg, desc), "cusparseSpGEMM_copy");
  check(cudaDeviceSynchronize(), "sync");
  ph.numeric = clock.lap();
  if (keep) {
    out.row_map = row_map;
    out.entries = entries;
    out.values = values;
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
  Kokkos::View<int*, Kokkos::CudaSpace> row_map("cusparse::reuse::row_map", A.rows + 1), entries("cusparse::reuse::entries", nnz);
  Kokkos::View<double*, Kokkos::CudaSpace> values("cusparse::reuse::values", nnz);
  check(cusparseCsrSetPointers(c, row_map.data(), entries.data(), values.data()), "cusparseCsrSetPointers");
  check(cusparseSpGEMMreuse_copy(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s5, nullptr),
        "cusparseSpGEMMreuse_copy");
  Buffer b5(s5, live, peak);
  check(cusparseSpGEMMreuse_copy(handle, op, op, a, b, c, CUSPARSE_SPGEMM_DEFAULT, desc, &s5, b5.get()),
        "cusparseSpGEMMreuse_copy");
  // First numeric call outside the timing (it may set up internal state).
  check(cusparseSpGEMMreuse_compute(handle, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, desc),
        "cusparseSpGEMMreuse_compute");
  check(cudaDeviceSynchronize(), "sync");
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
  cusparseHandle_t handle = nullptr;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) {
    m.note = "cusparseCreate failed";
    return out;
  }
  const cusparseSpGEMMAlg_t algorithms[] = {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_ALG2, CUSPARSE_SPGEMM_ALG3};
  const char* names[] = {"default", "ALG2", "ALG3"};
  std::string refusals;
  for (int k = 0; k < 3 && !m.ran; ++k) {
    try {
      m.symbolic.clear();
      m.numeric.clear();
      m.total.clear();
      std::size_t peak = 0;
      for (int r = 0; r < warmups + reps; ++r) {
        const Phases ph = one_product(handle, A, B, algorithms[k], out, r == warmups + reps - 1);
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
    } catch (const CusparseFailure& e) {
      cudaGetLastError();
      refusals += std::string(refusals.empty() ? "" : "; ") + names[k] + ": " + e.what();
    }
  }
  if (!m.ran) {
    m.note = refusals;
  } else {
    if (!refusals.empty()) m.note = "fell back after " + refusals;
    try {
      std::size_t peak = 0;
      for (int r = 0; r < reps; ++r) m.reuse.push_back(reuse_numeric(handle, A, B, peak));
    } catch (const CusparseFailure& e) {
      cudaGetLastError();
      m.note += std::string(m.note.empty() ? "" : "; ") + "reuse API: " + e.what();
    }
  }
  cusparseDestroy(handle);
  return out;
}

}  // namespace gustav::bench
