#pragma once
/// Keeps Kokkos' OpenMP backend from printing its thread-binding advice in
/// programs whose users did not set OMP_PROC_BIND, without hiding what the
/// threads really do.
#include <Kokkos_Core.hpp>
#include <cstdlib>
#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#endif

namespace gustav {

/// Call before `Kokkos::initialize`. Where OMP_PROC_BIND is unset, sets it to
/// the binding the OpenMP runtime already applies: the runtime reads its
/// environment when the program is loaded, so a value chosen now could not
/// bind a thread, only misreport. Without OMP_PLACES that is "false"
/// (threads unbound, which suits machines shared with other work); with
/// OMP_PLACES alone, the runtime's default for places ("true" in GNU's and
/// LLVM's). A user's own OMP_PROC_BIND is left as it is. Does nothing in
/// builds without OpenMP.
inline void name_openmp_binding() {
#if defined(KOKKOS_ENABLE_OPENMP)
  if (std::getenv("OMP_PROC_BIND")) return;
  // omp_proc_bind_t: false, true, primary (master), close, spread.
  const char* const names[] = {"false", "true", "master", "close", "spread"};
  const int bind = static_cast<int>(omp_get_proc_bind());
  setenv("OMP_PROC_BIND", bind >= 0 && bind < 5 ? names[bind] : "true", 0);
#endif
}

}  // namespace gustav
