// Squares a 3 x 3 matrix with an installed Gustav and checks one entry.
#include <gustav/gustav.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  using Matrix = KokkosSparse::CrsMatrix<double, int, Kokkos::Device<Space, Space::memory_space>, void, int>;
  gustav::HostCsr<double, int, int> h;
  h.num_rows = h.num_cols = 3;
  h.row_map = {0, 2, 3, 5};
  h.entries = {0, 1, 1, 0, 2};
  h.values = {1.0, 2.0, 3.0, 4.0, 5.0};
  const auto A = gustav::to_crs<Matrix>(Space(), h);
  const auto C = gustav::multiply(Space(), A, A);
  const auto c = gustav::to_host_csr<double, int, int>(C);
  // Row 0 of A*A: 1*(row 0) + 2*(row 1) = [1, 2 + 6, 0] -> C(0,1) = 8.
  const bool ok = c.nnz() == 6 && c.entries[1] == 1 && c.values[1] == 8.0;
  std::printf("consumer: nnz(C) = %lld, C(0,1) = %g: %s\n", static_cast<long long>(c.nnz()), c.values[1],
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
