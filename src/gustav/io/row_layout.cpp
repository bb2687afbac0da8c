/// Counting pass of the Matrix Market reader.
#include "gustav/io/row_layout.hpp"

#include <cstddef>
#include <string_view>

#include "gustav/io/entry_fields.hpp"

namespace gustav::detail {

std::vector<std::int64_t> count_row_layout(TextScanner scanner, const Header& header) {
  const bool mirror = header.symmetry != Symmetry::general;
  // row_map[i + 1] counts row i; the 1-based file index lands there as is.
  std::vector<std::int64_t> row_map(static_cast<std::size_t>(header.rows) + 1, 0);
  std::int64_t stored = 0;
  while (stored < header.entries && scanner.skip_to_content()) {
    // Counting a line the placing pass will reject is harmless (it throws
    // before using the layout); missing one it accepts is not. So the row
    // alone decides, and the column only where it adds a mirror.
    std::int64_t row = 0;
    std::int64_t col = 0;
    std::string_view token;
    if (read_integer_field(scanner, row, token) && row >= 1 && row <= header.rows) {
      ++row_map[static_cast<std::size_t>(row)];
      if (mirror && read_integer_field(scanner, col, token) && col >= 1 && col <= header.cols && row != col)
        ++row_map[static_cast<std::size_t>(col)];
    }
    ++stored;
    scanner.next_line();
  }
  for (std::size_t i = 1; i < row_map.size(); ++i) row_map[i] += row_map[i - 1];
  return row_map;
}

}  // namespace gustav::detail
