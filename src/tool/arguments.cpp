#include "arguments.hpp"

#include <cerrno>
#include <cstdlib>

namespace gustav::tool {

Arguments::Arguments(int argc, char** argv, int first, const std::set<std::string>& flags,
                     const std::set<std::string>& valued) {
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a.substr(2), value;
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (flags.count(name)) {
        if (eq != std::string::npos) throw UsageError{"--" + name + " takes no value"};
        values_[name] = "1";
      } else if (valued.count(name)) {
        if (eq == std::string::npos) {
          if (i + 1 >= argc) throw UsageError{"--" + name + " needs a value"};
          value = argv[++i];
        }
        values_[name] = value;
      } else {
        throw UsageError{"unknown option " + a};
      }
    } else if (a == "-o") {
      if (i + 1 >= argc) throw UsageError{"-o needs a file name"};
      values_["output"] = argv[++i];
    } else if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      throw UsageError{"unknown option " + a};
    } else {
      positional_.push_back(a);
    }
  }
}

std::string Arguments::get(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long long Arguments::get_int(const std::string& name, long long fallback, long long min, long long max) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (errno != 0 || end == it->second.c_str() || *end != '\0' || v < min || v > max)
    throw UsageError{"--" + name + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], got '" + it->second + "'"};
  return v;
}

}  // namespace gustav::tool
