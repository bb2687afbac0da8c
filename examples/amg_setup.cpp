// gustav_amg_setup [SPEC] [--space serial|openmp|cuda] [--reps N] [--omega W]
//                  [--aggregate K] [--coarse ROWS] [--json FILE]
//
// Builds a smoothed-aggregation multigrid hierarchy with Gustav and prints,
// per level, the size of the operator and the time of each setup step: the
// Jacobi-smoothed prolongator, R = P^T, A * P, R * (AP), the triple product,
// and the numeric-only path a new A of the same structure takes. Ends with
// the operator complexity. SPEC is a generator spec (default lap3d:100;
// brick:30 is the elasticity-like operator); grid specs are aggregated in
// boxes of K^3 nodes on the finest level, every coarser level greedily.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "aggregation.hpp"
#include "gustav/openmp_binding.hpp"
#include "hierarchy.hpp"

namespace {

using gustav::examples::FineLevel;
using gustav::examples::LevelReport;
using gustav::examples::SetupSettings;

struct Arguments {
  std::string spec = "lap3d:100";
  std::string space;
  std::string json;
  int aggregate = 3;
  SetupSettings setup;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* usage =
    "usage: gustav_amg_setup [SPEC] [--space serial|openmp|cuda] [--reps N] [--omega W]\n"
    "                        [--aggregate K] [--coarse ROWS] [--json FILE]\n"
    "  SPEC  a generator spec such as lap3d:100 (the default), lap3d:60:27 or brick:30\n";

std::vector<std::string> enabled_spaces() {
  std::vector<std::string> s;
#if defined(KOKKOS_ENABLE_CUDA)
  s.push_back("cuda");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  s.push_back("openmp");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  s.push_back("serial");
#endif
  return s;
}

/// Calls f with the execution space named `name`.
template <class F>
auto with_space(const std::string& name, F&& f) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (name == "cuda") return f(Kokkos::Cuda());
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if (name == "openmp") return f(Kokkos::OpenMP());
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  if (name == "serial") return f(Kokkos::Serial());
#endif
  std::string known;
  for (const auto& s : enabled_spaces()) known += (known.empty() ? "" : "|") + s;
  throw UsageError("--space must be one of " + known + " in this build, got '" + name + "'");
}

long long integer_option(const std::string& name, const std::string& text, long long least) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < least)
    throw UsageError(name + " needs an integer of at least " + std::to_string(least) + ", got '" + text + "'");
  return v;
}

Arguments parse(int argc, char** argv) {
  Arguments a;
  a.space = enabled_spaces().front();
  bool have_spec = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--space") {
      a.space = value();
    } else if (arg == "--reps") {
      a.setup.reps = static_cast<int>(integer_option(arg, value(), 1));
    } else if (arg == "--omega") {
      const std::string text = value();
      char* end = nullptr;
      a.setup.omega = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') throw UsageError("--omega needs a number, got '" + text + "'");
    } else if (arg == "--aggregate") {
      a.aggregate = static_cast<int>(integer_option(arg, value(), 1));
    } else if (arg == "--coarse") {
      a.setup.coarse_rows = integer_option(arg, value(), 1);
    } else if (arg == "--json") {
      a.json = value();
    } else if (arg == "-h" || arg == "--help") {
      throw UsageError("");
    } else if (!arg.empty() && arg[0] != '-' && !have_spec) {
      a.spec = arg;
      have_spec = true;
    } else {
      throw UsageError("unexpected argument '" + arg + "'");
    }
  }
  return a;
}

/// The finest operator of a spec. Grid specs ("lap3d:100:7", "brick:30" in
/// canonical form) keep their grid for the first aggregation.
FineLevel load_fine(const Arguments& a) {
  if (a.spec.find('/') != std::string::npos)
    throw UsageError("SPEC names one matrix (such as lap3d:100), not a product");
  auto product = gustav::generators::from_spec(a.spec);
  FineLevel f;
  f.name = product.name.substr(0, product.name.find('/'));
  f.A = std::move(product.A);
  f.aggregate = a.aggregate;
  const std::string kind = f.name.substr(0, f.name.find(':'));
  if (kind == "lap2d" || kind == "lap3d" || kind == "brick") {
    const std::size_t start = kind.size() + 1;
    f.grid_n = std::stoll(f.name.substr(start, f.name.find(':', start) - start));
    f.grid_dims = kind == "lap2d" ? 2 : 3;
    f.dofs_per_node = kind == "brick" ? 3 : 1;
  }
  return f;
}

void print_report(const Arguments& a, const FineLevel& f, const std::vector<LevelReport>& levels, int threads) {
  std::printf("gustav_amg_setup  %s on %s (concurrency %d), omega %.4g, median of %d\n", f.name.c_str(),
              a.space.c_str(), threads, a.setup.omega, a.setup.reps);
  if (f.grid_dims > 0)
    std::printf("aggregates        level 0: boxes of %d^%d nodes; below: greedy\n", f.aggregate, f.grid_dims);
  std::printf("%5s %10s %11s %7s | %8s %8s %8s %8s %8s | %8s  (ms)\n", "level", "rows", "nnz", "nnz/row", "jacobi",
              "P^T", "A*P", "R*(AP)", "R*A*P", "reuse");
  std::int64_t total_nnz = 0;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const auto& L = levels[l];
    const auto& t = L.times;
    total_nnz += L.nnz;
    std::printf("%5zu %10lld %11lld %7.1f", l, static_cast<long long>(L.rows), static_cast<long long>(L.nnz),
                L.rows > 0 ? static_cast<double>(L.nnz) / static_cast<double>(L.rows) : 0.0);
    if (L.coarse_rows > 0)
      std::printf(" | %8.2f %8.2f %8.2f %8.2f %8.2f | %8.2f", 1e3 * t.jacobi, 1e3 * t.transpose, 1e3 * t.ap,
                  1e3 * t.rap, 1e3 * t.triple, 1e3 * t.reuse());
    std::printf("\n");
  }
  std::printf("operator complexity %.3f (nnz of all %zu levels / nnz of level 0)\n",
              static_cast<double>(total_nnz) / static_cast<double>(levels.front().nnz), levels.size());
  std::printf("jacobi: P = (I - omega D^-1 A) P_tent; R*A*P: gustav::triple_product (A*P, then R*(AP));\n"
              "reuse: numeric-only jacobi + P^T + numeric-only R*A*P, as for a new A of the same structure\n");
}

void write_json(const std::string& path, const Arguments& a, const FineLevel& f,
                const std::vector<LevelReport>& levels) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  std::int64_t total_nnz = 0;
  for (const auto& L : levels) total_nnz += L.nnz;
  out << "{\"matrix\": \"" << f.name << "\", \"space\": \"" << a.space << "\", \"omega\": " << a.setup.omega
      << ", \"reps\": " << a.setup.reps << ", \"operator_complexity\": "
      << static_cast<double>(total_nnz) / static_cast<double>(levels.front().nnz) << ",\n \"levels\": [";
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const auto& L = levels[l];
    const auto& t = L.times;
    out << (l ? ",\n  " : "\n  ") << "{\"level\": " << l << ", \"rows\": " << L.rows << ", \"nnz\": " << L.nnz
        << ", \"coarse_rows\": " << L.coarse_rows << ", \"nnz_p\": " << L.nnz_p << ", \"jacobi_s\": " << t.jacobi
        << ", \"transpose_s\": " << t.transpose << ", \"ap_s\": " << t.ap << ", \"rap_s\": " << t.rap
        << ", \"triple_product_s\": " << t.triple << ", \"reuse_jacobi_s\": " << t.reuse_jacobi
        << ", \"reuse_transpose_s\": " << t.reuse_transpose << ", \"reuse_triple_product_s\": " << t.reuse_triple
        << "}";
  }
  out << "\n ]}\n";
}

}  // namespace

int main(int argc, char** argv) {
  gustav::name_openmp_binding();  // the report is the program's only output
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const Arguments a = parse(argc, argv);
    const FineLevel fine = load_fine(a);
    int threads = 0;
    const auto levels = with_space(a.space, [&](const auto& space) {
      threads = space.concurrency();
      return gustav::examples::build_hierarchy(space, fine, a.setup);
    });
    print_report(a, fine, levels, threads);
    if (!a.json.empty()) write_json(a.json, a, fine, levels);
  } catch (const UsageError& e) {
    if (*e.what()) std::fprintf(stderr, "gustav_amg_setup: %s\n", e.what());
    std::fprintf(stderr, "%s", usage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gustav_amg_setup: %s\n", e.what());
    return 1;
  }
  return 0;
}
