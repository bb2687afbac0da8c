#pragma once
/// Checks that write_matrix_market makes before it creates a file, so that
/// an inconsistent HostCsr fails with a message instead of reading out of
/// bounds or producing a file the reader would refuse.
#include <cstdint>
#include <string>

#include "gustav/host_csr.hpp"
#include "gustav/io/source_error.hpp"

namespace gustav::detail {

/// O(rows + nnz): row_map has num_rows + 1 nondecreasing offsets from 0 to
/// nnz, values match entries, and every column index is in range.
template <class Scalar, class Ordinal, class Offset>
void check_writable(const HostCsr<Scalar, Ordinal, Offset>& A, const std::string& path) {
  const SourceName source{"gustav::write_matrix_market", path};
  const auto rows = static_cast<std::int64_t>(A.num_rows);
  const auto cols = static_cast<std::int64_t>(A.num_cols);
  if (rows < 0 || cols < 0) throw_invalid_input(source, 0, "negative matrix dimensions");
  if (static_cast<std::int64_t>(A.row_map.size()) != rows + 1)
    throw_invalid_input(source, 0,
                        "row_map has " + std::to_string(A.row_map.size()) + " offsets; a matrix of " +
                            std::to_string(rows) + " rows needs " + std::to_string(rows + 1));
  if (A.values.size() != A.entries.size())
    throw_invalid_input(source, 0,
                        "the matrix has " + std::to_string(A.entries.size()) + " column indices but " +
                            std::to_string(A.values.size()) + " values");
  if (A.row_map.front() != 0 || static_cast<std::int64_t>(A.row_map.back()) != A.nnz())
    throw_invalid_input(source, 0, "row_map must run from 0 to the number of entries, " + std::to_string(A.nnz()));
  for (std::size_t i = 0; i + 1 < A.row_map.size(); ++i)
    if (A.row_map[i + 1] < A.row_map[i])
      throw_invalid_input(source, 0, "row_map decreases at row " + std::to_string(i));
  for (std::size_t k = 0; k < A.entries.size(); ++k) {
    const auto col = static_cast<std::int64_t>(A.entries[k]);
    if (col < 0 || col >= cols)
      throw_invalid_input(source, 0,
                          "column index " + std::to_string(col) + " of entry " + std::to_string(k) +
                              " is out of range for a matrix of " + std::to_string(cols) + " columns");
  }
}

}  // namespace gustav::detail
