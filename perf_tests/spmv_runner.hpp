#pragma once
// Times y = alpha * A * x + beta * y on one matrix: gustav::spmv, Kokkos
// Kernels' KokkosSparse::spmv and, in CUDA builds with cuSPARSE
// (GUSTAV_BENCH_CUSPARSE), cuSPARSE's generic cusparseSpMV with its default
// algorithm ("cusparse") and its deterministic CSR algorithm
// ("cusparse/alg2"). Each first runs
// once from the same x and y and is checked against Gustav; then come
// warm-up runs and `reps` fenced, timed runs, summarised by their median as
// GB/s (from the bytes an SpMV must move) and GFLOP/s (2 nnz / time).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "gustav/spmv.hpp"
#include "timing.hpp"

namespace gustav::bench {

/// One implementation's SpMV timings on one matrix.
struct SpmvMeasurement {
  std::string implementation;   ///< "gustav", "kk", "cusparse" or "cusparse/alg2"
  bool ran = false;             ///< false: it refused or failed; see note
  bool checked = false;         ///< its y was compared with Gustav's (false for Gustav, and when Gustav failed)
  bool agrees = false;          ///< its y matches Gustav's (Gustav, when it ran: true)
  std::string note;             ///< why it did not run, why it was not checked, or how it disagreed
  std::vector<double> seconds;  ///< per timed repetition
  double median_seconds = 0;
  double gbytes_per_second = 0;  ///< SpmvComparison::bytes / median
  double gflops = 0;             ///< 2 nnz / median, in 10^9 per second
};

struct SpmvComparison {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double bytes = 0;  ///< the least one SpMV moves: A once, x once, y written (and read when beta != 0)
  double copy_gbytes_per_second = 0;  ///< the space's copy bandwidth in the same run (0: not measured)
  std::vector<SpmvMeasurement> runs;
};

/// Copy y = x for `bytes` bytes of doubles on `space` (Kokkos::deep_copy:
/// the runtime's own copy, cudaMemcpy on GPUs): the median of `reps`
/// fenced runs after one warm-up, as GB/s of bytes read plus bytes
/// written. The ceiling an SpMV's GB/s is measured against.
template <class Space>
double copy_bandwidth(const Space& space, std::size_t bytes, int reps) {
  const std::size_t n = bytes / sizeof(double);
  Kokkos::View<double*, typename Space::memory_space> x("gustav::bench::copy::x", n), y("gustav::bench::copy::y", n);
  std::vector<double> seconds;
  for (int r = 0; r < reps + 1; ++r) {
    space.fence();
    Stopwatch clock;
    Kokkos::deep_copy(space, y, x);
    space.fence();
    const double t = clock.lap();
    if (r > 0) seconds.push_back(t);
  }
  return 2.0 * static_cast<double>(n * sizeof(double)) / median(seconds) * 1e-9;
}

/// The bytes an SpMV must move at least.
double spmv_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::size_t offset_bytes,
                  std::size_t ordinal_bytes, std::size_t scalar_bytes, bool reads_y);

/// Sets m's median, GB/s and GFLOP/s from its seconds.
void summarise(SpmvMeasurement& m, double bytes, std::int64_t nnz);

/// A size line, then one line per implementation: median time, GB/s,
/// GFLOP/s and agreement with Gustav (or why it did not run).
std::string describe(const SpmvComparison& c);

/// "" when y agrees with reference to a relative tolerance (relative to the
/// largest |reference(i)|), else the first difference.
std::string compare_vectors(const std::vector<double>& reference, const std::vector<double>& y, double rtol);

#if defined(GUSTAV_BENCH_CUSPARSE)
/// Device arrays for cusparseSpMV: double values, indices of one width
/// (cuSPARSE's CSR takes 32-bit or 64-bit offsets and columns alike).
struct CusparseSpmvInput {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  bool indices64 = false;
  const void* row_map = nullptr;
  const void* entries = nullptr;
  const double* values = nullptr;
  const double* x = nullptr;
  const double* y_initial = nullptr;  ///< rows entries, copied before the first run
  double* y_first = nullptr;          ///< receives y after the first run
  double alpha = 1, beta = 0;
  /// CUSPARSE_SPMV_CSR_ALG2, whose sums are the same bits on every run (as
  /// gustav::spmv's are), instead of the default algorithm.
  bool deterministic = false;
};

/// The first run into in.y_first, then warm-ups and timed runs. Never
/// throws: failures land in the note.
SpmvMeasurement run_cusparse_spmv(const CusparseSpmvInput& in, int warmups, int reps);
#endif

namespace detail_spmv {

/// Records how m's first y compares with Gustav's (`reference`, empty when
/// Gustav did not run).
inline void check_against(SpmvMeasurement& m, bool reference_ran, const std::vector<double>& reference,
                          const std::vector<double>& y, double rtol) {
  if (!m.ran) return;
  if (!reference_ran) {
    m.note = "not checked: gustav did not run";
    return;
  }
  m.checked = true;
  m.note = compare_vectors(reference, y, rtol);
  m.agrees = m.note.empty();
}

/// A vector's entries as doubles (complex entries as real, imaginary pairs).
template <class View>
std::vector<double> to_doubles(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out;
  out.reserve(h.extent(0));
  for (std::size_t i = 0; i < h.extent(0); ++i) {
    if constexpr (std::is_arithmetic_v<typename View::value_type>) {
      out.push_back(static_cast<double>(h(i)));
    } else {
      out.push_back(static_cast<double>(h(i).real()));
      out.push_back(static_cast<double>(h(i).imag()));
    }
  }
  return out;
}

/// Runs warm-ups and `reps` runs fenced with `fence`, recording each run's
/// seconds, then `call` once more from y0 (the result lands in y_check): the
/// y checked is the one a call makes after many on the same matrix, as the
/// timed ones were (gustav::spmv remembers what its last call on a matrix
/// listed).
template <class Vector, class Call, class Fence>
void time_runs(SpmvMeasurement& m, const Vector& y, const Vector& y0, std::vector<double>& y_check, int warmups,
               int reps, const Call& call, const Fence& fence) {
  Kokkos::deep_copy(y, y0);
  for (int r = 0; r < warmups + reps; ++r) {
    fence();
    Stopwatch clock;
    call();
    fence();
    const double t = clock.lap();
    if (r >= warmups) m.seconds.push_back(t);
  }
  Kokkos::deep_copy(y, y0);
  fence();
  call();
  fence();
  y_check = to_doubles(y);
  m.ran = true;
}

}  // namespace detail_spmv

/// Times Gustav, Kokkos Kernels and (where built) cuSPARSE on A with the
/// same x and y. Each implementation's failure is recorded, never thrown.
template <class Space, class Matrix>
SpmvComparison compare_spmv(const Space& space, const Matrix& A, typename Matrix::value_type alpha,
                            typename Matrix::value_type beta, int warmups, int reps, double rtol = 1e-10) {
  using Scalar = typename Matrix::value_type;
  using Vector = Kokkos::View<Scalar*, typename Matrix::device_type>;
  SpmvComparison c;
  c.rows = A.numRows();
  c.cols = A.numCols();
  c.nnz = A.nnz();
  c.bytes = spmv_bytes(c.rows, c.cols, c.nnz, sizeof(typename Matrix::size_type), sizeof(typename Matrix::ordinal_type),
                       sizeof(Scalar), !(beta == Scalar(0)));

  // x and y with values of order one that differ from row to row.
  Vector x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::bench::spmv::x"), c.cols);
  Vector y0(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::bench::spmv::y0"), c.rows);
  Vector y(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::bench::spmv::y"), c.rows);
  {
    auto hx = Kokkos::create_mirror_view(x);
    auto hy = Kokkos::create_mirror_view(y0);
    for (std::int64_t j = 0; j < c.cols; ++j) hx(j) = Scalar(1.0 + static_cast<double>(j % 17) / 16.0);
    for (std::int64_t i = 0; i < c.rows; ++i) hy(i) = Scalar(0.5 - static_cast<double>(i % 13) / 12.0);
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y0, hy);
  }

  std::vector<double> reference;
  bool reference_ran = false;
  {
    SpmvMeasurement m;
    m.implementation = "gustav";
    try {
      detail_spmv::time_runs(
          m, y, y0, reference, warmups, reps, [&]() { gustav::spmv(space, alpha, A, x, beta, y); },
          [&]() { space.fence(); });
      m.agrees = true;
      reference_ran = true;
    } catch (const std::exception& e) {
      m.note = e.what();
    }
    c.runs.push_back(m);
  }

  {
    // Kokkos Kernels 3.4 runs on the matrix's default execution space
    // instance: fence everything.
    SpmvMeasurement m;
    m.implementation = "kk";
    std::vector<double> got;
    try {
      detail_spmv::time_runs(
          m, y, y0, got, warmups, reps, [&]() { KokkosSparse::spmv("N", alpha, A, x, beta, y); },
          []() { Kokkos::fence(); });
      detail_spmv::check_against(m, reference_ran, reference, got, rtol);
    } catch (const std::exception& e) {
      m.note = e.what();
    }
    c.runs.push_back(m);
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(GUSTAV_BENCH_CUSPARSE)
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>) {
    using Offset = typename Matrix::size_type;
    using Ordinal = typename Matrix::ordinal_type;
    // The default algorithm, and the deterministic one: the fair peer of
    // gustav::spmv, whose sums do not change from run to run.
    for (const bool deterministic : {false, true}) {
      SpmvMeasurement m;
      const char* name = deterministic ? "cusparse/alg2" : "cusparse";
      if constexpr (std::is_same_v<Scalar, double> && sizeof(Offset) == sizeof(Ordinal)) {
        Vector y_first(Kokkos::view_alloc(Kokkos::WithoutInitializing, "gustav::bench::spmv::y_cusparse"), c.rows);
        CusparseSpmvInput in;
        in.rows = c.rows;
        in.cols = c.cols;
        in.nnz = c.nnz;
        in.indices64 = sizeof(Ordinal) == 8;
        in.row_map = A.graph.row_map.data();
        in.entries = A.graph.entries.data();
        in.values = A.values.data();
        in.x = x.data();
        in.y_initial = y0.data();
        in.y_first = y_first.data();
        in.alpha = alpha;
        in.beta = beta;
        in.deterministic = deterministic;
        space.fence();
        m = run_cusparse_spmv(in, warmups, reps);
        if (m.ran) detail_spmv::check_against(m, reference_ran, reference, detail_spmv::to_doubles(y_first), rtol);
      } else {
        m.note = "cuSPARSE SpMV is compared on double values with offsets and columns of one width";
      }
      m.implementation = name;
      c.runs.push_back(m);
    }
  }
#endif

  for (auto& m : c.runs) summarise(m, c.bytes, c.nnz);
  return c;
}

}  // namespace gustav::bench
