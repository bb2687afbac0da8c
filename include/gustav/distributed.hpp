#pragma once
/// Gustav on MPI: C = A * B and the Galerkin product over matrices
/// distributed by contiguous blocks of rows, one rank per GPU or CPU socket,
/// Gustav's kernels doing each rank's local product (target
/// Gustav::distributed, built when MPI is found).
///
///   namespace gd = gustav::distributed;
///   auto A = gd::distribute<Matrix>(space, comm, whole_A, gd::RowBlocks::even(n, ranks));
///   auto [plan, C] = gd::multiply(space, A, B);          // symbolic + numeric
///   gd::numeric(space, plan, A2, B2, C);                 // new values, values moved only
///   auto [R, rap, Ac] = gd::galerkin_product(space, A, P);
///   gd::triple_product_numeric(space, rap, R, A2, P, Ac);
///
/// Each rank holds its rows as a KokkosSparse::CrsMatrix with global column
/// indices (DistributedMatrix). The symbolic phase finds the rows of B the
/// rank's A reaches, fetches those other ranks own (row requests, lengths,
/// column indices, values: MPI_Alltoallv through host memory), renumbers
/// rows and columns locally keeping their order, and runs Gustav's product
/// on the gathered rows; C comes back distributed as A, with global
/// columns. The plan keeps the exchange pattern: a numeric-only repeat
/// sends each needed value once and nothing else.
///
/// Every call is collective over the matrices' communicator. Bad input
/// (different communicators, ranks disagreeing on a distribution or a
/// global size, mismatched shapes, a malformed block on some rank) ends
/// every rank with the same exception and message; none waits for the
/// others forever.
#include "gustav/distributed/distributed_matrix.hpp"
#include "gustav/distributed/distributed_product.hpp"
#include "gustav/distributed/distributed_transpose.hpp"
#include "gustav/distributed/host_blocks.hpp"
#include "gustav/distributed/row_blocks.hpp"
#include "gustav/distributed/triple_product.hpp"
