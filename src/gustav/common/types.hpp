#pragma once
/// The view types one multiplication works with, gathered in one place so
/// that every kernel spells them the same way.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace gustav::detail {

template <class ExecSpace, class Scalar, class Ordinal, class AOffset, class BOffset>
struct SpgemmTypes {
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using device_type = Kokkos::Device<ExecSpace, memory_space>;
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using a_offset_type = AOffset;
  using b_offset_type = BOffset;
  /// C takes A's offset type, as a CrsMatrix product of two equal types would.
  using c_offset_type = AOffset;

  template <class T>
  using view = Kokkos::View<T*, device_type>;

  using a_row_map = view<const AOffset>;
  using b_row_map = view<const BOffset>;
  using entries = view<const Ordinal>;
  using values = view<const Scalar>;
  using c_row_map = view<c_offset_type>;
  using c_entries = view<Ordinal>;
  using c_values = view<Scalar>;
};

/// One input matrix inside the implementation: dimensions plus const views.
template <class RowMap, class Entries, class Values>
struct CsrInput {
  std::int64_t num_rows = 0;
  std::int64_t num_cols = 0;
  RowMap row_map;
  Entries entries;
  Values values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(entries.extent(0)); }
};

/// The largest count an offset type holds, as an int64.
template <class Offset>
std::int64_t max_count_of() {
  const auto m = std::numeric_limits<Offset>::max();
  return static_cast<std::uint64_t>(m) > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             ? std::numeric_limits<std::int64_t>::max()
             : static_cast<std::int64_t>(m);
}

template <class Offset>
const char* offset_type_name() {
  if (std::is_same_v<Offset, int>) return "int";
  if (std::is_same_v<Offset, unsigned>) return "unsigned int";
  if (std::is_same_v<Offset, std::int64_t>) return "std::int64_t";
  if (std::is_same_v<Offset, std::size_t>) return "std::size_t";
  return "the offset type";
}

}  // namespace gustav::detail
