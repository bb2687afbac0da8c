#pragma once
// Matrices and measurements shared by the benchmark runners.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/generators.hpp"
#include "gustav/host_csr.hpp"

namespace gustav::bench {

using HostMatrix = generators::Matrix;

/// The device matrix type every implementation is run on: double values,
/// 32-bit column indices, and Offset row offsets (int when nnz fits, which
/// is what cuSPARSE's SpGEMM needs, else int64).
template <class Space, class Offset>
using DeviceMatrix =
    KokkosSparse::CrsMatrix<double, int, Kokkos::Device<Space, typename Space::memory_space>, void, Offset>;

/// One implementation's timings on one product, in seconds per repetition.
struct Measurement {
  std::string implementation;  ///< e.g. "gustav", "gustav/dense", "kk/kkmem", "cusparse"
  bool ran = false;            ///< false: it was skipped or failed; see note
  bool failed = false;         ///< it was tried and ended with an error (else, not ran: skipped)
  bool agrees = false;         ///< its C matches Gustav's (checked for every peer)
  bool trusted = true;         ///< false for peers known to be wrong on this backend
  std::string note;            ///< why it did not run, or how it disagreed
  std::vector<double> symbolic, numeric, total, reuse;
  std::int64_t nnz_c = 0;
  std::size_t peak_temp_bytes = 0;  ///< temporaries alive at once (C not counted)
};

}  // namespace gustav::bench
