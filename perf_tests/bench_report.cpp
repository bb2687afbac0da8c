#include "bench_report.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include "gustav/errors.hpp"
#include "gustav/info.hpp"
#include "json_writer.hpp"
#include "timing.hpp"

namespace gustav::bench {

namespace {

double gflops(std::int64_t products, double seconds) {
  return seconds > 0 ? 2.0 * static_cast<double>(products) / seconds / 1e9 : 0.0;
}

void write_bins(JsonWriter& j, const std::string& key, const std::vector<BinUse>& bins) {
  j.begin_array(key);
  for (const auto& b : bins) {
    j.begin_object();
    j.field("name", b.name).field("rows", static_cast<long long>(b.rows));
    j.field("max_need", static_cast<long long>(b.max_need)).field("table_slots", b.table_slots);
    j.field("vector_length", b.vector_length).field("team_size", b.team_size);
    j.end_object();
  }
  j.end_array();
}

void write_times(JsonWriter& j, const std::string& key, const std::vector<double>& t, std::int64_t products) {
  j.begin_object(key);
  j.numbers("seconds", t);
  j.field("median_s", median(t)).field("min_s", minimum(t));
  j.field("gflops_median", gflops(products, median(t)));
  j.end_object();
}

/// The first "model name" of /proc/cpuinfo (Linux), else "unknown".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) break;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

}  // namespace

MachineInfo describe_machine(const std::string& space) {
  const auto info = build_info();
  MachineInfo m;
  m.space = space;
  m.cpu = cpu_model();
  m.gpu = info.device;
  m.cpu_cores = static_cast<int>(std::thread::hardware_concurrency());
  m.device = space == "cuda" || space == "hybrid" ? m.gpu : m.cpu + ", " + std::to_string(m.cpu_cores) + " hardware threads";
  m.threads = info.host_threads;
  m.kokkos_version = info.kokkos_version;
  m.gustav_version = info.gustav_version;
  char buf[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.date = buf;
  return m;
}

void print_product(const ProductResult& r) {
  std::printf("\n%s: %lld x %lld, nnz(A) %lld, nnz(B) %lld, products %lld, nnz(C) %lld\n", r.name.c_str(),
              (long long)r.rows, (long long)r.cols, (long long)r.nnz_a, (long long)r.nnz_b, (long long)r.products,
              (long long)r.nnz_c);
  if (!r.error.empty()) {
    std::printf("  failed: %s\n", r.error.c_str());
    return;
  }
  std::printf("  %-22s %10s %9s %10s %10s %10s %9s %11s  %s\n", "implementation", "total ms", "GFLOP/s", "symbolic",
              "numeric", "reuse ms", "reuse GF", "temp MiB", "check");
  for (const auto& m : r.measurements) {
    if (!m.ran) {
      std::printf("  %-22s %s: %s\n", m.implementation.c_str(), m.failed ? "FAILED" : "skipped", m.note.c_str());
      continue;
    }
    const char* check = m.agrees ? "agrees" : (m.trusted ? "DISAGREES" : "disagrees (untrusted peer)");
    std::printf("  %-22s %10.3f %9.2f %10.3f %10.3f %10.3f %9.2f %11.2f  %s%s%s\n", m.implementation.c_str(),
                median(m.total) * 1e3, gflops(r.products, median(m.total)), median(m.symbolic) * 1e3,
                median(m.numeric) * 1e3, median(m.reuse) * 1e3, gflops(r.products, median(m.reuse)),
                m.peak_temp_bytes / 1048576.0, check, m.note.empty() ? "" : ": ", m.note.c_str());
  }
}

void write_json(const Report& report, const std::string& path) {
  JsonWriter j;
  j.begin_object();
  j.begin_object("machine");
  j.field("space", report.machine.space).field("device", report.machine.device);
  j.field("cpu", report.machine.cpu).field("gpu", report.machine.gpu);
  j.field("cpu_cores", report.machine.cpu_cores).field("threads", report.machine.threads);
  j.field("kokkos_version", report.machine.kokkos_version).field("gustav_version", report.machine.gustav_version);
  j.field("date", report.machine.date);
  j.end_object();
  j.begin_array("products");
  for (const auto& r : report.products) {
    j.begin_object();
    j.field("name", r.name).field("error", r.error);
    j.field("rows", static_cast<long long>(r.rows)).field("cols", static_cast<long long>(r.cols));
    j.field("nnz_a", static_cast<long long>(r.nnz_a)).field("nnz_b", static_cast<long long>(r.nnz_b));
    j.field("products", static_cast<long long>(r.products)).field("nnz_c", static_cast<long long>(r.nnz_c));
    j.field("compressed", r.stats.compressed).field("compression_ratio", r.stats.compression_ratio);
    j.field("accumulator", r.stats.accumulator);
    j.field("write_rows", r.stats.write_rows);
    j.field("numeric_rows", r.stats.numeric_rows);
    // What Gustav's default plan holds for its repeats (part of its numeric
    // peak, not of the one-shot temp measured below).
    j.field("plan_masks_bytes", static_cast<long long>(r.stats.masks_bytes));
    j.field("plan_learned_positions_bytes", static_cast<long long>(r.stats.learned_positions_bytes));
    j.field("plan_learned_positions_team_rows", static_cast<long long>(r.stats.learned_positions_team_rows));
    j.field("plan_numeric_peak_temp_bytes", static_cast<long long>(r.stats.numeric_peak_temp_bytes));
    write_bins(j, "count_bins", r.stats.count_bins);
    write_bins(j, "fill_bins", r.stats.fill_bins);
    write_bins(j, "numeric_bins", r.stats.numeric_bins);
    j.begin_array("implementations");
    for (const auto& m : r.measurements) {
      j.begin_object();
      j.field("name", m.implementation).field("ran", m.ran).field("agrees", m.agrees);
      j.field("status", m.ran ? "ran" : m.failed ? "failed" : "skipped");
      j.field("trusted", m.trusted).field("note", m.note);
      j.field("nnz_c", static_cast<long long>(m.nnz_c));
      j.field("peak_temp_bytes", static_cast<long long>(m.peak_temp_bytes));
      write_times(j, "symbolic", m.symbolic, r.products);
      write_times(j, "numeric", m.numeric, r.products);
      write_times(j, "total", m.total, r.products);
      write_times(j, "reuse", m.reuse, r.products);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  std::ofstream out(path);
  if (!out) throw invalid_input("gustav bench: cannot write " + path);
  out << j.str() << "\n";
}

}  // namespace gustav::bench
