#pragma once
// What cuSPARSE's generic SpGEMM can be given: its CSR descriptors here use
// 32-bit row offsets and column indices (CUSPARSE_INDEX_32I; the 64-bit
// kind is refused by SpGEMM), so every count stored in them must fit an int.
// The bench knows nnz(C) and the product count from Gustav's run before it
// calls cuSPARSE, so a product it cannot take is skipped with the reason
// instead of being handed over to fail on the device.
#include <climits>
#include <cstdint>
#include <string>

namespace gustav::bench {

/// Sizes of one product C = A * B.
struct ProductSizes {
  std::int64_t rows = 0;      ///< of A and C
  std::int64_t inner = 0;     ///< columns of A, rows of B
  std::int64_t cols = 0;      ///< of B and C
  std::int64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  std::int64_t products = 0;  ///< multiply-adds, nnz(C) before merging
};

/// "" when cuSPARSE's 32-bit SpGEMM can take the product, else why not.
inline std::string cusparse_refusal(const ProductSizes& s) {
  const std::int64_t most = INT_MAX;
  auto beyond = [&](const char* what, std::int64_t n) {
    return std::string(what) + " " + std::to_string(n) + " beyond the 32-bit indices of cuSPARSE's SpGEMM (at most " +
           std::to_string(most) + ")";
  };
  // Row maps hold rows + 1 offsets, whose last is nnz.
  if (s.rows >= most) return beyond("rows + 1 =", s.rows + 1);
  if (s.inner >= most) return beyond("rows of B + 1 =", s.inner + 1);
  if (s.cols > most) return beyond("columns", s.cols);
  if (s.nnz_a > most) return beyond("nnz(A)", s.nnz_a);
  if (s.nnz_b > most) return beyond("nnz(B)", s.nnz_b);
  if (s.nnz_c > most) return beyond("nnz(C)", s.nnz_c);
  // The bench puts a product on 32-bit offsets only while its product count
  // fits (an upper bound of nnz(C) known before any product is formed).
  if (s.products > most) return beyond("products", s.products);
  return "";
}

}  // namespace gustav::bench
