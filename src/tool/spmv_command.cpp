// gustav spmv MATRIX... [--space S] [--reps N] [--warmup N] [--alpha A]
//             [--beta B] [--json FILE]
// y = alpha * A * x + beta * y with gustav::spmv, Kokkos Kernels and, in
// CUDA builds with cuSPARSE, cuSPARSE, on each MATRIX: a Matrix Market file
// or a generator spec (of a product spec such as lap3d:60/rap, its first
// operand). Prints the space's copy bandwidth (Kokkos::deep_copy), then
// median time, GB/s and its share of the copy bandwidth, GFLOP/s, and
// whether each peer's y agrees with Gustav's. A peer's failure or
// disagreement is printed and the run goes on. Exit code 1 only when a
// matrix could not be loaded or gustav::spmv itself failed: this command
// measures Gustav, and a peer's fault is not Gustav's.
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bench_report.hpp"
#include "bench_types.hpp"
#include "commands.hpp"
#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "json_writer.hpp"
#include "operand_loading.hpp"
#include "spaces.hpp"
#include "spmv_runner.hpp"

namespace gustav::tool {

namespace {

struct SpmvSettings {
  std::string space;
  double alpha = 1, beta = 0;
  int warmups = 2, reps = 10;
  double copy_gbytes_per_second = 0;  ///< the space's copy bandwidth, measured once per run
};

/// Bytes each of the copy measurement's two arrays holds: far beyond any
/// cache, small next to a GPU's memory.
constexpr std::size_t copy_measurement_bytes = std::size_t(256) << 20;

/// One MATRIX argument: its comparison, or why it could not be run at all.
struct SpmvItem {
  std::string name;
  std::string error;
  std::string offsets;  ///< "int" or "int64", as the benchmarks choose them
  bench::SpmvComparison comparison;
};

double get_double(const Arguments& args, const std::string& name, double fallback) {
  if (!args.has(name)) return fallback;
  const std::string text = args.get(name, "");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(v))
    throw UsageError{"--" + name + " must be a finite number, got '" + text + "'"};
  return v;
}

template <class Offset, class Space>
bench::SpmvComparison spmv_on(const Space& space, const bench::HostMatrix& host, const SpmvSettings& s) {
  using Matrix = bench::DeviceMatrix<Space, Offset>;
  const auto A = to_crs<Matrix>(space, host, "gustav::tool::spmv::A");
  auto c = bench::compare_spmv(space, A, s.alpha, s.beta, s.warmups, s.reps);
  c.copy_gbytes_per_second = s.copy_gbytes_per_second;
  return c;
}

SpmvItem run_item(const std::string& arg, const SpmvSettings& s) {
  SpmvItem item;
  item.name = arg;
  try {
    const auto ops = bench::load_operands(arg, "");
    const bench::HostMatrix& A = ops.A;
    // A spec as the user typed it (its canonical name spells a product, "/aa"); a file by its base name.
    if (!bench::is_spec(arg)) item.name = ops.name;
    if (A.num_rows > std::numeric_limits<int>::max() || A.num_cols > std::numeric_limits<int>::max())
      throw invalid_input("dimensions beyond 2^31 - 1 are not supported by the tool");
    // Offsets as the benchmarks choose them: int while nnz fits, else int64.
    const bool small = A.nnz() < std::numeric_limits<int>::max();
    item.offsets = small ? "int" : "int64";
    item.comparison = with_space(s.space, [&](const auto& sp) {
      return small ? spmv_on<int>(sp, A, s) : spmv_on<std::int64_t>(sp, A, s);
    });
  } catch (const std::exception& e) {
    item.error = e.what();
  }
  return item;
}

bool gustav_ran(const SpmvItem& item) {
  return item.error.empty() && !item.comparison.runs.empty() && item.comparison.runs.front().ran;
}

void print_item(const SpmvItem& item) {
  std::printf("\n%s%s%s\n", item.name.c_str(), item.offsets.empty() ? "" : ", offsets ", item.offsets.c_str());
  if (!item.error.empty()) {
    std::printf("  failed: %s\n", item.error.c_str());
    return;
  }
  std::fputs(bench::describe(item.comparison).c_str(), stdout);
}

void write_json(const std::string& path, const bench::MachineInfo& machine, const SpmvSettings& s,
                const std::vector<SpmvItem>& items) {
  bench::JsonWriter j;
  j.begin_object();
  j.field("command", "spmv");
  j.begin_object("machine");
  j.field("space", machine.space).field("device", machine.device);
  j.field("cpu_cores", machine.cpu_cores).field("threads", machine.threads);
  j.field("kokkos_version", machine.kokkos_version).field("gustav_version", machine.gustav_version);
  j.field("date", machine.date);
  j.end_object();
  j.field("alpha", s.alpha).field("beta", s.beta).field("warmups", s.warmups).field("reps", s.reps);
  j.field("copy_gbytes_per_s", s.copy_gbytes_per_second);
  j.begin_array("matrices");
  for (const auto& item : items) {
    const auto& c = item.comparison;
    j.begin_object();
    j.field("matrix", item.name);
    if (!item.error.empty()) {
      j.field("error", item.error);
      j.end_object();
      continue;
    }
    j.field("rows", static_cast<long long>(c.rows)).field("cols", static_cast<long long>(c.cols));
    j.field("nnz", static_cast<long long>(c.nnz)).field("offsets", item.offsets).field("bytes", c.bytes);
    j.begin_array("implementations");
    for (const auto& m : c.runs) {
      j.begin_object();
      j.field("implementation", m.implementation).field("ran", m.ran);
      j.field("checked", m.checked).field("agrees", m.agrees).field("note", m.note);
      j.numbers("seconds", m.seconds).field("median_s", m.median_seconds);
      j.field("gbytes_per_s", m.gbytes_per_second).field("gflops", m.gflops);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  std::ofstream out(path);
  out << j.str() << "\n";
  if (!out) throw invalid_input("gustav spmv: cannot write " + path);
}

}  // namespace

int spmv_command(int argc, char** argv) {
  const Arguments args(argc, argv, 2, {}, {"space", "reps", "warmup", "alpha", "beta", "json"});
  if (args.positional().empty()) throw UsageError{"spmv needs matrices (.mtx files or generator specs)"};
  SpmvSettings s;
  s.space = args.get("space", default_space());
  with_space(s.space, [](const auto&) { return 0; });  // rejects unknown spaces before any loading
  s.reps = static_cast<int>(args.get_int("reps", s.reps, 1, 100000));
  s.warmups = static_cast<int>(args.get_int("warmup", s.warmups, 0, 1000));
  s.alpha = get_double(args, "alpha", s.alpha);
  s.beta = get_double(args, "beta", s.beta);
  const std::string json = args.get("json", "");

  std::printf("spmv y = %g A x + %g y on %s, median of %d runs after %d warm-up(s)\n", s.alpha, s.beta,
              s.space.c_str(), s.reps, s.warmups);
  const auto machine = bench::describe_machine(s.space);
  s.copy_gbytes_per_second =
      with_space(s.space, [](const auto& sp) { return bench::copy_bandwidth(sp, copy_measurement_bytes, 10); });
  std::printf("copy bandwidth on %s: %.1f GB/s (read + written, %zu MiB arrays, median of 10)\n", s.space.c_str(),
              s.copy_gbytes_per_second, copy_measurement_bytes >> 20);
  std::vector<SpmvItem> items;
  int failures = 0;
  for (const auto& arg : args.positional()) {
    items.push_back(run_item(arg, s));
    print_item(items.back());
    std::fflush(stdout);
    if (!gustav_ran(items.back())) ++failures;
    // Rewritten after every matrix, so that a long run killed half-way keeps what it measured.
    if (!json.empty()) write_json(json, machine, s, items);
  }
  if (failures > 0)
    std::fprintf(stderr, "gustav spmv: %d matrix(es) could not be loaded or gustav::spmv failed on them\n", failures);
  return failures > 0 ? 1 : 0;
}

}  // namespace gustav::tool
