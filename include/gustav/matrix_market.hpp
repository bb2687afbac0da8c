#pragma once
/// Matrix Market (https://math.nist.gov/MatrixMarket/formats.html) input and
/// output for HostCsr. The parser is compiled into the gustav library
/// (src/gustav/io/) and always produces 64-bit indices and double values;
/// the templates here convert to the requested types. All of it is host code.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "gustav/io/convert_parsed.hpp"
#include "gustav/io/matrix_market_writer.hpp"
#include "gustav/io/parsed_matrix.hpp"
#include "gustav/io/write_checks.hpp"

namespace gustav {

/// What a read found, for logs and benchmarks.
struct MatrixMarketInfo {
  std::string field;                ///< "real" (also for files that say "double"), "integer", "pattern" or "complex"
  std::string symmetry;             ///< "general", "symmetric", "skew-symmetric" or "hermitian"
  std::int64_t rows = 0;            ///< from the size line
  std::int64_t cols = 0;            ///< from the size line
  std::int64_t stored_entries = 0;  ///< entries in the file, before symmetric expansion
  std::int64_t bytes = 0;           ///< bytes read from disk (the compressed size for .gz; the text's size for parse_matrix_market)
  double seconds = 0;               ///< wall time of the whole call: read, parse, CSR assembly and conversion
};

/// Reads a `coordinate` Matrix Market file into a general CSR matrix.
///
/// Symmetric, skew-symmetric and hermitian storage is expanded: each
/// off-diagonal entry (i, j) gains its mirror (j, i), negated for
/// skew-symmetric and conjugated for hermitian files. Either triangle may be
/// stored, not both. Pattern entries get the value 1 (a value column, which
/// some pattern files carry anyway, is ignored); integer values are
/// converted to Scalar. Rows come out in order, each row's entries in file
/// order (a mirror right after its original); duplicate entries are kept,
/// for the caller to sum. Banner words are case-insensitive; comment lines,
/// blank lines, CRLF line ends and extra spaces or tabs are accepted, and
/// "double" is read as "real".
///
/// Files whose name ends in .gz are decompressed when the library was built
/// with zlib (see matrix_market_reads_gzip()).
///
/// The whole file is mapped into memory (or, for .gz, decompressed into
/// it) and parsed in two passes: one counts the entries of each row, the
/// other puts every entry straight into its CSR slot. Besides the file,
/// memory peaks at 16 bytes per row plus 16 bytes per entry after
/// expansion (24 for complex files), plus the result when the requested
/// types are not int64 / double.
///
/// @throws invalid_input "gustav::read_matrix_market: <path>:<line>: <reason>"
///   (line is the file's own, from 1) for a missing or bad banner, `array`
///   format, an unknown field or symmetry, a bad size line, a symmetric
///   matrix that is not square, too few or too many entries, an entry line
///   with fields missing or text after its last one, an index outside
///   1..rows or 1..cols, a number that does not parse, a complex
///   file read into a real Scalar, a nonzero diagonal entry in a
///   skew-symmetric file, or both triangles stored in a symmetric one;
///   "gustav::read_matrix_market: <path>: <reason>" when the file cannot be
///   opened, read or decompressed.
/// @throws overflow_error (same message layout, pointing at the size line)
///   when the dimensions do not fit Ordinal or the entries, after expansion,
///   do not fit Offset.
template <class Scalar = double, class Ordinal = int, class Offset = std::int64_t>
HostCsr<Scalar, Ordinal, Offset> read_matrix_market(const std::string& path, MatrixMarketInfo* info = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  auto A = detail::convert_parsed<Scalar, Ordinal, Offset>(
      detail::read_matrix_market_file(path, detail::csr_limits<Scalar, Ordinal, Offset>(), info));
  if (info) info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return A;
}

/// Same as read_matrix_market, from Matrix Market text in memory; `name`
/// stands for the path in messages
/// ("gustav::parse_matrix_market: <name>:<line>: <reason>").
template <class Scalar = double, class Ordinal = int, class Offset = std::int64_t>
HostCsr<Scalar, Ordinal, Offset> parse_matrix_market(const std::string& text, const std::string& name = "<string>",
                                                     MatrixMarketInfo* info = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  auto A = detail::convert_parsed<Scalar, Ordinal, Offset>(
      detail::parse_matrix_market_text(text, name, detail::csr_limits<Scalar, Ordinal, Offset>(), info));
  if (info) info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return A;
}

/// Writes A as `coordinate real general` (`coordinate complex general` for
/// Kokkos::complex scalars), 1-based, row by row in CSR order. Values carry
/// the digits that bring them back bit for bit (17 significant digits for
/// double, 9 for float), so read_matrix_market of the file gives A again
/// (explicit zeros and duplicates included; NaN payloads are not kept).
///
/// @throws invalid_input "gustav::write_matrix_market: <path>: <reason>"
///   when A is inconsistent (row_map size or bounds, values count, a column
///   outside 0..num_cols-1), checked before the file is created, or when the
///   file cannot be created or written.
template <class Scalar, class Ordinal, class Offset>
void write_matrix_market(const std::string& path, const HostCsr<Scalar, Ordinal, Offset>& A) {
  detail::check_writable(A, path);
  using Real = typename detail::real_part_type<Scalar>::type;
  constexpr bool complex = detail::is_complex_scalar_v<Scalar>;
  detail::MatrixMarketWriter writer(path, complex, static_cast<std::int64_t>(A.num_rows),
                                    static_cast<std::int64_t>(A.num_cols), A.nnz(),
                                    detail::round_trip_digits<Real>());
  const auto rows = static_cast<std::size_t>(A.num_rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const auto end = static_cast<std::size_t>(A.row_map[i + 1]);
    for (auto k = static_cast<std::size_t>(A.row_map[i]); k < end; ++k) {
      const auto row = static_cast<std::int64_t>(i);
      const auto col = static_cast<std::int64_t>(A.entries[k]);
      if constexpr (complex)
        writer.add(row, col, static_cast<double>(A.values[k].real()), static_cast<double>(A.values[k].imag()));
      else
        writer.add(row, col, static_cast<double>(A.values[k]));
    }
  }
  writer.finish();
}

/// True when this build of the library reads gzip-compressed (.gz) files.
bool matrix_market_reads_gzip();

}  // namespace gustav
