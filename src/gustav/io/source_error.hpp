#pragma once
/// Error messages of the Matrix Market reader and writer. Every message reads
/// "<function>: <file>:<line>: <reason>", the function first as everywhere in
/// Gustav, then the place in the compiler's style so that editors can jump to
/// it. Line numbers are the file's own, counted from 1.
#include <cstdint>
#include <string>

namespace gustav::detail {

/// The function a message comes from ("gustav::read_matrix_market") and the
/// file (or in-memory name) it is about.
struct SourceName {
  std::string function;
  std::string name;
};

/// Throws gustav::invalid_input. `line` 0 means the fault concerns the whole
/// file (it cannot be opened, say), and the message names no line.
[[noreturn]] void throw_invalid_input(const SourceName& source, std::int64_t line, const std::string& reason);

/// Throws gustav::overflow_error, with the same message layout.
[[noreturn]] void throw_overflow(const SourceName& source, std::int64_t line, const std::string& reason);

/// Throws gustav::allocation_error, with the same message layout.
[[noreturn]] void throw_allocation(const SourceName& source, std::int64_t line, const std::string& reason);

}  // namespace gustav::detail
