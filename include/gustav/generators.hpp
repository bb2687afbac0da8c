#pragma once
/// Deterministic test and benchmark matrices: stencils on structured grids,
/// random graphs, band matrices, the transfer operators of smoothed-aggregation
/// multigrid on those grids, and the product specs ("lap3d:120/rap") that the
/// benchmark suite, the command-line tool and the tests share.
///
/// Every generator returns rows sorted by column without duplicate columns
/// (multiply() and transpose() keep whatever their input has). Everything is
/// deterministic: the same call gives the same matrix, bit for bit, on every
/// platform and compiler (the random generators use their own generator and
/// conversions, multiply() accumulates with explicit fused multiply-adds).
///
/// Errors: gustav::invalid_input for arguments out of range, malformed input
/// matrices, malformed specs, and sizes beyond max_entries (which covers
/// counts that would overflow int64).
#include <cstdint>
#include <string>

#include "gustav/host_csr.hpp"

namespace gustav::generators {

/// Every generated matrix: double values, 64-bit indices and offsets.
using Matrix = HostCsr<double, std::int64_t, std::int64_t>;

/// The most rows, and the most stored entries, that a generator will produce:
/// 2^36 entries take about 1 TiB in a Matrix. Larger requests throw
/// gustav::invalid_input instead of running out of memory or overflowing.
inline constexpr std::int64_t max_entries = std::int64_t(1) << 36;

/// Finite-difference Laplacian on an n x n grid with Dirichlet boundary: row
/// y*n + x couples grid point (x, y) to its neighbours, 4 of them for
/// points = 5, 8 (diagonals included) for points = 9. Values: the diagonal is
/// the neighbour count of the full stencil (4 or 8) and every coupling is -1,
/// so interior rows sum to zero and boundary rows (fewer entries) are
/// diagonally dominant; the matrix is symmetric positive definite.
/// nnz = 5n^2 - 4n or (3n - 2)^2. Preconditions: n >= 0, points 5 or 9.
Matrix laplace2d(std::int64_t n, int points = 5);

/// The same on an n x n x n grid, row (z*n + y)*n + x, with the 7-point
/// (face neighbours, diagonal 6) or 27-point (whole 3x3x3 cube, diagonal 26)
/// stencil. nnz = 7n^3 - 6n^2 or (3n - 2)^3. Preconditions: n >= 0, points 7
/// or 27.
Matrix laplace3d(std::int64_t n, int points = 7);

/// A vector-valued (elasticity-like) operator on an n x n x n grid of nodes,
/// three unknowns per node: row 3*node + component, node numbered as in
/// laplace3d. Every pair of nodes in each other's 27-point neighbourhood is
/// coupled by a dense 3x3 block, so nnz = 9 (3n - 2)^3 and rows = 3n^3.
/// Values: a neighbour block holds -1 on its diagonal and -0.5 off it; the
/// node's own block holds 54 on its diagonal and 0.5 off it. 54 exceeds the
/// largest off-diagonal row sum (26 * 2 + 1 = 53), so the matrix is symmetric,
/// strictly diagonally dominant and hence positive definite. Precondition:
/// n >= 0.
Matrix elasticity_brick(std::int64_t n);

/// Parameters of rmat(). a, b and c are the probabilities of the top-left,
/// top-right and bottom-left quadrant (the bottom-right one gets
/// d = 1 - a - b - c); the defaults are Graph500's.
struct RmatParams {
  int scale = 16;       ///< 2^scale vertices, 1 <= scale <= 40
  int edge_factor = 8;  ///< edge_factor * 2^scale edges are drawn, >= 1
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  std::uint64_t seed = 1;
};

/// Graph500-style R-MAT graph as its adjacency matrix (2^scale square). Each of
/// the edge_factor * 2^scale directed edges picks one quadrant per level, from
/// the most significant bit of row and column down, with the same a, b, c, d
/// at every level (no per-level noise), so the degree distribution shows the
/// Kronecker staircase. Vertices are not permuted: vertex 0 is the largest hub
/// and rows and columns are heavy near 0. Repeated edges become one entry and
/// self loops stay, so nnz is a little below the number of edges drawn.
/// Values: pseudo-random in [-1, -0.25] u [0.25, 1], a function of the seed
/// and the entry's position only. Preconditions: see RmatParams; a, b, c and d
/// not negative.
Matrix rmat(const RmatParams& p);

/// Uniform random sparse matrix: round(avg_per_row * rows) entries, each in a
/// row and a column drawn uniformly (row lengths are then Poisson, as in an
/// Erdos-Renyi graph); repeated positions become one entry. Values as in
/// rmat(). Preconditions: rows, cols >= 0, avg_per_row finite and >= 0.
Matrix erdos_renyi(std::int64_t rows, std::int64_t cols, double avg_per_row, std::uint64_t seed);

/// n x n band matrix holding every entry with |i - j| <= half_bandwidth.
/// Values: -1 off the diagonal, 2*half_bandwidth + 1 on it (strictly
/// diagonally dominant, symmetric positive definite; half_bandwidth 0 is the
/// identity). Preconditions: n >= 0, half_bandwidth >= 0.
Matrix banded(std::int64_t n, std::int64_t half_bandwidth);

/// n x n arrow matrix: the diagonal, a dense first row and a dense first
/// column (3n - 2 entries; a hub row and a hub column, so every row of
/// A * A is full). Values: n on the diagonal, -1 elsewhere (diagonally
/// dominant by rows). Precondition: n >= 0.
Matrix arrow(std::int64_t n);

/// Tentative prolongator of smoothed aggregation on the n^dims grid of
/// laplace2d / laplace3d / elasticity_brick: the grid is cut into aggregates of
/// aggregate^dims points (the last along an axis takes the remaining points),
/// numbered like the grid points. Row dofs_per_node*point + k has one entry, in
/// column dofs_per_node*g + k where g is the point's aggregate, of value
/// 1/sqrt(points in g), so the columns are orthonormal. Preconditions: n >= 0,
/// 1 <= dims <= 3, aggregate >= 1, dofs_per_node >= 1.
Matrix tentative_prolongator(std::int64_t n, int dims, int aggregate, int dofs_per_node);

/// Smoothed prolongator P = (I - omega D^-1 A) P_tent, D the diagonal of A,
/// computed exactly with multiply(); nothing is dropped, explicit zeros stay.
/// Preconditions: A square with a nonzero diagonal in every row,
/// A.num_cols == P_tent.num_rows.
Matrix jacobi_smoothed_prolongator(const Matrix& A, const Matrix& P_tent, double omega = 2.0 / 3.0);

/// A^T, rows sorted by column (duplicates in A stay duplicates).
Matrix transpose(const Matrix& A);

/// Reference product A * B on the host (Gustavson's row-by-row algorithm with
/// a dense accumulator): rows sorted, input duplicates summed, and the exact
/// structure kept, including explicit zeros from cancellation. Sums are
/// accumulated in the order of A's and B's entries with std::fma. Serial and
/// meant for setting up benchmarks and checking results, not for speed.
/// Precondition: A.num_cols == B.num_rows.
Matrix multiply(const Matrix& A, const Matrix& B);

/// A product to compute: A * B, named by its canonical spec.
struct Product {
  std::string name;
  Matrix A;
  Matrix B;
};

/// Builds the product a spec denotes. Grammar (no spaces, integers in decimal):
///
///   spec    = matrix [ "/" product ]
///   matrix  = "lap2d:" N [ ":" ("5" | "9") ]        laplace2d(N, points = 5)
///           | "lap3d:" N [ ":" ("7" | "27") ]       laplace3d(N, points = 7)
///           | "brick:" N                            elasticity_brick(N)
///           | "rmat:" SCALE ":" EF [ ":" SEED ]     rmat, default a, b, c, SEED 1
///           | "er:" N ":" AVG [ ":" SEED ]          erdos_renyi(N, N, AVG, SEED = 1)
///           | "band:" N ":" HALF                    banded(N, HALF)
///           | "arrow:" N                            arrow(N)
///   product = "aa"                A * A (the default)
///           | "ap" [ ":" AGG ]    A * P
///           | "rap" [ ":" AGG ]   P^T * (A * P), B = A * P computed by multiply()
///
/// P is the Jacobi-smoothed prolongator for aggregates of AGG^dims points
/// (default AGG 2; dims 2 for lap2d, 3 for lap3d and brick, three unknowns
/// per node for brick), so ap and rap need a grid matrix. Ranges: N >= 1,
/// 1 <= SCALE <= 40, EF >= 1, 0 < AVG <= N (a decimal number such as 4 or
/// 2.5, no exponent), HALF >= 0, AGG >= 1, SEED a 64-bit unsigned integer.
/// The product's name spells every field, defaults included, with numbers in
/// their shortest form: "lap3d:0120/ap" becomes "lap3d:120:7/ap:2".
///
/// Throws gustav::invalid_input naming the spec and the problem for anything
/// else, and for sizes beyond max_entries.
Product from_spec(const std::string& spec);

}  // namespace gustav::generators
