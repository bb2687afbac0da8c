#pragma once
// The matrices a command works on: Matrix Market files or generator specs.
#include <string>
#include <vector>

#include "bench_types.hpp"
#include "gustav/generators.hpp"

namespace gustav::bench {

struct Operands {
  std::string name;  ///< file name or canonical spec of the product
  HostMatrix A;
  HostMatrix B;
  double read_seconds = 0;
  double read_megabytes = 0;
};

/// True when `arg` names a generator spec rather than a file.
bool is_spec(const std::string& arg);

/// A from `first` (file or spec); B from `second` when given, else the spec's
/// B (A for a plain matrix spec or a file).
Operands load_operands(const std::string& first, const std::string& second);

/// One benchmark item: a spec (its product) or a file (A * A when square,
/// A * A^T when rectangular).
Operands load_bench_operands(const std::string& item);

/// The `count` largest .mtx files listed in `shared_dir`/matrices/MANIFEST.tsv
/// (by file size), as paths; none when the folder is absent.
std::vector<std::string> largest_real_matrices(const std::string& shared_dir, int count);

}  // namespace gustav::bench
