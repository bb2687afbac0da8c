// gustav bench [ITEM...] [--standard] [--extended] [--space S] [--reps N]
//              [--warmup N] [--json FILE] [--implementations LIST] [--shared DIR]
// ITEM: a Matrix Market file or a generator spec. --standard adds the
// standard set, --extended the extended one. LIST: comma-separated from gustav-variants,
// gustav-positions (the one variant that keeps product positions, GPUs), gustav-hybrid
// (host and device together, GPUs; --space hybrid adds it), kk, cusparse
// (Gustav's default always runs: it is the reference the others are checked
// against). Exit code 1 when a trusted implementation disagreed or failed.
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "arguments.hpp"
#include "bench_suite.hpp"
#include "commands.hpp"
#include "options_parsing.hpp"
#include "spaces.hpp"

namespace gustav::tool {

int bench_command(int argc, char** argv) {
  const Arguments args(argc, argv, 2, {"standard", "extended"},
                       {"space", "reps", "warmup", "json", "implementations", "shared", "kept-layout"});
  bench::BenchConfig config;
  config.items = args.positional();
  if (args.has("standard")) {
    const std::string shared = args.get("shared", "../shared");
    const auto standard = bench::standard_items(shared);
    // The matrix files come from the folder's manifest; without one the run
    // would quietly measure fewer products than the set names.
    if (standard.size() == bench::standard_generated_items().size())
      std::fprintf(stderr,
                   "gustav bench: --standard found no matrix files listed in %s/matrices/MANIFEST.tsv; "
                   "running its generated products only\n",
                   shared.c_str());
    for (const auto& item : standard) config.items.push_back(item);
  }
  if (args.has("extended")) {
    for (const auto& item : bench::extended_items()) config.items.push_back(item);
  }
  if (config.items.empty()) throw UsageError{"bench needs matrices or specs, or --standard or --extended"};
  config.space = args.get("space", default_space());
  with_space(config.space, [](const auto&) { return 0; });  // rejects unknown spaces
  config.reps = static_cast<int>(args.get_int("reps", 5, 1, 100000));
  config.warmups = static_cast<int>(args.get_int("warmup", 1, 0, 1000));
  config.json_path = args.get("json", "");
  config.kept_layout = parse_kept_layout(args);
  if (args.has("implementations")) {
    config.implementations.clear();
    std::stringstream list(args.get("implementations", ""));
    std::string name;
    while (std::getline(list, name, ',')) {
      if (name != "gustav-variants" && name != "gustav-positions" && name != "gustav-masks" &&
          name != "gustav-learned-positions" && name != "gustav-hybrid" && name != "kk" && name != "cusparse")
        throw UsageError{"--implementations takes gustav-variants, gustav-positions, gustav-masks, gustav-learned-positions, "
                         "gustav-hybrid, "
                         "kk and cusparse, "
                         "got '" + name + "'"};
      config.implementations.push_back(name);
    }
  } else {
    config.implementations = {"gustav-variants", "kk", "cusparse"};
  }
  // --space hybrid: the GPU's products, with the split one (gustav/hybrid) beside them.
  if (is_hybrid_space(config.space)) config.implementations.push_back("gustav-hybrid");
  config.progress = ::isatty(2);
  const int problems = bench::run_bench(config);
  if (problems > 0) std::fprintf(stderr, "gustav bench: %d product(s) with failures or disagreements\n", problems);
  return problems > 0 ? 1 : 0;
}

}  // namespace gustav::tool
