#pragma once
/// A cursor over Matrix Market text held in memory: it hands out the tokens
/// of one line at a time without copying, and keeps the file's 1-based line
/// number for error messages. Spaces, tabs and carriage returns separate
/// tokens, so CRLF files read exactly like LF files.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <system_error>

namespace gustav::detail {

class TextScanner {
 public:
  explicit TextScanner(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  bool at_end() const { return p_ == end_; }

  /// Bytes from the cursor to the end of the text.
  std::size_t bytes_left() const { return static_cast<std::size_t>(end_ - p_); }

  /// The line the cursor is on, counted from 1.
  std::int64_t line() const { return line_; }

  /// The number of the file's last line (a final '\n' does not open a new
  /// one); where "the file ends too early" errors point.
  std::int64_t last_line() const {
    std::int64_t lines = line_;
    for (const char* q = p_; q != end_; ++q) lines += (*q == '\n');
    const bool ends_with_newline = end_ != begin_ && end_[-1] == '\n';
    return ends_with_newline && lines > 1 ? lines - 1 : lines;
  }

  /// Moves over blanks (space, tab, carriage return) within the line.
  void skip_blanks() {
    while (p_ != end_ && is_blank(*p_)) ++p_;
  }

  /// True at the line's '\n' or the end of the text.
  bool at_line_end() const { return p_ == end_ || *p_ == '\n'; }

  /// The next blank-separated token of the current line, or an empty view at
  /// the line's end.
  std::string_view next_token() {
    skip_blanks();
    const char* start = p_;
    while (p_ != end_ && !is_blank(*p_) && *p_ != '\n') ++p_;
    return std::string_view(start, static_cast<std::size_t>(p_ - start));
  }

  /// Reads a plain decimal integer (digits after an optional '+') that ends
  /// at a blank or the line's end, and moves past it. Anything else (a minus
  /// sign, 19 digits or more, a stray character) returns false with the
  /// cursor at the token's start, for the caller to take the slow path
  /// through next_token(). Scanning and converting in one pass is what makes the
  /// entry loop fast: most of a Matrix Market file is indices.
  bool read_plain_integer(std::int64_t& value) {
    skip_blanks();
    const char* q = p_;
    if (q != end_ && *q == '+') ++q;
    const char* const digits = q;
    std::uint64_t x = 0;
    while (q != end_ && static_cast<unsigned char>(*q - '0') < 10) {
      x = 10 * x + static_cast<unsigned>(*q - '0');
      ++q;
    }
    if (q == digits || q - digits > 18 || !ends_token(q)) return false;
    value = static_cast<std::int64_t>(x);
    p_ = q;
    return true;
  }

  /// Reads a double that std::from_chars accepts (after an optional '+')
  /// and that ends at a blank or the line's end, and moves past it;
  /// otherwise returns false with the cursor at the token's start, like
  /// read_plain_integer.
  bool read_plain_real(double& value) {
    skip_blanks();
    const char* q = p_;
    if (end_ - q >= 2 && *q == '+' && q[1] != '-' && q[1] != '+') ++q;
    const auto [ptr, ec] = std::from_chars(q, end_, value);
    if (ec != std::errc() || ptr == q || !ends_token(ptr)) return false;
    p_ = ptr;
    return true;
  }

  /// Whatever is left on the current line, blanks at both ends removed.
  std::string_view rest_of_line() {
    skip_blanks();
    const char* start = p_;
    const char* stop = p_;
    while (p_ != end_ && *p_ != '\n') {
      if (!is_blank(*p_)) stop = p_ + 1;
      ++p_;
    }
    return std::string_view(start, static_cast<std::size_t>(stop - start));
  }

  /// Moves to the start of the next line.
  void next_line() {
    if (p_ == end_) return;
    // memchr is vectorised; the counting pass jumps over every value with it.
    const void* newline = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
    if (newline) {
      p_ = static_cast<const char*>(newline) + 1;
      ++line_;
    } else {
      p_ = end_;
    }
  }

  /// Moves over blank lines and comment lines ('%' as the first non-blank
  /// character); stops at the start of the next line with content, or at the
  /// end of the text (then returns false).
  bool skip_to_content() {
    while (p_ != end_) {
      const char* line_start = p_;
      skip_blanks();
      if (!at_line_end() && *p_ != '%') {
        p_ = line_start;
        return true;
      }
      next_line();
    }
    return false;
  }

 private:
  static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  bool ends_token(const char* q) const { return q == end_ || is_blank(*q) || *q == '\n'; }

  const char* begin_;
  const char* p_;
  const char* end_;
  std::int64_t line_ = 1;
};

}  // namespace gustav::detail
