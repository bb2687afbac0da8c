#pragma once
/// Gustav: sparse matrix-matrix multiplication (SpGEMM) on Kokkos.
/// Include this header for the whole public API.
#include "gustav/csr.hpp"
#include "gustav/errors.hpp"
#include "gustav/host_csr.hpp"
#include "gustav/info.hpp"
#include "gustav/jacobi_prolongator.hpp"
#include "gustav/memory.hpp"
#include "gustav/openmp_binding.hpp"
#include "gustav/options.hpp"
#include "gustav/plan.hpp"
#include "gustav/spmv.hpp"
#include "gustav/spgemm.hpp"
#include "gustav/stats.hpp"
#include "gustav/transpose.hpp"
#include "gustav/triple_product.hpp"
