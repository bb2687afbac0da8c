#pragma once
/// The seam between the compiled Matrix Market reader and the templates of
/// include/gustav/matrix_market.hpp: the reader is compiled once and always
/// produces CSR with 64-bit indices and double values; the templates only
/// convert that to the caller's scalar, ordinal and offset types.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gustav {

struct MatrixMarketInfo;

namespace detail {

/// What the caller's HostCsr can hold. The reader checks it right after the
/// banner and size line (and again after symmetric expansion), so a file
/// that cannot fit fails before its entries are stored.
struct CsrLimits {
  bool complex_scalar = false;  ///< a complex file needs a complex Scalar
  std::int64_t max_ordinal = 0;  ///< largest row or column count
  std::int64_t max_offset = 0;   ///< largest number of entries
  int ordinal_bits = 0;          ///< for messages: "the 32-bit ordinal type"
  int offset_bits = 0;
};

/// A general CSR matrix: rows in order, each row's entries in file order,
/// duplicates kept, symmetric storage already expanded.
struct ParsedMatrix {
  std::int64_t num_rows = 0;
  std::int64_t num_cols = 0;
  std::vector<std::int64_t> row_map{0};
  std::vector<std::int64_t> entries;
  std::vector<double> real;  ///< empty for pattern files: every value is 1
  std::vector<double> imag;  ///< empty unless the file is complex
};

/// Reads a file (gzip-compressed when its name ends in .gz); messages start
/// with "gustav::read_matrix_market: <path>". Fills info's field, symmetry,
/// counts and bytes when info is not null; the caller times the call.
ParsedMatrix read_matrix_market_file(const std::string& path, const CsrLimits& limits, MatrixMarketInfo* info);

/// The same from text in memory; messages start with
/// "gustav::parse_matrix_market: <name>".
ParsedMatrix parse_matrix_market_text(std::string_view text, const std::string& name, const CsrLimits& limits,
                                      MatrixMarketInfo* info);

}  // namespace detail
}  // namespace gustav
