#pragma once
// Shared pieces of the distributed tests: the space and matrix types, the
// communicator's shape, host references and the comparison of each rank's
// block with the reference's rows.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <string>

#include "gustav/distributed.hpp"
#include "gustav/generators.hpp"

namespace gustav::test {

/// The build's default space: CUDA ranks in CUDA builds, OpenMP ranks otherwise.
using DistSpace = Kokkos::DefaultExecutionSpace;
using DistDevice = Kokkos::Device<DistSpace, typename DistSpace::memory_space>;
using DistMatrix = KokkosSparse::CrsMatrix<double, int, DistDevice, void, int>;
using WideMatrix = KokkosSparse::CrsMatrix<double, std::int64_t, DistDevice, void, std::int64_t>;
using Whole = generators::Matrix;

inline int world_rank() { return distributed::detail::comm_rank(MPI_COMM_WORLD); }
inline int world_size() { return distributed::detail::comm_size(MPI_COMM_WORLD); }

/// Blocks of very different sizes: rank 0 owns none, the last rank the
/// rest after the middle ones take a few rows each (even blocks on 1 rank).
inline distributed::RowBlocks uneven_blocks(std::int64_t rows) {
  const int p = world_size();
  std::vector<std::int64_t> s(static_cast<std::size_t>(p) + 1, 0);
  for (int r = 1; r < p; ++r) s[r] = std::min<std::int64_t>(rows, s[r - 1] + (r == 1 ? 0 : 3 * r));
  s[p] = rows;
  return distributed::RowBlocks(s);
}

template <class Matrix = DistMatrix>
distributed::DistributedMatrix<Matrix> spread(const Whole& whole, const distributed::RowBlocks& blocks) {
  return distributed::distribute<Matrix>(DistSpace(), MPI_COMM_WORLD, whole, blocks);
}

template <class Matrix = DistMatrix>
distributed::DistributedMatrix<Matrix> spread_evenly(const Whole& whole) {
  return spread<Matrix>(whole, distributed::RowBlocks::even(whole.num_rows, world_size()));
}

/// This rank's block of M equals rows [first, end) of `reference`: the same
/// structure, values within a relative 1e-12 of the row's largest.
template <class Matrix>
void expect_block_of(const distributed::DistributedMatrix<Matrix>& M, const Whole& reference) {
  const int me = world_rank();
  const auto got = distributed::local_block<double, std::int64_t, std::int64_t>(M);
  const auto want = distributed::rows_of(reference, M.rows.first(me), M.rows.end(me));
  ASSERT_EQ(M.global_rows(), static_cast<std::int64_t>(reference.num_rows));
  ASSERT_EQ(M.global_cols(), static_cast<std::int64_t>(reference.num_cols));
  ASSERT_EQ(got.row_map, want.row_map) << "rank " << me;
  ASSERT_EQ(got.entries, want.entries) << "rank " << me;
  for (std::int64_t i = 0; i < want.num_rows; ++i) {
    double scale = 0;
    for (auto p = want.row_map[i]; p < want.row_map[i + 1]; ++p) scale = std::max(scale, std::abs(want.values[p]));
    for (auto p = want.row_map[i]; p < want.row_map[i + 1]; ++p)
      ASSERT_NEAR(got.values[p], want.values[p], 1e-12 * std::max(scale, 1.0)) << "rank " << me << " row " << i;
  }
}

/// The matrix with every value v at position p replaced by v * (1 + p % 7)
/// + 0.25: new values, the same structure.
inline Whole with_new_values(Whole m) {
  for (std::size_t p = 0; p < m.values.size(); ++p) m.values[p] = m.values[p] * (1.0 + double(p % 7)) + 0.25;
  return m;
}

/// Runs `call` and expects it to throw `Error` on this rank with a message
/// containing `part`; returns the message.
template <class Error, class Call>
std::string expect_throw(Call&& call, const std::string& part) {
  std::string message;
  try {
    call();
    ADD_FAILURE() << "rank " << world_rank() << ": no exception";
  } catch (const Error& e) {
    message = e.what();
    EXPECT_NE(message.find(part), std::string::npos) << "rank " << world_rank() << ": " << message;
  }
  return message;
}

/// Every rank holds the same string.
inline void expect_same_on_every_rank(const std::string& s) {
  const int n = static_cast<int>(s.size());
  int lo = 0, hi = 0;
  MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ASSERT_EQ(lo, hi) << "message lengths differ between ranks: " << s;
  std::string root = s;
  MPI_Bcast(root.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(s, root);
}

}  // namespace gustav::test
