#pragma once
/// The operands of the multigrid products (R, A, P, P_tent) as the
/// implementation sees them, and the checks that name them. The SpGEMM
/// underneath calls its operands "A" and "B"; the checks here run first, so
/// a caller reads "P has 12 rows" rather than the name of an inner factor.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "gustav/csr.hpp"
#include "gustav/errors.hpp"
#include "gustav/options.hpp"
#include "gustav/spmv/operand.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// A CrsMatrix or a CsrRef, seen as a CsrRef (no copy).
template <class M>
auto operand_ref(const M& m) {
  static_assert(is_crs_matrix<M>::value || is_csr_ref<M>::value,
                "gustav: operands must be KokkosSparse::CrsMatrix objects or gustav::CsrRef views");
  if constexpr (is_crs_matrix<M>::value) {
    return make_csr_ref(m);
  } else {
    return m;
  }
}

template <class M>
using operand_ref_t = decltype(operand_ref(std::declval<const M&>()));

/// Results come back as the inputs came in, so the inputs of one call must
/// be all CrsMatrix or all CsrRef.
template <class... M>
constexpr bool all_crs_matrices = (is_crs_matrix<M>::value && ...);
template <class... M>
constexpr bool all_csr_refs = (is_csr_ref<M>::value && ...);

template <class... M>
constexpr void require_one_kind() {
  static_assert(all_crs_matrices<M...> || all_csr_refs<M...>,
                "gustav: pass every operand as a KokkosSparse::CrsMatrix, or every operand as a gustav::CsrRef");
}

/// "who: left has 10 columns but right has 12 rows".
inline void check_inner_dimension(const char* who, const char* left, std::int64_t left_cols, const char* right,
                                  std::int64_t right_rows) {
  if (left_cols == right_rows) return;
  std::ostringstream s;
  s << who << ": " << left << " has " << left_cols << " columns but " << right << " has " << right_rows << " rows";
  throw invalid_input(s.str());
}

inline void check_square(const char* who, const char* name, std::int64_t rows, std::int64_t cols) {
  if (rows == cols) return;
  std::ostringstream s;
  s << who << ": " << name << " must be square, it is " << rows << " x " << cols;
  throw invalid_input(s.str());
}

/// The structure checks of gustav::multiply for one named operand: O(1)
/// always, O(nnz) when `full` (SpgemmOptions::validate_indices).
template <class ExecSpace, class Ref>
void validate_operand(const ExecSpace& space, const Ref& m, const char* who, const char* name, bool need_values,
                      bool full) {
  validate_csr(space, operand_input<ExecSpace>(m), who, name, need_values, full);
}

/// The host-side half of the O(1) checks (view lengths only): numeric
/// calls run it before anything is launched, without waiting on `space`.
template <class Ref>
void check_operand_lengths(const Ref& m, const char* who, const char* name) {
  const auto rows = static_cast<std::int64_t>(m.num_rows);
  const auto row_map = static_cast<std::int64_t>(m.row_map.extent(0));
  const auto entries = static_cast<std::int64_t>(m.entries.extent(0));
  if (row_map != rows + 1 && !(rows == 0 && row_map == 0)) {
    std::ostringstream s;
    s << who << ": " << name << " has a row_map of length " << row_map << " but " << rows << " rows (expected "
      << rows + 1 << ")";
    throw invalid_input(s.str());
  }
  if (static_cast<std::int64_t>(m.values.extent(0)) != entries) {
    std::ostringstream s;
    s << who << ": " << name << " has " << m.values.extent(0) << " values but " << entries << " entries";
    throw invalid_input(s.str());
  }
}

/// Throws plan_mismatch unless `m` has the shape and nnz a plan recorded.
template <class Ref>
void check_operand_matches(const Ref& m, std::int64_t rows, std::int64_t cols, std::int64_t nnz, const char* who,
                           const char* name) {
  const auto m_rows = static_cast<std::int64_t>(m.num_rows);
  const auto m_cols = static_cast<std::int64_t>(m.num_cols);
  const auto m_nnz = static_cast<std::int64_t>(m.entries.extent(0));
  if (m_rows == rows && m_cols == cols && m_nnz == nnz) return;
  std::ostringstream s;
  s << who << ": " << name << " is " << m_rows << " x " << m_cols << " with " << m_nnz
    << " entries but the plan was built for " << rows << " x " << cols << " with " << nnz << " entries";
  throw plan_mismatch(s.str());
}

/// The inner SpGEMM calls skip the O(nnz) checks the caller's operands have
/// already had here.
inline SpgemmOptions without_index_checks(SpgemmOptions options) {
  options.validate_indices = false;
  return options;
}

}  // namespace gustav::detail
