/// Whole-file reads: memory-mapped, buffered, or gzip-compressed.
#include "gustav/io/file_contents.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#if defined(__unix__) || defined(__APPLE__)
#define GUSTAV_IO_HAVE_MMAP 1
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#if defined(GUSTAV_HAVE_ZLIB)
#include <zlib.h>
#endif

namespace gustav::detail {

namespace {

bool has_gzip_suffix(const std::string& path) {
  return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

/// Reads chunks through `read(buffer, capacity) -> bytes, 0 at the end, or
/// -1` into `text`, growing it by doubling; returns the total or -1.
template <class ReadChunk>
long long read_all(std::string& text, std::size_t initial_capacity, ReadChunk read) {
  std::size_t used = 0;
  text.resize(std::max<std::size_t>(initial_capacity, 1 << 16));
  for (;;) {
    if (used == text.size()) text.resize(2 * text.size());
    const long long got = read(&text[used], text.size() - used);
    if (got < 0) return -1;
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  text.resize(used);
  return static_cast<long long>(used);
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

/// The buffered read, for what cannot be mapped. `size_hint` is the size
/// the file claims (0 for a pipe); one byte more spares growing the buffer
/// for the read that sees the end.
std::int64_t read_buffered(const std::string& path, std::size_t size_hint, std::string& text,
                           const SourceName& source) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw_invalid_input(source, 0, std::string("cannot open: ") + std::strerror(errno));
  const long long got = read_all(text, size_hint + 1, [&](char* buffer, std::size_t capacity) {
    const std::size_t n = std::fread(buffer, 1, capacity, file.get());
    return std::ferror(file.get()) ? -1LL : static_cast<long long>(n);
  });
  if (got < 0) throw_invalid_input(source, 0, std::string("cannot read: ") + std::strerror(errno));
  return got;
}

#if defined(GUSTAV_HAVE_ZLIB)
struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

void read_gzip(const std::string& path, std::string& text, const SourceName& source) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw_invalid_input(source, 0, std::string("cannot open: ") + std::strerror(errno));
  gzbuffer(file.get(), 1 << 18);
  const long long got = read_all(text, 1 << 20, [&](char* buffer, std::size_t capacity) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(capacity, 1u << 30));
    return static_cast<long long>(gzread(file.get(), buffer, chunk));
  });
  // A truncated stream ends the reads without an error return; gzerror then
  // reports Z_BUF_ERROR ("unexpected end of file").
  int code = Z_OK;
  const char* reason = gzerror(file.get(), &code);
  if (got < 0 || code != Z_OK) {
    // zlib prefixes its message with the path, which ours already names.
    std::string why = code == Z_ERRNO ? std::strerror(errno) : reason;
    const std::string prefix = path + ": ";
    if (why.compare(0, prefix.size(), prefix) == 0) why.erase(0, prefix.size());
    throw_invalid_input(source, 0, "cannot decompress: " + why);
  }
}
#endif

}  // namespace

bool gzip_supported() {
#if defined(GUSTAV_HAVE_ZLIB)
  return true;
#else
  return false;
#endif
}

FileContents::FileContents(const std::string& path, const SourceName& source) {
  if (has_gzip_suffix(path)) {
#if defined(GUSTAV_HAVE_ZLIB)
    read_gzip(path, buffer_, source);
    text_ = buffer_;
    std::error_code error;
    const auto compressed = std::filesystem::file_size(path, error);
    bytes_on_disk_ = error ? 0 : static_cast<std::int64_t>(compressed);
    return;
#else
    throw_invalid_input(source, 0, "this build of Gustav has no zlib and cannot read .gz files; decompress it first");
#endif
  }

  std::size_t size_hint = 0;
#if defined(GUSTAV_IO_HAVE_MMAP)
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw_invalid_input(source, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat status {};
  const bool regular = ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode);
  if (regular && status.st_size > 0) {
    size_hint = static_cast<std::size_t>(status.st_size);
    // No MAP_POPULATE: with sequential read-ahead the kernel reads the file
    // while the parser works through the part already there, which on a
    // cold file is faster than loading it all first.
    void* mapping = ::mmap(nullptr, size_hint, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping != MAP_FAILED) {
      ::madvise(mapping, size_hint, MADV_SEQUENTIAL);
      mapping_ = mapping;
      mapped_bytes_ = size_hint;
      text_ = std::string_view(static_cast<const char*>(mapping), size_hint);
      bytes_on_disk_ = static_cast<std::int64_t>(size_hint);
    }
  }
  ::close(fd);
  if (mapping_) return;
#endif
  // Unmappable (a pipe, an empty file, a directory, a failed mmap): read it.
  bytes_on_disk_ = read_buffered(path, size_hint, buffer_, source);
  text_ = buffer_;
}

FileContents::~FileContents() {
#if defined(GUSTAV_IO_HAVE_MMAP)
  if (mapping_) ::munmap(mapping_, mapped_bytes_);
#endif
}

}  // namespace gustav::detail
