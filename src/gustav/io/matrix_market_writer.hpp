#pragma once
/// The compiled half of write_matrix_market: formats and buffers entries so
/// that the template in include/gustav/matrix_market.hpp only walks the
/// caller's CSR and hands each entry over.
#include <cstdint>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <string>
#include <vector>

namespace gustav::detail {

/// Significant digits that bring every value of type Real back bit for bit
/// through decimal text: 17 for double, 9 for float. Integer scalars are
/// written through double, so they get 17 too.
template <class Real>
constexpr int round_trip_digits() {
  if constexpr (std::is_floating_point_v<Real>)
    return std::numeric_limits<Real>::max_digits10 < 17 ? std::numeric_limits<Real>::max_digits10 : 17;
  else
    return 17;
}

/// Writes one `coordinate ... general` Matrix Market file. Values are
/// formatted with std::to_chars in the shortest "%.<digits>g" form; 17
/// significant digits bring every double back bit for bit, 9 every float.
class MatrixMarketWriter {
 public:
  /// Opens `path` and writes the banner and size line; throws invalid_input
  /// when the file cannot be created.
  MatrixMarketWriter(const std::string& path, bool complex, std::int64_t rows, std::int64_t cols, std::int64_t entries,
                     int significant_digits);
  /// Closes the file if finish() was not reached (an exception is on its way).
  ~MatrixMarketWriter();
  MatrixMarketWriter(const MatrixMarketWriter&) = delete;
  MatrixMarketWriter& operator=(const MatrixMarketWriter&) = delete;

  /// Adds an entry of a real file; row and col are 0-based.
  void add(std::int64_t row, std::int64_t col, double value);
  /// Adds an entry of a complex file; row and col are 0-based.
  void add(std::int64_t row, std::int64_t col, double real, double imag);

  /// Flushes and closes the file; throws invalid_input if any write failed
  /// (a full disk, say).
  void finish();

 private:
  void append_index(std::int64_t index);
  void append_value(double value);
  void make_room();
  void flush();

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  int digits_;
  int write_errno_ = 0;  ///< the first failed write's errno
};

}  // namespace gustav::detail
