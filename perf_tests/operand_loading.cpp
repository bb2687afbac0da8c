#include "operand_loading.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "gustav/errors.hpp"
#include "gustav/matrix_market.hpp"

namespace gustav::bench {

namespace {

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

HostMatrix read_file(const std::string& path, Operands& o) {
  MatrixMarketInfo info;
  auto m = read_matrix_market<double, std::int64_t, std::int64_t>(path, &info);
  o.read_seconds += info.seconds;
  o.read_megabytes += static_cast<double>(info.bytes) / 1e6;
  return m;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool is_spec(const std::string& arg) { return !file_exists(arg) && arg.find(':') != std::string::npos; }

Operands load_operands(const std::string& first, const std::string& second) {
  Operands o;
  if (is_spec(first)) {
    auto p = generators::from_spec(first);
    o.name = p.name;
    o.A = std::move(p.A);
    o.B = std::move(p.B);
  } else {
    if (!file_exists(first)) throw invalid_input("gustav: no such file or spec: " + first);
    o.name = base_name(first);
    o.A = read_file(first, o);
    o.B = o.A;
  }
  if (!second.empty()) {
    if (is_spec(second)) {
      o.B = generators::from_spec(second).A;
      o.name += " * " + second;
    } else {
      if (!file_exists(second)) throw invalid_input("gustav: no such file or spec: " + second);
      o.B = read_file(second, o);
      o.name += " * " + base_name(second);
    }
  }
  return o;
}

Operands load_bench_operands(const std::string& item) {
  Operands o = load_operands(item, "");
  if (!is_spec(item) && o.A.num_rows != o.A.num_cols) {
    o.B = generators::transpose(o.A);
    o.name += " * T";
  }
  return o;
}

std::vector<std::string> largest_real_matrices(const std::string& shared_dir, int count) {
  const std::string dir = shared_dir + "/matrices";
  std::ifstream manifest(dir + "/MANIFEST.tsv");
  std::vector<std::pair<long long, std::string>> files;
  std::string line;
  std::getline(manifest, line);  // header
  while (std::getline(manifest, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    std::string f;
    while (std::getline(s, f, '\t')) fields.push_back(f);
    if (fields.size() < 8) continue;
    files.emplace_back(std::atoll(fields[7].c_str()), dir + "/" + fields[0]);
  }
  std::sort(files.rbegin(), files.rend());
  std::vector<std::string> out;
  for (int i = 0; i < count && i < static_cast<int>(files.size()); ++i) out.push_back(files[i].second);
  return out;
}

}  // namespace gustav::bench
