#include "bench_suite.hpp"

#include <Kokkos_Core.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ctime>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include "bench_report.hpp"
#include "compare_products.hpp"
#include "gustav/errors.hpp"
#include "gustav/generators.hpp"
#include "gustav/info.hpp"
#include "gustav/memory.hpp"
#include "gustav_runner.hpp"
#include "kokkos_kernels_runner.hpp"
#include "memory_watch.hpp"
#include "operand_loading.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(GUSTAV_BENCH_CUSPARSE)
#include "cusparse_limits.hpp"
#include "cusparse_runner.hpp"
#endif

namespace gustav::bench {

namespace {

bool wants(const BenchConfig& c, const std::string& name) {
  for (const auto& i : c.implementations)
    if (i == name) return true;
  return false;
}

template <class Matrix>
std::size_t matrix_bytes(const Matrix& C) {
  return C.graph.row_map.span() * sizeof(typename Matrix::size_type) +
         C.graph.entries.span() * sizeof(typename Matrix::ordinal_type) +
         C.values.span() * sizeof(typename Matrix::value_type);
}

/// Peak temporaries of one product: everything allocated during `product`
/// (which returns C) minus C itself.
template <class F>
std::size_t peak_temporaries(F&& product) {
  MemoryWatch watch;
  std::size_t c_bytes = 0;
  {
    const auto C = product();
    c_bytes = matrix_bytes(C);
  }
  return watch.peak() > c_bytes ? watch.peak() - c_bytes : 0;
}

template <class Space>
constexpr bool is_cuda() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<Space, Kokkos::Cuda>;
#else
  return false;
#endif
}

void progress(const BenchConfig& c, const std::string& what) {
  if (c.progress) std::fprintf(stderr, "  ... %s\n", what.c_str());
}

/// Called when a fault has left the device unusable, with the product so far;
/// does not return.
using DeviceLost = std::function<void(const ProductResult&)>;

#if defined(KOKKOS_ENABLE_CUDA) && defined(GUSTAV_BENCH_CUSPARSE)
/// cuSPARSE's SpGEMM on A·B (32-bit offsets), checked against Gustav's C and
/// added to `result`; a product beyond cuSPARSE's limits is skipped with the
/// reason.
template <class Matrix>
void add_cusparse(const Matrix& A, const Matrix& B, const Matrix& gustav_C, std::int64_t inner,
                  const BenchConfig& config, const DeviceLost& device_lost, ProductResult& result) {
  const std::string refusal = cusparse_refusal(
      {result.rows, inner, result.cols, result.nnz_a, result.nnz_b, result.nnz_c, result.products});
  if (!refusal.empty()) {
    Measurement m;
    m.implementation = "cusparse";
    m.note = refusal;
    result.measurements.push_back(m);
    return;
  }
  auto csr = [](const Matrix& M) {
    return CusparseCsr{M.numRows(), M.numCols(), static_cast<long long>(M.nnz()), M.graph.row_map.data(),
                       M.graph.entries.data(), M.values.data()};
  };
  auto run = run_cusparse(csr(A), csr(B), config.warmups, config.reps);
  if (run.device_lost) {
    result.measurements.push_back(run.measurement);
    device_lost(result);  // does not return: no Kokkos view may be freed now
  }
  if (run.measurement.ran) {
    const Matrix C("cusparse::C", A.numRows(), B.numCols(), static_cast<int>(run.values.extent(0)), run.values,
                   run.row_map, run.entries);
    const std::string diff = compare_products(gustav_C, C);
    run.measurement.agrees = diff.empty();
    if (!diff.empty()) run.measurement.note += (run.measurement.note.empty() ? "" : "; ") + diff;
  }
  result.measurements.push_back(run.measurement);
}
#endif

template <class Space, class Offset>
ProductResult bench_product(const Space& space, const Operands& ops, const BenchConfig& config,
                            [[maybe_unused]] const DeviceLost& device_lost) {
  using Matrix = DeviceMatrix<Space, Offset>;
  ProductResult result;
  result.name = ops.name;
  result.rows = ops.A.num_rows;
  result.cols = ops.B.num_cols;
  result.nnz_a = ops.A.nnz();
  result.nnz_b = ops.B.nnz();
  const Matrix A = to_crs<Matrix>(space, ops.A, "bench::A");
  const Matrix B = to_crs<Matrix>(space, ops.B, "bench::B");

  progress(config, "gustav");
  auto reference = run_gustav(space, A, B, SpgemmOptions{}, "gustav", config.warmups, config.reps);
  // Kept device blocks (gustav/memory.hpp) would hide the temporaries from
  // the allocation hooks: the measured call starts without any (freed
  // before the watch starts, whose count their frees would take below zero).
  gustav::release_cached_memory();
  reference.measurement.peak_temp_bytes = peak_temporaries([&] { return multiply_once(space, A, B, SpgemmOptions{}); });
  result.stats = reference.stats;
  result.products = reference.stats.products;
  result.nnz_c = reference.stats.nnz;
  result.measurements.push_back(reference.measurement);

  // Gustav's other strategies, each checked against its default.
  std::vector<std::pair<std::string, SpgemmOptions>> variants;
  {
    SpgemmOptions o;
    o.compression = Compression::never;
    variants.emplace_back("gustav/uncompressed", o);
    // The colouring numeric phases (seed 002's KKMCR and KKMCW), on every space.
    SpgemmOptions mcr, mcw;
    mcr.accumulator = Accumulator::mcr;
    mcw.accumulator = Accumulator::mcw;
    variants.emplace_back("gustav/mcr", mcr);
    variants.emplace_back("gustav/mcw", mcw);
  }
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::HostSpace>) {
    SpgemmOptions hash, dense, hier;
    hash.accumulator = Accumulator::hash;
    dense.accumulator = Accumulator::dense;
    hier.cpu_mapping = CpuMapping::hierarchical;
    variants.emplace_back("gustav/hash", hash);
    variants.emplace_back("gustav/dense", dense);
    variants.emplace_back("gustav/hierarchical", hier);
  } else {
    // Numeric repeats from kept product positions (the hierarchical
    // mapping's opt-in); also selectable alone as gustav-positions.
    SpgemmOptions positions;
    positions.keep_product_positions = true;
    positions.kept_layout = config.kept_layout;
    variants.emplace_back("gustav/positions", positions);
    // The numeric phase from the entries' masks (the opt-in
    // keep_entry_masks); also selectable alone as gustav-masks.
    SpgemmOptions masks;
    masks.keep_entry_masks = true;
    variants.emplace_back("gustav/masks", masks);
    // The repeats of the hash bins' rows from the positions a plan learns
    // (the opt-in learn_product_positions); also selectable alone as
    // gustav-learned-positions.
    SpgemmOptions learned;
    learned.learn_product_positions = true;
    variants.emplace_back("gustav/learned-positions", learned);
    // Host and device together (seed 001's HH-CPU), thresholds chosen.
    SpgemmOptions hybrid;
    hybrid.co_execution = CoExecution::always;
    variants.emplace_back("gustav/hybrid", hybrid);
  }
  for (const auto& [name, options] : variants) {
    if (wants(config, "gustav-variants") || (name == "gustav/positions" && wants(config, "gustav-positions")) ||
        (name == "gustav/masks" && wants(config, "gustav-masks")) ||
        (name == "gustav/learned-positions" && wants(config, "gustav-learned-positions")) ||
        (name == "gustav/hybrid" && wants(config, "gustav-hybrid"))) {
      progress(config, name);
      try {
        auto run = run_gustav(space, A, B, options, name, config.warmups, config.reps);
        const std::string diff = compare_products(reference.C, run.C);
        run.measurement.agrees = diff.empty();
        run.measurement.note = diff;
        if (diff.empty() && !run.stats.positions_layout.empty())
          run.measurement.note = "kept in " + run.stats.positions_layout;
        run.measurement.peak_temp_bytes = std::max(run.stats.symbolic_peak_temp_bytes, run.stats.numeric_peak_temp_bytes);
        result.measurements.push_back(run.measurement);
      } catch (const std::exception& e) {
        Measurement m;
        m.implementation = name;
        m.failed = true;
        m.note = e.what();
        result.measurements.push_back(m);
      }
    }
  }

#if defined(KOKKOS_ENABLE_CUDA) && defined(GUSTAV_BENCH_CUSPARSE)
  if constexpr (is_cuda<Space>()) {
    if (wants(config, "cusparse")) {
      progress(config, "cusparse");
      // cuSPARSE's arrays are 32-bit: the peer is not even instantiated for
      // products that run on 64-bit offsets.
      if constexpr (std::is_same_v<Offset, int>) {
        add_cusparse(A, B, reference.C, ops.A.num_cols, config, device_lost, result);
      } else {
        Measurement m;
        m.implementation = "cusparse";
        m.note = "the product runs on 64-bit offsets, which cuSPARSE's SpGEMM does not take";
        result.measurements.push_back(m);
      }
    }
  }
#endif

  if (wants(config, "kk")) {
    // SPGEMM_KK is what Kokkos Kernels marks as its default and what a
    // default handle runs on GPUs (4.x): it picks KKMEM's hash or KKSPEED's
    // dense accumulator per product. A default handle on host spaces runs
    // the serial debug algorithm, which is no peer.
    const std::pair<KokkosSparse::SPGEMMAlgorithm, const char*> kk[] = {
        {KokkosSparse::SPGEMM_KK, "kk/kk"},
        {KokkosSparse::SPGEMM_KK_MEMORY, "kk/kkmem"},
        {KokkosSparse::SPGEMM_KK_SPEED, "kk/kkspeed"}};
    for (const auto& kk_variant : kk) {
      // Named copies: lambdas may not capture structured bindings in C++17.
      const KokkosSparse::SPGEMMAlgorithm algorithm = kk_variant.first;
      const char* const name = kk_variant.second;
      progress(config, name);
      auto run = run_kokkos_kernels(space, A, B, algorithm, name, config.warmups, config.reps);
      // Kokkos Kernels 3.4.1's SpGEMM is known to be wrong on CUDA: its
      // results are checked and reported, never trusted.
      run.measurement.trusted = !is_cuda<Space>();
      if (run.measurement.ran) {
        const std::string diff = compare_products(reference.C, run.C);
        run.measurement.agrees = diff.empty();
        if (!diff.empty()) run.measurement.note = diff;
        run.C = Matrix();
        run.measurement.peak_temp_bytes = peak_temporaries([&] {
          return run_kokkos_kernels(space, A, B, algorithm, name, 0, 1).C;
        });
      }
      result.measurements.push_back(run.measurement);
    }
  }
  return result;
}

std::int64_t product_bound(const HostMatrix& A, const HostMatrix& B) {
  std::int64_t n = 0;
  for (auto k : A.entries) n += B.row_map[k + 1] - B.row_map[k];
  return n;
}

template <class Space>
ProductResult bench_on(const Space& space, const Operands& ops, const BenchConfig& config,
                       const DeviceLost& device_lost) {
  const bool fits32 = product_bound(ops.A, ops.B) < std::numeric_limits<int>::max() &&
                      ops.A.nnz() < std::numeric_limits<int>::max() && ops.B.nnz() < std::numeric_limits<int>::max();
  return fits32 ? bench_product<Space, int>(space, ops, config, device_lost)
                : bench_product<Space, std::int64_t>(space, ops, config, device_lost);
}

}  // namespace

int run_bench(const BenchConfig& config) {
  Report report;
  report.machine = describe_machine(config.space);
  std::printf("gustav bench: %s on %s, %d host threads, Kokkos %s, %s\n", config.space.c_str(),
              report.machine.device.c_str(), report.machine.threads, report.machine.kokkos_version.c_str(),
              report.machine.date.c_str());
  int problems = 0;
  for (std::size_t i = 0; i < config.items.size(); ++i) {
    const auto& item = config.items[i];
    if (config.progress) std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, config.items.size(), item.c_str());
    // After a device fault nothing on the device can run or even be freed
    // (Kokkos throws from the destructor of every device view), so the run
    // ends here, saying what ran and what did not, without unwinding.
    const DeviceLost device_lost = [&](const ProductResult& so_far) {
      print_product(so_far);
      report.products.push_back(so_far);
      for (std::size_t j = i + 1; j < config.items.size(); ++j) {
        ProductResult skipped;
        skipped.name = config.items[j];
        skipped.error = "not run: the device failed on an earlier product";
        report.products.push_back(skipped);
      }
      if (!config.json_path.empty()) write_json(report, config.json_path);
      std::fprintf(stderr,
                   "gustav bench: a device fault during %s left the GPU unusable for this process; %zu product(s) "
                   "not run%s\n",
                   so_far.name.c_str(), config.items.size() - i - 1,
                   config.json_path.empty() ? "" : (", results so far in " + config.json_path).c_str());
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(1);
    };
    ProductResult r;
    try {
      const Operands ops = load_bench_operands(item);
      if (ops.A.num_rows > std::numeric_limits<int>::max() || ops.B.num_cols > std::numeric_limits<int>::max())
        throw invalid_input("dimensions beyond 2^31 - 1");
#if defined(KOKKOS_ENABLE_CUDA)
      if (config.space == "cuda" || config.space == "hybrid") r = bench_on(Kokkos::Cuda(), ops, config, device_lost);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
      if (config.space == "openmp") r = bench_on(Kokkos::OpenMP(), ops, config, device_lost);
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
      if (config.space == "serial") r = bench_on(Kokkos::Serial(), ops, config, device_lost);
#endif
    } catch (const std::exception& e) {
      r.name = item;
      r.error = e.what();
    }
    if (!r.error.empty()) ++problems;
    for (const auto& m : r.measurements)
      if (m.ran && !m.agrees && m.trusted) {
        ++problems;
        break;
      }
    print_product(r);
    report.products.push_back(r);
    if (!config.json_path.empty()) write_json(report, config.json_path);
  }
  return problems;
}

std::vector<std::string> standard_generated_items() {
  return {"lap3d:120",    "lap3d:80:27", "rmat:16:8",   "rmat:18:4",   "rmat:20:2",
          "lap3d:120/ap", "lap3d:120/rap", "brick:30/ap", "brick:30/rap"};
}

std::vector<std::string> standard_items(const std::string& shared_dir) {
  std::vector<std::string> items = standard_generated_items();
  for (const auto& f : largest_real_matrices(shared_dir, 4)) items.push_back(f);
  return items;
}

std::vector<std::string> extended_items() {
  return {"er:1000000:8",  "er:1000000:2",   "er:200000:4",   "er:100000:16", "lap2d:2000:9",
          "band:1000000:5", "rmat:18:8:7",   "rmat:17:16:3",  "arrow:10000"};
}

}  // namespace gustav::bench
