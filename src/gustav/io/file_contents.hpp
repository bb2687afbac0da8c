#pragma once
/// A whole file in memory at once, the first step of reading a Matrix
/// Market file: parsing text that is already in memory is what lets the
/// reader keep up with the disk.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gustav/io/source_error.hpp"

namespace gustav::detail {

/// The bytes of a file. Regular files are memory-mapped (read-only, with
/// sequential read-ahead), which spares copying them and clearing fresh
/// memory for them, and lets the disk work while the parser does;
/// compressed files, pipes and systems without mmap get a buffer. A mapped
/// file that another process truncates while it is read raises SIGBUS, as
/// with any mapped file.
class FileContents {
 public:
  /// Reads `path`, decompressing it when the name ends in ".gz" and the
  /// build has zlib (otherwise throws invalid_input saying so). Throws
  /// invalid_input when the file cannot be opened or read, or is not valid
  /// gzip data.
  FileContents(const std::string& path, const SourceName& source);
  ~FileContents();
  FileContents(const FileContents&) = delete;
  FileContents& operator=(const FileContents&) = delete;

  std::string_view text() const { return text_; }

  /// What was read from disk: the compressed size for .gz files.
  std::int64_t bytes_on_disk() const { return bytes_on_disk_; }

 private:
  std::string buffer_;  ///< holds the text unless it is mapped
  void* mapping_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  std::string_view text_;
  std::int64_t bytes_on_disk_ = 0;
};

/// Whether this build was linked with zlib and so reads .gz files.
bool gzip_supported();

}  // namespace gustav::detail
