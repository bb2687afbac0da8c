#pragma once
/// A plain host CSR matrix (std::vector storage), the currency of the Matrix
/// Market reader and the generators, and converters to and from
/// `KokkosSparse::CrsMatrix` on any device.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace gustav {

template <class Scalar, class Ordinal = int, class Offset = std::int64_t>
struct HostCsr {
  using scalar_type = Scalar;
  using ordinal_type = Ordinal;
  using offset_type = Offset;

  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  std::vector<Offset> row_map{0};  ///< num_rows + 1 offsets
  std::vector<Ordinal> entries;
  std::vector<Scalar> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(entries.size()); }
};

/// Copies a host CSR matrix into a CrsMatrix on `space`'s memory (labelled
/// `label`), converting index and scalar types.
template <class Matrix, class ExecSpace, class S, class O, class Z>
Matrix to_crs(const ExecSpace& space, const HostCsr<S, O, Z>& h, const std::string& label = "gustav::matrix") {
  using RowMap = typename Matrix::row_map_type::non_const_type;
  using Entries = typename Matrix::index_type::non_const_type;
  using Values = typename Matrix::values_type::non_const_type;
  RowMap row_map(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::row_map"), h.row_map.size());
  Entries entries(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::entries"), h.entries.size());
  Values values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label + "::values"), h.values.size());
  auto hr = Kokkos::create_mirror_view(row_map);
  auto he = Kokkos::create_mirror_view(entries);
  auto hv = Kokkos::create_mirror_view(values);
  for (std::size_t i = 0; i < h.row_map.size(); ++i) hr(i) = static_cast<typename RowMap::value_type>(h.row_map[i]);
  for (std::size_t i = 0; i < h.entries.size(); ++i) he(i) = static_cast<typename Entries::value_type>(h.entries[i]);
  for (std::size_t i = 0; i < h.values.size(); ++i) hv(i) = static_cast<typename Values::value_type>(h.values[i]);
  Kokkos::deep_copy(space, row_map, hr);
  Kokkos::deep_copy(space, entries, he);
  Kokkos::deep_copy(space, values, hv);
  space.fence();
  return Matrix(label, static_cast<typename Matrix::ordinal_type>(h.num_rows),
                static_cast<typename Matrix::ordinal_type>(h.num_cols),
                static_cast<typename Matrix::size_type>(h.entries.size()), values, row_map, entries);
}

/// Copies any CrsMatrix back to a host CSR matrix.
template <class S, class O, class Z, class Matrix>
HostCsr<S, O, Z> to_host_csr(const Matrix& A) {
  HostCsr<S, O, Z> h;
  h.num_rows = static_cast<O>(A.numRows());
  h.num_cols = static_cast<O>(A.numCols());
  auto hr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.row_map);
  auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.graph.entries);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values);
  h.row_map.assign(hr.extent(0) > 0 ? hr.extent(0) : 1, Z(0));
  for (std::size_t i = 0; i < hr.extent(0); ++i) h.row_map[i] = static_cast<Z>(hr(i));
  h.entries.resize(he.extent(0));
  for (std::size_t i = 0; i < he.extent(0); ++i) h.entries[i] = static_cast<O>(he(i));
  h.values.resize(hv.extent(0));
  for (std::size_t i = 0; i < hv.extent(0); ++i) h.values[i] = static_cast<S>(hv(i));
  return h;
}

}  // namespace gustav
