#pragma once
/// Kernels raise error bits in a device flag; the host reads it once per pass
/// and throws the matching exception, so no bad state passes silently.
#include <Kokkos_Core.hpp>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"
#include "gustav/spgemm/row_context.hpp"

namespace gustav::detail {

template <class Device, class ExecSpace>
Kokkos::View<int, Device> make_error_flag(const ExecSpace& space, const std::string& label) {
  try {
    return Kokkos::View<int, Device>(Kokkos::view_alloc(space, label));
  } catch (const std::exception& e) {
    throw allocation_error(label + ": could not allocate the error flag: " + e.what());
  }
}

/// Throws the exception for the first of the kernel error bits that is set
/// (malformed inputs are reported by the caller, which can name the fault).
inline void raise_error_bits(int bits, const std::string& who) {
  if (bits & error_structure_changed)
    throw plan_mismatch(who +
                        ": a product of A and B falls outside the structure of C that the plan was "
                        "built for: the structure of A or B changed after gustav::symbolic");
  if (bits & error_structure_differs)
    throw plan_mismatch(who +
                        ": the structure of A or B differs from the one gustav::symbolic saw; a plan that "
                        "keeps product positions or its entries' masks (SpgemmOptions::keep_product_positions, "
                        "keep_entry_masks) needs both unchanged");
  if (bits & error_row_count_overflow)
    throw overflow_error(who + ": a row of C has more entries than the offset type can count; "
                               "use 64-bit offsets (std::int64_t)");
  if (bits & error_table_full)
    throw internal_error(who + ": an accumulator table overflowed its sizing (a Gustav bug)");
}

template <class ExecSpace, class Flag>
void raise_kernel_errors(const ExecSpace& space, const Flag& flag, const std::string& who) {
  int bits = 0;
  space.fence();
  Kokkos::deep_copy(bits, flag);
  raise_error_bits(bits, who);
}

}  // namespace gustav::detail
