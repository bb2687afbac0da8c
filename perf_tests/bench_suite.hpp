#pragma once
// gustav bench: Gustav and its peers on the same products in one process,
// with timings, GFLOP/s, memory and agreement, written as JSON.
#include <string>
#include <vector>

#include "gustav/options.hpp"

namespace gustav::bench {

struct BenchConfig {
  std::vector<std::string> items;      ///< Matrix Market files or generator specs
  std::string space;                   ///< serial, openmp or cuda
  std::vector<std::string> implementations = {"gustav", "kk", "cusparse"};
  int warmups = 1;
  int reps = 5;
  std::string json_path;               ///< "" for none
  bool progress = false;               ///< print progress lines (on a terminal)
  KeptLayout kept_layout = KeptLayout::automatic;  ///< gustav/positions' layout
};

/// The standard set: the core products, multigrid products of lap3d and the
/// brick, and the largest real matrices found under `shared_dir`/matrices.
std::vector<std::string> standard_items(const std::string& shared_dir);
/// The standard set's generated products (standard_items without the files).
std::vector<std::string> standard_generated_items();

/// The extended set: the other classes the speed targets name (uniform
/// random rows, 2-D 9-point, banded, R-MAT with other seeds and edge factors,
/// an arrow matrix whose square is dense).
std::vector<std::string> extended_items();

/// Runs the suite; returns the number of products on which some peer
/// disagreed with Gustav or Gustav failed (0 when all is well).
int run_bench(const BenchConfig& config);

}  // namespace gustav::bench
