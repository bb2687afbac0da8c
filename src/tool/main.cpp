// gustav: command-line front end of the Gustav SpGEMM library.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "arguments.hpp"
#include "commands.hpp"
#include "gustav/openmp_binding.hpp"

namespace {

const char* usage =
    "usage: gustav <command> [arguments]\n"
    "\n"
    "  multiply A [B] [-o C.mtx] [--space serial|openmp|cuda|hybrid] [--reps N] [--json FILE]\n"
    "           [--unsorted] [--accumulator automatic|hash|dense|mcr|mcw] [--compression automatic|always|never]\n"
    "           [--kernel-times] [--memory-budget BYTES[K|M|G]] [--offsets auto|32|64]\n"
    "           [--check-rows N] [--keep-positions] [--kept-layout automatic|lists|slots] [--entry-masks]\n"
    "           [--no-learned-masks] [--learned-positions]\n"
    "           [--co-execution off|automatic|always] [--heavy-a N] [--heavy-b N] [--host-share F]\n"
    "      C = A * B (B defaults to A). A and B are Matrix Market files or generator\n"
    "      specs such as lap3d:120, lap3d:80:27, brick:30, rmat:16:8, lap3d:100/rap.\n"
    "      --keep-positions: the plan keeps every product's place in C for fast reuse, in lists (8 bytes a\n"
    "      product) or by slot (2 bytes a product; --kept-layout, chosen by default).\n"
    "      --entry-masks: the GPU plan keeps a mask of its row of C for each entry of A (numeric without hashing).\n"
    "      --no-learned-masks: the GPU plan's first numeric call does not learn those masks (a plan used once).\n"
    "      --learned-positions: its first numeric call learns its hash rows' product positions (opt-in).\n"
    "      --space hybrid: CUDA with the heavy rows' part on the host beside it (--co-execution always);\n"
    "      --heavy-a/--heavy-b: rows with at least this many entries are heavy (default: chosen).\n"
    "  bench [MATRIX...] [--standard] [--extended] [--space S] [--reps N] [--warmup N] [--json FILE]\n"
    "        [--implementations gustav-variants,gustav-positions,gustav-masks,gustav-learned-positions,gustav-hybrid,kk,cusparse] [--shared DIR]\n"
    "        [--kept-layout automatic|lists|slots]\n"
    "      Gustav against Kokkos Kernels (and cuSPARSE on GPUs) on the same matrices.\n"
    "  spmv MATRIX... [--space S] [--reps N] [--warmup N] [--alpha A] [--beta B] [--json FILE]\n"
    "      y = alpha A x + beta y (defaults 1, 0; 10 reps after 2 warm-ups) with Gustav,\n"
    "      Kokkos Kernels and cuSPARSE on GPUs: median time, GB/s, GFLOP/s, agreement.\n"
    "  info\n"
    "      Gustav and Kokkos versions, enabled backends, the GPU.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  // Output is the tool's own: Kokkos' binding advice is answered with the
  // binding the threads have (unbound unless the user set OMP_PLACES).
  gustav::name_openmp_binding();
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    if (command == "multiply") return gustav::tool::multiply_command(argc, argv);
    if (command == "info") return gustav::tool::info_command(argc, argv);
    if (command == "bench") return gustav::tool::bench_command(argc, argv);
    if (command == "spmv") return gustav::tool::spmv_command(argc, argv);
    std::fprintf(stderr, "gustav: unknown command '%s'\n\n%s", command.c_str(), usage);
    return 2;
  } catch (const gustav::tool::UsageError& e) {
    std::fprintf(stderr, "gustav %s: %s\n\n%s", command.c_str(), e.message.c_str(), usage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
