#pragma once
/// What a pass gets for one row: the row, its level-1 scratch region, its
/// level-2 chunk, and the tier's table parameters. Also the carving of raw
/// scratch into typed arrays, identical on host (sizing) and device (use).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

namespace gustav::detail {

/// Hands out consecutive, 16-byte aligned arrays from a raw region. With a
/// null base it only measures, so the host sizes scratch with the same code
/// that carves it in the kernel.
class Carver {
 public:
  KOKKOS_FORCEINLINE_FUNCTION explicit Carver(char* base) : base_(base) {}

  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION T* take(std::int64_t n) {
    offset_ = (offset_ + 15) & ~std::size_t(15);
    T* p = base_ ? reinterpret_cast<T*>(base_ + offset_) : nullptr;
    offset_ += static_cast<std::size_t>(n) * sizeof(T);
    return p;
  }
  KOKKOS_INLINE_FUNCTION std::size_t used() const { return (offset_ + 15) & ~std::size_t(15); }

 private:
  char* base_;
  std::size_t offset_ = 0;
};

/// B's columns from which no accumulator sized by B's columns is offered:
/// its bytes (a value per column: 8 to 16 bytes a column) would wrap
/// std::size_t near 2^60 columns, and one of 2^40 columns (8 TiB of values)
/// is never allowed anyway. Sizing functions return dense_never_allowed
/// from here on.
constexpr std::int64_t dense_columns_max = std::int64_t(1) << 40;

/// What an accumulator sizing returns for B too wide to size
/// (dense_columns_max); dense_allowed refuses it even where the dense
/// accumulator is asked for. Distinct in meaning from the pools' fill
/// length ~0, which means "the whole chunk".
constexpr std::size_t dense_never_allowed = ~std::size_t(0);

/// Error bits a kernel raises; the host turns them into exceptions.
enum ErrorBits : int {
  error_table_full = 1,          ///< an accumulator had no room (sizing bug)
  error_structure_changed = 2,   ///< a product fell outside the planned structure
  error_row_count_overflow = 4,  ///< a row's nnz exceeds the offset type
  error_bad_a = 8,               ///< A's row map or column indices are malformed
  error_bad_b = 16,              ///< B's row map or column indices are malformed
  error_structure_differs = 32,  ///< A's or B's structure is not that of a plan's kept positions
  /// Not an error: the long rows' kept offsets (long_row_kept_offsets.hpp)
  /// no longer fit the structure, and those rows are summed again.
  error_long_offsets_stale = 64,
};

struct RowContext {
  std::int64_t row = -1;    ///< -1: this worker has no row this round (keeps barriers in step)
  char* scratch = nullptr;  ///< level-1 region of this worker / team
  char* chunk = nullptr;    ///< level-2 chunk from the pool, or nullptr
  int log2_slots = 0;       ///< level-1 table size (already sized per row if the tier says so)
  int level1_probes = 0;
  bool spill = false;
  bool dense = false;       ///< CPU dense accumulator in `chunk`
};

}  // namespace gustav::detail
