#pragma once
/// A CsrRef operand as the implementation sees it: a detail::CsrInput of
/// const views in the operand's own memory space (built with
/// detail::to_input, as gustav::multiply builds its operands). SpMV and the
/// transpose take their matrix this way.
#include <Kokkos_Core.hpp>

#include "gustav/common/types.hpp"
#include "gustav/csr.hpp"
#include "gustav/spgemm.hpp"  // detail::to_input

namespace gustav::detail {

template <class ExecSpace, class Ref>
struct OperandInput {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Ref::memory_space>::accessible,
                "gustav: the matrix must live in memory the execution space can access");
  using device = Kokkos::Device<ExecSpace, typename Ref::memory_space>;
  using type = CsrInput<Kokkos::View<const typename Ref::offset_type*, device>,
                        Kokkos::View<const typename Ref::ordinal_type*, device>,
                        Kokkos::View<const typename Ref::scalar_type*, device>>;
};

template <class ExecSpace, class Ref>
typename OperandInput<ExecSpace, Ref>::type operand_input(const Ref& r) {
  return to_input<typename OperandInput<ExecSpace, Ref>::type>(r);
}

}  // namespace gustav::detail
