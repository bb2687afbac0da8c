/// Builds and throws the reader's and writer's error messages.
#include "gustav/io/source_error.hpp"

#include "gustav/errors.hpp"

namespace gustav::detail {

namespace {

std::string locate(const SourceName& source, std::int64_t line, const std::string& reason) {
  std::string message = source.function + ": " + source.name;
  if (line > 0) message += ":" + std::to_string(line);
  return message + ": " + reason;
}

}  // namespace

void throw_invalid_input(const SourceName& source, std::int64_t line, const std::string& reason) {
  throw invalid_input(locate(source, line, reason));
}

void throw_overflow(const SourceName& source, std::int64_t line, const std::string& reason) {
  throw overflow_error(locate(source, line, reason));
}

void throw_allocation(const SourceName& source, std::int64_t line, const std::string& reason) {
  throw allocation_error(locate(source, line, reason));
}

}  // namespace gustav::detail
