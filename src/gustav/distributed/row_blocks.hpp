#pragma once
/// A 1-D row distribution, as Tpetra's contiguous maps: rank r owns the rows
/// [first(r), end(r)), blocks in rank order with no gaps. Every rank holds
/// the whole table (P + 1 offsets), so finding a row's owner needs no
/// message.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gustav/distributed/collective_errors.hpp"
#include "gustav/errors.hpp"

namespace gustav::distributed {

class RowBlocks {
 public:
  RowBlocks() = default;

  /// From the blocks' starts: starts[0] = 0, non-decreasing, starts.back()
  /// the global row count, one block per rank. Throws gustav::invalid_input.
  explicit RowBlocks(std::vector<std::int64_t> starts) : starts_(std::move(starts)) {
    if (starts_.size() < 2 || starts_.front() != 0)
      throw invalid_input("gustav::distributed::RowBlocks: starts must begin at 0 and name at least one block");
    for (std::size_t r = 1; r < starts_.size(); ++r)
      if (starts_[r] < starts_[r - 1])
        throw invalid_input("gustav::distributed::RowBlocks: block " + std::to_string(r - 1) + " ends at " +
                            std::to_string(starts_[r]) + ", before it starts at " + std::to_string(starts_[r - 1]));
  }

  /// `rows` rows in `ranks` blocks whose sizes differ by at most one (the
  /// first rows % ranks blocks take one more).
  static RowBlocks even(std::int64_t rows, int ranks) {
    if (rows < 0 || ranks < 1)
      throw invalid_input("gustav::distributed::RowBlocks::even: needs rows >= 0 and ranks >= 1, got " +
                          std::to_string(rows) + " rows and " + std::to_string(ranks) + " ranks");
    std::vector<std::int64_t> s(static_cast<std::size_t>(ranks) + 1, 0);
    for (int r = 0; r < ranks; ++r) s[r + 1] = s[r] + rows / ranks + (r < rows % ranks ? 1 : 0);
    return RowBlocks(std::move(s));
  }

  /// The blocks formed by each rank's own row count, in rank order.
  /// Collective over `comm`.
  static RowBlocks gather(MPI_Comm comm, std::int64_t local_rows) {
    detail::fail_together(comm, local_rows < 0, detail::ErrorKind::invalid_input,
                          "gustav::distributed::RowBlocks::gather: a rank has a negative row count");
    const int size = detail::comm_size(comm);
    std::vector<std::int64_t> counts(static_cast<std::size_t>(size), 0);
    MPI_Allgather(&local_rows, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm);
    std::vector<std::int64_t> s(static_cast<std::size_t>(size) + 1, 0);
    for (int r = 0; r < size; ++r) s[r + 1] = s[r] + counts[r];
    return RowBlocks(std::move(s));
  }

  int ranks() const { return starts_.empty() ? 0 : static_cast<int>(starts_.size()) - 1; }
  /// The global row count.
  std::int64_t rows() const { return starts_.empty() ? 0 : starts_.back(); }
  std::int64_t first(int rank) const { return starts_[static_cast<std::size_t>(rank)]; }
  std::int64_t end(int rank) const { return starts_[static_cast<std::size_t>(rank) + 1]; }
  std::int64_t count(int rank) const { return end(rank) - first(rank); }
  /// The rank owning global row `row` (0 <= row < rows()).
  int owner(std::int64_t row) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), row) - starts_.begin()) - 1;
  }
  const std::vector<std::int64_t>& starts() const { return starts_; }

  friend bool operator==(const RowBlocks& a, const RowBlocks& b) { return a.starts_ == b.starts_; }
  friend bool operator!=(const RowBlocks& a, const RowBlocks& b) { return !(a == b); }

 private:
  std::vector<std::int64_t> starts_;
};

namespace detail {

/// Throws on every rank unless every rank holds the same blocks, one per
/// rank of `comm`. Collective.
inline void check_same_blocks(MPI_Comm comm, const RowBlocks& blocks, const std::string& who,
                              const std::string& name) {
  const int size = comm_size(comm);
  std::int64_t mine[2] = {static_cast<std::int64_t>(blocks.ranks()), 0};
  // A digest of the starts: equal tables give equal digests; ranks that
  // differ are caught by the min/max pair below with overwhelming odds.
  std::uint64_t digest = 1469598103934665603ull;
  for (auto s : blocks.starts()) digest = (digest ^ static_cast<std::uint64_t>(s)) * 1099511628211ull;
  mine[1] = static_cast<std::int64_t>(digest);
  std::int64_t lo[2], hi[2];
  MPI_Allreduce(mine, lo, 2, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(mine, hi, 2, MPI_INT64_T, MPI_MAX, comm);
  fail_together(comm, lo[0] != hi[0] || lo[1] != hi[1], ErrorKind::invalid_input,
                who + ": ranks disagree on " + name + "'s row distribution");
  fail_together(comm, lo[0] != size, ErrorKind::invalid_input,
                who + ": " + name + "'s row distribution has " + std::to_string(lo[0]) + " blocks for " +
                    std::to_string(size) + " ranks");
}

}  // namespace detail
}  // namespace gustav::distributed
