#pragma once
/// The 64-bit fingerprint of a rank's blocks of A and B (row maps and column
/// indices), the one the numeric phase's kept products use
/// (validation/structure_fingerprint.hpp): a numeric-only repeat checks with
/// it that the blocks still have the structure the plan moved and renumbered.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/spgemm/kernel_errors.hpp"
#include "gustav/validation/structure_fingerprint.hpp"

namespace gustav::distributed::detail {

template <class ExecSpace, class MA, class MB>
std::uint64_t structure_digest(const ExecSpace& space, const MA& A, const MB& B) {
  using Device = Kokkos::Device<ExecSpace, typename ExecSpace::memory_space>;
  Kokkos::View<std::uint64_t*, Device> parts(Kokkos::view_alloc(space, "gustav::distributed::fingerprint_parts"),
                                             gustav::detail::fingerprint_parts_length(space));
  Kokkos::View<std::uint64_t, Device> out(Kokkos::view_alloc(space, "gustav::distributed::fingerprint"));
  const auto errors = gustav::detail::make_error_flag<Device>(space, "gustav::distributed::fingerprint_errors");
  return gustav::detail::structure_fingerprint(space, csr_input(A), csr_input(B), parts, out, errors);
}

}  // namespace gustav::distributed::detail
