#pragma once
// Times Kokkos Kernels' own SpGEMM (its default SPGEMM_KK, KKMEM, KKSPEED)
// the same way as Gustav: symbolic, numeric (each with its allocations) and
// numeric reuse with the handle kept. From 4.0 on its numeric phase also
// sorts C's rows (3.4.1 leaves them unsorted), so that is part of its time.
#include <Kokkos_Core.hpp>
#include <KokkosKernels_Handle.hpp>
#include <KokkosSparse_spgemm_numeric.hpp>
#include <KokkosSparse_spgemm_symbolic.hpp>
#include <exception>

#include "bench_types.hpp"
#include "timing.hpp"

namespace gustav::bench {

// Kokkos Kernels 4.6 moved the view-level SpGEMM out of Experimental and
// deprecated the old names, which are all that earlier versions (3.4
// included) have.
#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40600
namespace kk_spgemm = ::KokkosSparse;
#else
namespace kk_spgemm = ::KokkosSparse::Experimental;
#endif

template <class Space, class Offset>
struct PeerRun {
  Measurement measurement;
  DeviceMatrix<Space, Offset> C;
};

template <class Space, class Offset>
PeerRun<Space, Offset> run_kokkos_kernels(const Space& space, const DeviceMatrix<Space, Offset>& A,
                                          const DeviceMatrix<Space, Offset>& B,
                                          KokkosSparse::SPGEMMAlgorithm algorithm, const std::string& name,
                                          int warmups, int reps) {
  using Matrix = DeviceMatrix<Space, Offset>;
  using Mem = typename Space::memory_space;
  using Handle = KokkosKernels::Experimental::KokkosKernelsHandle<Offset, int, double, Space, Mem, Mem>;
  PeerRun<Space, Offset> run;
  Measurement& m = run.measurement;
  m.implementation = name;
  try {
    for (int r = 0; r < warmups + reps; ++r) {
      // The last call's C goes before this one is timed, as Gustav's runner
      // lets its one-shot C go (gustav_runner.hpp): the host's allocator
      // serves both the same way.
      run.C = Matrix();
      Handle kh;
      kh.create_spgemm_handle(algorithm);
      space.fence();
      Stopwatch clock;
      typename Matrix::row_map_type::non_const_type row_map(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk::C::row_map"), A.numRows() + 1);
      kk_spgemm::spgemm_symbolic(&kh, A.numRows(), B.numRows(), B.numCols(), A.graph.row_map, A.graph.entries,
                                 false, B.graph.row_map, B.graph.entries, false, row_map);
      space.fence();
      const double t_symbolic = clock.lap();
      const auto nnz = kh.get_spgemm_handle()->get_c_nnz();
      typename Matrix::index_type::non_const_type entries(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk::C::entries"), nnz);
      typename Matrix::values_type::non_const_type values(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kk::C::values"), nnz);
      kk_spgemm::spgemm_numeric(&kh, A.numRows(), B.numRows(), B.numCols(), A.graph.row_map, A.graph.entries,
                                A.values, false, B.graph.row_map, B.graph.entries, B.values, false, row_map, entries,
                                values);
      space.fence();
      const double t_numeric = clock.lap();
      kk_spgemm::spgemm_numeric(&kh, A.numRows(), B.numRows(), B.numCols(), A.graph.row_map, A.graph.entries,
                                A.values, false, B.graph.row_map, B.graph.entries, B.values, false, row_map, entries,
                                values);
      space.fence();
      const double t_reuse = clock.lap();
      kh.destroy_spgemm_handle();
      if (r >= warmups) {
        m.symbolic.push_back(t_symbolic);
        m.numeric.push_back(t_numeric);
        m.total.push_back(t_symbolic + t_numeric);
        m.reuse.push_back(t_reuse);
      }
      run.C = Matrix("kk::C", A.numRows(), B.numCols(), static_cast<Offset>(nnz), values, row_map, entries);
      m.nnz_c = static_cast<std::int64_t>(nnz);
    }
    m.ran = true;
  } catch (const std::exception& e) {
    m.ran = false;
    m.note = e.what();
  }
  return run;
}

}  // namespace gustav::bench
