#pragma once
/// CSR matrices as Gustav takes and returns them: either a
/// `KokkosSparse::CrsMatrix` or raw `row_map / entries / values` views.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <type_traits>

namespace gustav {

/// A non-owning description of a CSR matrix held in rank-1 Kokkos views of one
/// memory space. `row_map` has num_rows + 1 entries starting at 0; row i's
/// column indices are entries(row_map(i)) .. entries(row_map(i+1) - 1), in any
/// order, duplicates allowed (they are summed).
template <class RowMap, class Entries, class Values>
struct CsrRef {
  using row_map_view = RowMap;
  using entries_view = Entries;
  using values_view = Values;
  using offset_type = std::remove_const_t<typename RowMap::value_type>;
  using ordinal_type = std::remove_const_t<typename Entries::value_type>;
  using scalar_type = std::remove_const_t<typename Values::value_type>;
  using memory_space = typename Entries::memory_space;

  ordinal_type num_rows = 0;
  ordinal_type num_cols = 0;
  RowMap row_map;
  Entries entries;
  Values values;
};

/// Wraps raw views as a CsrRef. Dimensions are explicit because a matrix may
/// have empty trailing columns that no entry reveals.
template <class RowMap, class Entries, class Values>
CsrRef<RowMap, Entries, Values> make_csr_ref(
    typename CsrRef<RowMap, Entries, Values>::ordinal_type num_rows,
    typename CsrRef<RowMap, Entries, Values>::ordinal_type num_cols, const RowMap& row_map,
    const Entries& entries, const Values& values) {
  static_assert(RowMap::rank == 1 && Entries::rank == 1 && Values::rank == 1,
                "gustav: CSR views must be rank 1");
  static_assert(std::is_integral_v<typename CsrRef<RowMap, Entries, Values>::offset_type>,
                "gustav: row_map must hold integers");
  static_assert(std::is_integral_v<typename CsrRef<RowMap, Entries, Values>::ordinal_type> &&
                    std::is_signed_v<typename CsrRef<RowMap, Entries, Values>::ordinal_type>,
                "gustav: entries must hold signed integers (int or int64_t)");
  return {num_rows, num_cols, row_map, entries, values};
}

/// Views a `KokkosSparse::CrsMatrix` as a CsrRef (no copy).
template <class Scalar, class Ordinal, class Device, class MemoryTraits, class Offset>
auto make_csr_ref(const KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, MemoryTraits, Offset>& A) {
  return make_csr_ref(A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries, A.values);
}

/// Owning CSR result for callers that pass raw views.
template <class Scalar, class Ordinal, class Offset, class MemorySpace>
struct CsrViews {
  Ordinal num_rows = 0;
  Ordinal num_cols = 0;
  Kokkos::View<Offset*, MemorySpace> row_map;
  Kokkos::View<Ordinal*, MemorySpace> entries;
  Kokkos::View<Scalar*, MemorySpace> values;
};

namespace detail {
template <class T>
struct is_crs_matrix : std::false_type {};
template <class S, class O, class D, class M, class Z>
struct is_crs_matrix<KokkosSparse::CrsMatrix<S, O, D, M, Z>> : std::true_type {};
template <class T>
struct is_csr_ref : std::false_type {};
template <class R, class E, class V>
struct is_csr_ref<CsrRef<R, E, V>> : std::true_type {};
}  // namespace detail

}  // namespace gustav
