#pragma once
/// Input checks at the API boundary. The O(1) checks always run; the O(nnz)
/// checks (monotone row map, column range) run when
/// SpgemmOptions::validate_indices is set.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "gustav/errors.hpp"

namespace gustav::detail {

/// Reads one element of a device view (a fence and a few bytes of copy).
template <class ExecSpace, class View>
std::int64_t read_element(const ExecSpace& space, const View& v, std::size_t i) {
  using T = std::remove_const_t<typename View::value_type>;
  T h{};
  space.fence();
  Kokkos::deep_copy(h, Kokkos::subview(v, i));
  return static_cast<std::int64_t>(h);
}

template <class RowMap>
struct FirstDecreasingRow {
  RowMap row_map;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& first) const {
    if (row_map(i + 1) < row_map(i) && i < first) first = i;
  }
};

template <class Entries>
struct FirstBadColumn {
  Entries entries;
  std::int64_t num_cols;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p, std::int64_t& first) const {
    const std::int64_t c = static_cast<std::int64_t>(entries(p));
    if ((c < 0 || c >= num_cols) && p < first) first = p;
  }
};

/// The row that holds entry position p (row_map(r) <= p < row_map(r+1)).
template <class RowMap>
struct RowOfPosition {
  RowMap row_map;
  std::int64_t position;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, std::int64_t& row) const {
    if (static_cast<std::int64_t>(row_map(r)) <= position &&
        position < static_cast<std::int64_t>(row_map(r + 1)) && r < row)
      row = r;
  }
};

/// The checks of one CSR operand that need no device access: dimensions,
/// row-map and values lengths. Returns false when the operand has no row
/// map (no rows, no entries), which is valid. Throws gustav::invalid_input.
template <class Input>
bool validate_csr_extents(const Input& m, const char* who, const char* name, bool need_values) {
  auto fail = [&](const std::string& what) {
    throw invalid_input(std::string(who) + ": " + name + " " + what);
  };
  if (m.num_rows < 0 || m.num_cols < 0) {
    std::ostringstream s;
    s << "has negative dimensions " << m.num_rows << " x " << m.num_cols;
    fail(s.str());
  }
  const auto rm_len = static_cast<std::int64_t>(m.row_map.extent(0));
  const std::int64_t nnz = m.nnz();
  if (rm_len != m.num_rows + 1 && !(m.num_rows == 0 && rm_len == 0)) {
    std::ostringstream s;
    s << "has a row_map of length " << rm_len << " but " << m.num_rows
      << " rows (expected " << m.num_rows + 1 << ")";
    fail(s.str());
  }
  if (need_values && static_cast<std::int64_t>(m.values.extent(0)) != nnz) {
    std::ostringstream s;
    s << "has " << m.values.extent(0) << " values but " << nnz << " entries";
    fail(s.str());
  }
  if (rm_len == 0) {
    if (nnz != 0) fail("has no row_map but " + std::to_string(nnz) + " entries");
    return false;
  }
  return true;
}

/// Whether two operands are the same arrays of the same shape, so that the
/// O(nnz) checks of one hold for the other.
template <class InputA, class InputB>
bool same_structure(const InputA& a, const InputB& b) {
  return a.num_rows == b.num_rows && a.num_cols == b.num_cols &&
         static_cast<const void*>(a.row_map.data()) == static_cast<const void*>(b.row_map.data()) &&
         a.row_map.extent(0) == b.row_map.extent(0) &&
         sizeof(typename decltype(a.row_map)::value_type) == sizeof(typename decltype(b.row_map)::value_type) &&
         static_cast<const void*>(a.entries.data()) == static_cast<const void*>(b.entries.data()) &&
         a.entries.extent(0) == b.entries.extent(0);
}

/// Checks one CSR operand. `who` is the API function ("gustav::multiply"),
/// `name` the operand ("A"). Throws gustav::invalid_input.
template <class ExecSpace, class Input>
void validate_csr(const ExecSpace& space, const Input& m, const char* who, const char* name,
                  bool need_values, bool full) {
  auto fail = [&](const std::string& what) {
    throw invalid_input(std::string(who) + ": " + name + " " + what);
  };
  if (!validate_csr_extents(m, who, name, need_values)) return;
  const auto rm_len = static_cast<std::int64_t>(m.row_map.extent(0));
  const std::int64_t nnz = m.nnz();
  const std::int64_t first = read_element(space, m.row_map, 0);
  const std::int64_t last = read_element(space, m.row_map, rm_len - 1);
  if (first != 0) fail("has a row_map starting at " + std::to_string(first) + ", not 0");
  if (last != nnz) {
    std::ostringstream s;
    s << "has a row_map ending at " << last << " but " << nnz << " entries";
    fail(s.str());
  }
  if (!full) return;

  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t bad_row = none;
  Kokkos::parallel_reduce("gustav::validate::row_map_monotone",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                              space, 0, m.num_rows),
                          FirstDecreasingRow<decltype(m.row_map)>{m.row_map},
                          Kokkos::Min<std::int64_t>(bad_row));
  if (bad_row != none) {
    std::ostringstream s;
    s << "has a decreasing row_map: row_map(" << bad_row + 1 << ") = "
      << read_element(space, m.row_map, bad_row + 1) << " < row_map(" << bad_row
      << ") = " << read_element(space, m.row_map, bad_row);
    fail(s.str());
  }
  std::int64_t bad_pos = none;
  Kokkos::parallel_reduce("gustav::validate::column_range",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                              space, 0, nnz),
                          FirstBadColumn<decltype(m.entries)>{m.entries, m.num_cols},
                          Kokkos::Min<std::int64_t>(bad_pos));
  if (bad_pos != none) {
    std::int64_t row = none;
    Kokkos::parallel_reduce("gustav::validate::row_of_entry",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                                space, 0, m.num_rows),
                            RowOfPosition<decltype(m.row_map)>{m.row_map, bad_pos},
                            Kokkos::Min<std::int64_t>(row));
    std::ostringstream s;
    s << "has column index " << read_element(space, m.entries, bad_pos) << " in row " << row
      << " (entry " << bad_pos << "), outside [0, " << m.num_cols << ")";
    fail(s.str());
  }
}

}  // namespace gustav::detail
