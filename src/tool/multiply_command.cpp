// gustav multiply A.mtx|SPEC [B.mtx|SPEC] [-o C.mtx] [--space S] [--reps N]
//                 [--json FILE] [--unsorted] [--accumulator automatic|hash|dense|mcr|mcw]
//                 [--compression automatic|always|never] [--keep-positions] [--entry-masks]
//                 [--no-learned-masks] [--learned-positions]
//                 [--co-execution off|automatic|always] [--heavy-a N] [--heavy-b N] [--host-share F]
//                 [--kernel-times] [--timeline]
// Multiplies, prints a summary (rows, nnz, products, nnz(C), times, GFLOP/s,
// peak temporary memory) and optionally writes C and a JSON record.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

#include "arguments.hpp"
#include "commands.hpp"
#include "gustav/gustav.hpp"
#include "gustav/matrix_market.hpp"
#include "gustav_runner.hpp"
#include "json_writer.hpp"
#include "kernel_timer.hpp"
#include "operand_loading.hpp"
#include "options_parsing.hpp"
#include "sampled_check.hpp"
#include "spaces.hpp"

namespace gustav::tool {

namespace {

using bench::HostMatrix;
using bench::Operands;
using bench::load_operands;

struct Summary {
  bench::Measurement m;
  SpgemmStats stats;
  HostMatrix C;
  SampledCheck check;
};

template <class Offset, class Space>
Summary multiply_on(const Space& space, const Operands& ops, const SpgemmOptions& options, int warmups, int reps,
                    bool keep_c, std::int64_t check_rows = 0) {
  using Matrix = bench::DeviceMatrix<Space, Offset>;
  const auto A = to_crs<Matrix>(space, ops.A, "gustav::tool::A");
  const auto B = to_crs<Matrix>(space, ops.B, "gustav::tool::B");
  auto run = bench::run_gustav(space, A, B, options, "gustav", warmups, reps);
  Summary s{run.measurement, run.stats, {}, {}};
  if (check_rows > 0) s.check = check_sampled_rows(ops.A, ops.B, run.C, check_rows);
  if (keep_c) s.C = to_host_csr<double, std::int64_t, std::int64_t>(run.C);
  return s;
}

void print_summary(const Operands& ops, const std::string& space, const Summary& s) {
  auto ms = [](double sec) { return sec * 1e3; };
  const double flops = 2.0 * static_cast<double>(s.stats.products);
  const double total = bench::median(s.m.total);
  std::printf("product      %s\n", ops.name.c_str());
  std::printf("A            %lld x %lld, nnz %lld\n", (long long)ops.A.num_rows, (long long)ops.A.num_cols,
              (long long)ops.A.nnz());
  std::printf("B            %lld x %lld, nnz %lld\n", (long long)ops.B.num_rows, (long long)ops.B.num_cols,
              (long long)ops.B.nnz());
  std::printf("products     %lld (flops = 2 x products)\n", (long long)s.stats.products);
  std::printf("C            %lld x %lld, nnz %lld\n", (long long)ops.A.num_rows, (long long)ops.B.num_cols,
              (long long)s.stats.nnz);
  std::printf("space        %s\n", space.c_str());
  std::printf("symbolic     %.3f ms (median of %zu)\n", ms(bench::median(s.m.symbolic)), s.m.symbolic.size());
  std::printf("numeric      %.3f ms\n", ms(bench::median(s.m.numeric)));
  std::printf("total        %.3f ms  %.2f GFLOP/s\n", ms(total), total > 0 ? flops / total / 1e9 : 0.0);
  std::printf("reuse        %.3f ms  %.2f GFLOP/s (numeric only, plan reused)\n", ms(bench::median(s.m.reuse)),
              bench::median(s.m.reuse) > 0 ? flops / bench::median(s.m.reuse) / 1e9 : 0.0);
  std::printf("compression  %s, ratio %.3f\n", s.stats.compressed ? "on" : "off", s.stats.compression_ratio);
  std::printf("accumulator  %s\n", s.stats.accumulator.c_str());
  if (!s.stats.write_rows.empty()) std::printf("write rows   %s (gustav::multiply)\n", s.stats.write_rows.c_str());
  if (!s.stats.numeric_rows.empty())
    std::printf("numeric rows %s (gustav::numeric)\n", s.stats.numeric_rows.c_str());
  if (s.stats.colours > 0)
    std::printf("colours      %lld of C's rows, %lld a group, %lld groups\n", (long long)s.stats.colours,
                (long long)s.stats.colours_per_group, (long long)s.stats.colour_groups);
  if (!s.stats.co_execution.empty())
    std::printf("co-execution %s: heavy rows of A %lld (at least %lld entries), of B %lld (at least %lld), "
                "host products %lld (%.1f%%)\n",
                s.stats.co_execution.c_str(), (long long)s.stats.heavy_a_rows, (long long)s.stats.heavy_a_row_nnz,
                (long long)s.stats.heavy_b_rows, (long long)s.stats.heavy_b_row_nnz, (long long)s.stats.host_products,
                s.stats.products > 0 ? 100.0 * s.stats.host_products / s.stats.products : 0.0);
  std::printf("temp memory  symbolic %.2f MiB, numeric %.2f MiB\n", s.stats.symbolic_peak_temp_bytes / 1048576.0,
              s.stats.numeric_peak_temp_bytes / 1048576.0);
  if (s.stats.positions_bytes > 0)
    std::printf("positions    %.2f MiB kept by the plan in %s (part of both)\n", s.stats.positions_bytes / 1048576.0,
                s.stats.positions_layout.c_str());
  if (s.stats.masks_bytes > 0)
    std::printf("masks        %.2f MiB kept by the plan (part of both)\n", s.stats.masks_bytes / 1048576.0);
  if (s.stats.learned_positions_bytes > 0)
    std::printf("positions    %.2f MiB learned by the plan (part of numeric), %lld rows summed by a team\n",
                s.stats.learned_positions_bytes / 1048576.0, (long long)s.stats.learned_positions_team_rows);
  if (s.stats.long_row_offsets_bytes > 0)
    std::printf("long rows    %.2f MiB of offsets kept by the plan (part of numeric)\n",
                s.stats.long_row_offsets_bytes / 1048576.0);
  if (ops.read_megabytes > 0)
    std::printf("read         %.1f MB in %.3f s (%.0f MB/s)\n", ops.read_megabytes, ops.read_seconds,
                ops.read_megabytes / std::max(ops.read_seconds, 1e-9));
}

std::string json_of(const Operands& ops, const std::string& space, const Summary& s) {
  bench::JsonWriter j;
  j.begin_object();
  j.field("product", ops.name).field("space", space);
  j.field("rows", static_cast<long long>(ops.A.num_rows)).field("cols", static_cast<long long>(ops.B.num_cols));
  j.field("nnz_a", static_cast<long long>(ops.A.nnz())).field("nnz_b", static_cast<long long>(ops.B.nnz()));
  j.field("products", static_cast<long long>(s.stats.products)).field("nnz_c", static_cast<long long>(s.stats.nnz));
  j.numbers("symbolic_s", s.m.symbolic).numbers("numeric_s", s.m.numeric);
  j.numbers("total_s", s.m.total).numbers("reuse_s", s.m.reuse);
  j.field("gflops_total", 2.0 * s.stats.products / std::max(bench::median(s.m.total), 1e-12) / 1e9);
  j.field("compressed", s.stats.compressed).field("compression_ratio", s.stats.compression_ratio);
  j.field("symbolic_peak_temp_bytes", static_cast<long long>(s.stats.symbolic_peak_temp_bytes));
  j.field("numeric_peak_temp_bytes", static_cast<long long>(s.stats.numeric_peak_temp_bytes));
  j.field("masks_bytes", static_cast<long long>(s.stats.masks_bytes));
  j.field("learned_positions_bytes", static_cast<long long>(s.stats.learned_positions_bytes));
  j.field("learned_positions_team_rows", static_cast<long long>(s.stats.learned_positions_team_rows));
  j.field("long_row_offsets_bytes", static_cast<long long>(s.stats.long_row_offsets_bytes));
  j.end_object();
  return j.str() + "\n";
}

}  // namespace

int multiply_command(int argc, char** argv) {
  const Arguments args(argc, argv, 2,
                       {"unsorted", "kernel-times", "timeline", "keep-positions", "entry-masks", "no-learned-masks",
                        "learned-positions"},
                       {"output", "space", "reps", "json", "accumulator", "compression", "memory-budget", "offsets", "check-rows",
                        "co-execution", "heavy-a", "heavy-b", "host-share", "kept-layout"});
  if (args.positional().empty() || args.positional().size() > 2)
    throw UsageError{"multiply needs A (a .mtx file or a generator spec) and optionally B"};
  const auto ops = load_operands(args.positional()[0], args.positional().size() > 1 ? args.positional()[1] : "");
  const std::string space = args.get("space", default_space());
  const int reps = static_cast<int>(args.get_int("reps", 5, 1, 100000));
  const SpgemmOptions options = parse_spgemm_options(args);
  const bool keep_c = args.has("output");
  const std::int64_t check_rows = args.get_int("check-rows", 0, 0, 1000000);
  if (ops.A.num_rows > std::numeric_limits<int>::max() || ops.A.num_cols > std::numeric_limits<int>::max() ||
      ops.B.num_cols > std::numeric_limits<int>::max())
    throw invalid_input("gustav multiply: dimensions beyond 2^31 - 1 are not supported by the tool");
  // 32-bit offsets while nnz(C) surely fits (it is at most the product count).
  std::int64_t bound = 0;
  for (auto k : ops.A.entries) bound += ops.B.row_map[k + 1] - ops.B.row_map[k];
  const std::string offsets = args.get("offsets", "auto");
  if (offsets != "auto" && offsets != "32" && offsets != "64")
    throw UsageError{"--offsets must be auto, 32 or 64, got '" + offsets + "'"};
  const bool small = offsets == "32" || (offsets == "auto" && bound < std::numeric_limits<int>::max() &&
                                         ops.A.nnz() < std::numeric_limits<int>::max() &&
                                         ops.B.nnz() < std::numeric_limits<int>::max());
  const Summary s = with_space(space, [&](const auto& sp) {
    return small ? multiply_on<int>(sp, ops, options, 1, reps, keep_c, check_rows)
                 : multiply_on<std::int64_t>(sp, ops, options, 1, reps, keep_c, check_rows);
  });
  print_summary(ops, space, s);
  // The benchmark runner compares the one-shot product's C with the plan's
  // (where both fit on the host); --check-rows samples the plan's.
  if (!s.m.agrees) {
    std::printf("one-shot     DISAGREES: %s\n", s.m.note.c_str());
    return 1;
  }
  if (check_rows > 0) {
    if (s.check.first_problem.empty()) {
      std::printf("check        %lld sampled rows of C (%lld entries) agree with a host computation\n",
                  (long long)s.check.rows_checked, (long long)s.check.entries_checked);
    } else {
      std::printf("check        DISAGREES: %s\n", s.check.first_problem.c_str());
      return 1;
    }
  }
  // One more product (multiply, symbolic, numeric, reuse) for the recorders
  // below, which watch it through Kokkos' profiling hooks.
  auto one_more_product = [&] {
    with_space(space, [&](const auto& sp) {
      return small ? multiply_on<int>(sp, ops, options, 0, 1, false)
                   : multiply_on<std::int64_t>(sp, ops, options, 0, 1, false);
    });
  };
  if (args.has("kernel-times")) {
    std::vector<bench::KernelTime> times;
    {
      bench::KernelTimer timer;
      one_more_product();
      times = timer.times();
    }
    std::printf("kernel times (multiply, then symbolic + numeric + reuse, every kernel fenced):\n");
    bench::print_kernel_times(times);
  }
  if (args.has("timeline")) {
    std::vector<bench::TimelineEvent> events;
    {
      bench::Timeline timeline;
      one_more_product();
      events = timeline.events();
    }
    std::printf("timeline (multiply, then symbolic + numeric + reuse; host clock, nothing fenced but between calls):\n");
    bench::print_timeline(events);
  }
  if (keep_c) {
    write_matrix_market(args.get("output", ""), s.C);
    std::printf("wrote        %s\n", args.get("output", "").c_str());
  }
  if (args.has("json")) {
    std::ofstream out(args.get("json", ""));
    if (!out) throw invalid_input("gustav multiply: cannot write " + args.get("json", ""));
    out << json_of(ops, space, s);
  }
  return 0;
}

}  // namespace gustav::tool
