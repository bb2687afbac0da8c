/// Buffered, locale-free Matrix Market output.
#include "gustav/io/matrix_market_writer.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>

#include "gustav/io/source_error.hpp"

namespace gustav::detail {

namespace {

SourceName writer_source(const std::string& path) { return {"gustav::write_matrix_market", path}; }

constexpr std::size_t buffer_bytes = 1 << 20;
/// Room for the longest entry line: two 20-digit indices, two 24-character
/// values ("-2.2250738585072014e-308"), separators and the newline.
constexpr std::size_t longest_line = 128;

}  // namespace

MatrixMarketWriter::MatrixMarketWriter(const std::string& path, bool complex, std::int64_t rows, std::int64_t cols,
                                       std::int64_t entries, int significant_digits)
    : path_(path), buffer_(buffer_bytes), digits_(significant_digits) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw_invalid_input(writer_source(path_), 0, std::string("cannot create: ") + std::strerror(errno));
  const std::string header = std::string("%%MatrixMarket matrix coordinate ") + (complex ? "complex" : "real") +
                             " general\n" + std::to_string(rows) + " " + std::to_string(cols) + " " +
                             std::to_string(entries) + "\n";
  std::memcpy(buffer_.data(), header.data(), header.size());
  used_ = header.size();
}

MatrixMarketWriter::~MatrixMarketWriter() {
  if (file_) std::fclose(file_);
}

void MatrixMarketWriter::add(std::int64_t row, std::int64_t col, double value) {
  make_room();
  append_index(row + 1);
  buffer_[used_++] = ' ';
  append_index(col + 1);
  buffer_[used_++] = ' ';
  append_value(value);
  buffer_[used_++] = '\n';
}

void MatrixMarketWriter::add(std::int64_t row, std::int64_t col, double real, double imag) {
  make_room();
  append_index(row + 1);
  buffer_[used_++] = ' ';
  append_index(col + 1);
  buffer_[used_++] = ' ';
  append_value(real);
  buffer_[used_++] = ' ';
  append_value(imag);
  buffer_[used_++] = '\n';
}

void MatrixMarketWriter::finish() {
  flush();
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (close_failed && write_errno_ == 0) write_errno_ = errno != 0 ? errno : EIO;
  if (write_errno_ != 0)
    throw_invalid_input(writer_source(path_), 0, std::string("cannot write: ") + std::strerror(write_errno_));
}

void MatrixMarketWriter::append_index(std::int64_t index) {
  char* const first = buffer_.data() + used_;
  used_ += static_cast<std::size_t>(std::to_chars(first, first + 24, index).ptr - first);
}

void MatrixMarketWriter::append_value(double value) {
  char* const first = buffer_.data() + used_;
  const auto written = std::to_chars(first, first + 32, value, std::chars_format::general, digits_);
  used_ += static_cast<std::size_t>(written.ptr - first);
}

void MatrixMarketWriter::make_room() {
  if (buffer_.size() - used_ < longest_line) flush();
}

void MatrixMarketWriter::flush() {
  // Remember the first failure's reason; later writes may fail for another.
  if (used_ > 0 && std::fwrite(buffer_.data(), 1, used_, file_) != used_ && write_errno_ == 0)
    write_errno_ = errno != 0 ? errno : EIO;
  used_ = 0;
}

}  // namespace gustav::detail
