#pragma once
// Command-line parsing for the gustav tool: positional arguments and
// --name value / --flag options, with errors that say what was wrong.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gustav::tool {

class Arguments {
 public:
  /// `flags` take no value; `valued` take one. Anything else is an error.
  Arguments(int argc, char** argv, int first, const std::set<std::string>& flags,
            const std::set<std::string>& valued);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  long long get_int(const std::string& name, long long fallback, long long min, long long max) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

/// A usage error: printed with the command's usage, exit code 2.
struct UsageError {
  std::string message;
};

}  // namespace gustav::tool
