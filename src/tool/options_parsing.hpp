#pragma once
// Maps command-line options onto gustav::SpgemmOptions.
#include <cstddef>
#include <exception>
#include <limits>
#include <string>

#include "arguments.hpp"
#include "gustav/options.hpp"

namespace gustav::tool {

/// "123", "64K", "512M", "2G" (powers of 1024) as bytes.
inline std::size_t parse_bytes(const std::string& text) {
  std::size_t used = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(text, &used);
  } catch (const std::exception&) {
    throw UsageError{"--memory-budget takes bytes such as 500000, 64K, 512M or 2G, got '" + text + "'"};
  }
  const std::string suffix = text.substr(used);
  unsigned long long scale = 1;
  if (suffix == "K" || suffix == "k") scale = 1ull << 10;
  else if (suffix == "M" || suffix == "m") scale = 1ull << 20;
  else if (suffix == "G" || suffix == "g") scale = 1ull << 30;
  else if (!suffix.empty())
    throw UsageError{"--memory-budget takes bytes such as 500000, 64K, 512M or 2G, got '" + text + "'"};
  return static_cast<std::size_t>(n * scale);
}

/// --kept-layout automatic|lists|slots (KeptLayout).
inline KeptLayout parse_kept_layout(const Arguments& args) {
  const std::string layout = args.get("kept-layout", "automatic");
  if (layout == "automatic") return KeptLayout::automatic;
  if (layout == "lists") return KeptLayout::lists;
  if (layout == "slots") return KeptLayout::slots;
  throw UsageError{"--kept-layout must be automatic, lists or slots, got '" + layout + "'"};
}

inline SpgemmOptions parse_spgemm_options(const Arguments& args) {
  SpgemmOptions o;
  o.sort_rows = !args.has("unsorted");
  const std::string acc = args.get("accumulator", "automatic");
  if (acc == "automatic") o.accumulator = Accumulator::automatic;
  else if (acc == "hash") o.accumulator = Accumulator::hash;
  else if (acc == "dense") o.accumulator = Accumulator::dense;
  else if (acc == "mcr") o.accumulator = Accumulator::mcr;
  else if (acc == "mcw") o.accumulator = Accumulator::mcw;
  else throw UsageError{"--accumulator must be automatic, hash, dense, mcr or mcw, got '" + acc + "'"};
  const std::string comp = args.get("compression", "automatic");
  if (comp == "automatic") o.compression = Compression::automatic;
  else if (comp == "always") o.compression = Compression::always;
  else if (comp == "never") o.compression = Compression::never;
  else throw UsageError{"--compression must be automatic, always or never, got '" + comp + "'"};
  if (args.has("memory-budget")) o.memory_budget_bytes = parse_bytes(args.get("memory-budget", ""));
  o.keep_product_positions = args.has("keep-positions");
  o.keep_entry_masks = args.has("entry-masks");
  o.learn_entry_masks = !args.has("no-learned-masks");
  o.learn_product_positions = args.has("learned-positions");
  o.kept_layout = parse_kept_layout(args);
  // --space hybrid splits every product unless --co-execution says otherwise.
  const std::string co = args.get("co-execution", args.get("space", "") == "hybrid" ? "always" : "off");
  if (co == "off") o.co_execution = CoExecution::off;
  else if (co == "automatic") o.co_execution = CoExecution::automatic;
  else if (co == "always") o.co_execution = CoExecution::always;
  else throw UsageError{"--co-execution must be off, automatic or always, got '" + co + "'"};
  o.heavy_a_row_nnz = args.get_int("heavy-a", 0, 0, std::numeric_limits<int>::max());
  o.heavy_b_row_nnz = args.get_int("heavy-b", 0, 0, std::numeric_limits<int>::max());
  if (args.has("host-share")) {
    const std::string text = args.get("host-share", "");
    try {
      o.host_share = std::stod(text);
    } catch (const std::exception&) {
      o.host_share = -1;
    }
    if (!(o.host_share > 0 && o.host_share <= 1))
      throw UsageError{"--host-share takes a share of the products in (0, 1], got '" + text + "'"};
  }
  return o;
}

}  // namespace gustav::tool
