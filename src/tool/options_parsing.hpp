#pragma once
// Maps command-line options onto gustav::SpgemmOptions.
#include "arguments.hpp"
#include "gustav/options.hpp"

namespace gustav::tool {

inline SpgemmOptions parse_spgemm_options(const Arguments& args) {
  SpgemmOptions o;
  o.sort_rows = !args.has("unsorted");
  const std::string acc = args.get("accumulator", "automatic");
  if (acc == "automatic") o.accumulator = Accumulator::automatic;
  else if (acc == "hash") o.accumulator = Accumulator::hash;
  else if (acc == "dense") o.accumulator = Accumulator::dense;
  else throw UsageError{"--accumulator must be automatic, hash or dense, got '" + acc + "'"};
  const std::string comp = args.get("compression", "automatic");
  if (comp == "automatic") o.compression = Compression::automatic;
  else if (comp == "always") o.compression = Compression::always;
  else if (comp == "never") o.compression = Compression::never;
  else throw UsageError{"--compression must be automatic, always or never, got '" + comp + "'"};
  return o;
}

}  // namespace gustav::tool
