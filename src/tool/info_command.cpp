// gustav info: versions, enabled backends, the GPU.
#include <cstdio>

#include "arguments.hpp"
#include "commands.hpp"
#include "gustav/info.hpp"

namespace gustav::tool {

int info_command(int argc, char** argv) {
  const Arguments args(argc, argv, 2, {}, {});
  if (!args.positional().empty()) throw UsageError{"info takes no arguments"};
  std::fputs(describe(build_info()).c_str(), stdout);
  return 0;
}

}  // namespace gustav::tool
