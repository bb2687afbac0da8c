#pragma once
// Results of a benchmark run: per product and implementation, printed as a
// table and saved as JSON for the plot script.
#include <cstdint>
#include <string>
#include <vector>

#include "bench_types.hpp"
#include "gustav/stats.hpp"

namespace gustav::bench {

struct MachineInfo {
  std::string space;           ///< execution space the run used
  std::string device;          ///< what ran the kernels: the GPU on cuda, else the CPU
  std::string cpu;             ///< the host CPU's model name ("unknown" if not found)
  std::string gpu;             ///< the GPU's description, or "none"
  int cpu_cores = 0;           ///< hardware threads of the host
  int threads = 0;             ///< threads of the host execution space
  std::string kokkos_version;
  std::string gustav_version;
  std::string date;            ///< UTC, ISO 8601
};

struct ProductResult {
  std::string name;
  std::string error;  ///< the product could not be benchmarked at all
  std::int64_t rows = 0, cols = 0, nnz_a = 0, nnz_b = 0, products = 0, nnz_c = 0;
  SpgemmStats stats;  ///< Gustav's statistics (bins, compression)
  std::vector<Measurement> measurements;
};

struct Report {
  MachineInfo machine;
  std::vector<ProductResult> products;
};

MachineInfo describe_machine(const std::string& space);

/// A few lines per product: implementation, total / symbolic / numeric /
/// reuse medians, GFLOP/s (2 * products / time), peak temporaries, agreement.
void print_product(const ProductResult& r);

void write_json(const Report& report, const std::string& path);

}  // namespace gustav::bench
