#pragma once
/// What SpMV's last calls on a matrix listed for the listed-rows kernel
/// (spmv_kernels.hpp), so that a repeat on the same matrix, as a Krylov
/// solver makes, can launch that kernel at the size it needs, or not at
/// all. Without it the kernel runs on every call whose matrix could have
/// rows past the mapping's thresholds (almost all), because only the
/// device learns whether any has, and its teams are a quarter of those
/// the device holds at once, because the host learns too late how many
/// rows there are. H200, 2026-11-29, `gustav spmv` processes with and
/// without this alternating, two each, medians of 20 calls: lap3d:120
/// 0.0907, 0.0909 -> 0.0882, 0.0879 ms (no kernel after the rows'),
/// delaunay_n16 0.0194, 0.0207 -> 0.0168, 0.0167, bcsstk16 0.0196, 0.0212
/// -> 0.0166, 0.0170; rmat:20:2 0.0787, 0.0786 -> 0.0704, 0.0683 (the
/// listed rows' kernel at the size they need).
///
/// A call's result, to the bit, never depends on what is remembered: where
/// nothing was listed last time, the call launches the row kernel alone,
/// which lists rows as always and notes in the report that it did; if it
/// did (the matrix's arrays changed in place, or another matrix sits at a
/// freed one's addresses), the host launches the listed-rows kernel after
/// the wait, one more launch and wait on that call only. Where rows were
/// listed, the kernel's teams stride over however many there are now.
///
/// Matrices are told apart by the addresses of their row map and entries,
/// their sizes and the mapping's thresholds; a few are kept per execution
/// space: a free place first, else the places in turn.
#include <cstdint>
#include <mutex>
#include <optional>

namespace gustav::detail {

/// Which matrix, under which thresholds.
struct SpmvListingKey {
  const void* row_map = nullptr;
  const void* entries = nullptr;
  std::int64_t num_rows = 0;
  std::int64_t nnz = 0;
  std::int64_t medium_row = 0;
  std::int64_t long_row = 0;

  bool operator==(const SpmvListingKey& o) const {
    return row_map == o.row_map && entries == o.entries && num_rows == o.num_rows && nnz == o.nnz &&
           medium_row == o.medium_row && long_row == o.long_row;
  }
};

/// What the listed-rows kernel found listed: rows for a warp each, rows for
/// a team each, and the segments of the latter.
struct SpmvListedCounts {
  std::int64_t warp_rows = 0;
  std::int64_t team_rows = 0;
  std::int64_t segments = 0;

  bool none() const { return warp_rows == 0 && team_rows == 0; }
};

/// The last few matrices' listed counts, for one execution space.
template <class ExecSpace>
class SpmvListingMemory {
 public:
  static SpmvListingMemory& instance() {
    static SpmvListingMemory m;
    return m;
  }

  std::optional<SpmvListedCounts> find(const SpmvListingKey& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& e : entries_)
      if (e.used && e.key == key) return e.counts;
    return std::nullopt;
  }

  void remember(const SpmvListingKey& key, const SpmvListedCounts& counts) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& e : entries_) {
      if (e.used && e.key == key) {
        e.counts = counts;
        return;
      }
    }
    for (auto& e : entries_) {
      if (!e.used) {
        e = Entry{key, counts, true};
        return;
      }
    }
    entries_[next_] = Entry{key, counts, true};
    next_ = (next_ + 1) % kept;
  }

  /// Drops what is remembered of `key`: its next call starts as a first one.
  void forget(const SpmvListingKey& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& e : entries_)
      if (e.used && e.key == key) e.used = false;
  }

 private:
  /// Matrices remembered: a solver's operator and its preconditioner's
  /// levels fit.
  static constexpr int kept = 16;
  struct Entry {
    SpmvListingKey key;
    SpmvListedCounts counts;
    bool used = false;
  };
  std::mutex mutex_;
  Entry entries_[kept];
  int next_ = 0;
};

}  // namespace gustav::detail
