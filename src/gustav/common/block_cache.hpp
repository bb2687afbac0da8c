#pragma once
/// Temporary memory that Gustav's calls gave back, kept for the next call.
///
/// A device allocation costs a round trip to the driver and a free a device
/// synchronisation: on an H100 each took 50 to 250 us, against 1.2 ms for a
/// whole product of four million products (er:1000000:2), so calls that
/// repeat (benchmarks, multigrid set-ups, time steps) would spend a fifth of
/// their time there. A fresh host allocation of megabytes is mapped afresh
/// and every page cleared by the kernel on first touch: clear_page took 9.9 %
/// of the samples of repeated lap3d:80 A*P products on two threads, 5.2 %
/// with the host's temporaries kept (the rest is C's own arrays). An arena
/// (arena.hpp), or a host temporary taken with TempMemory::allocate_scratch
/// (allocation.hpp), comes from here when a block of the right size is
/// kept, and goes back when released. Kept: at most `blocks_max` blocks
/// (4 of device memory, 16 of host memory, whose temporaries are more and
/// smaller) of at most `cached_block_max_bytes` each and
/// `cached_bytes_max` in all, freed by gustav::release_cached_memory() and
/// at Kokkos::finalize. A block dropped without release (an exception) is
/// freed as any view is.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace gustav::detail {

constexpr std::size_t cached_block_max_bytes = std::size_t(64) << 20;
constexpr std::size_t cached_bytes_max = std::size_t(256) << 20;

/// The clearing functions of every cache in use, for release_cached_memory.
struct BlockCacheRegistry {
  std::mutex mutex;
  std::vector<void (*)()> clears;

  static BlockCacheRegistry& instance() {
    static BlockCacheRegistry r;
    return r;
  }
  void add(void (*clear)()) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto c : clears)
      if (c == clear) return;
    clears.push_back(clear);
  }
  void clear_all() {
    std::vector<void (*)()> all;
    {
      std::lock_guard<std::mutex> lock(mutex);
      all = clears;
    }
    for (auto c : all) c();
  }
};

template <class Device>
class BlockCache {
 public:
  using Block = Kokkos::View<std::uint64_t*, Device>;

  static constexpr bool is_host = std::is_same_v<typename Device::memory_space, Kokkos::HostSpace>;
  /// Blocks kept at most.
  static constexpr std::size_t blocks_max = is_host ? 16 : 4;

  static BlockCache& instance() {
    static BlockCache c;
    return c;
  }

  /// The smallest kept block of at least `bytes` bytes, at most twice that
  /// and at most `limit`, taken out of the cache; an empty view when there
  /// is none. (The smallest, so that a call whose temporaries differ in
  /// size finds each of them again on its next call.)
  Block take(std::size_t bytes, std::size_t limit) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t best = blocks_.size();
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      const std::size_t size = block_bytes(blocks_[i]);
      if (size >= bytes && size <= 2 * bytes + 4096 && size <= limit &&
          (best == blocks_.size() || size < block_bytes(blocks_[best])))
        best = i;
    }
    if (best == blocks_.size()) return Block();
    Block b = std::move(blocks_[best]);
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
    held_bytes_ -= block_bytes(b);
    return b;
  }

  /// Keeps `b` for a later take (the oldest kept block goes when full).
  /// The caller must be done with it on the device in stream order: the
  /// next user runs on the same or a fenced stream.
  void give(Block&& b) {
    if (block_bytes(b) > cached_block_max_bytes || !Kokkos::is_initialized()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!hook_pushed_) {
      // Kept views must go before Kokkos does (once per Kokkos lifetime).
      Kokkos::push_finalize_hook([] { instance().finalize(); });
      BlockCacheRegistry::instance().add([] { instance().clear(); });
      hook_pushed_ = true;
    }
    held_bytes_ += block_bytes(b);
    blocks_.push_back(std::move(b));
    while (blocks_.size() > blocks_max || held_bytes_ > cached_bytes_max) {
      held_bytes_ -= block_bytes(blocks_.front());
      blocks_.erase(blocks_.begin());
    }
  }

  void clear() {
    std::vector<Block> gone;
    std::lock_guard<std::mutex> lock(mutex_);
    gone.swap(blocks_);
    held_bytes_ = 0;
  }

  /// Bytes kept now (for tests and statistics).
  std::size_t held_bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_bytes_;
  }

 private:
  void finalize() {
    clear();
    std::lock_guard<std::mutex> lock(mutex_);
    hook_pushed_ = false;
  }

  static std::size_t block_bytes(const Block& b) { return b.span() * sizeof(std::uint64_t); }

  std::mutex mutex_;
  std::vector<Block> blocks_;
  std::size_t held_bytes_ = 0;
  bool hook_pushed_ = false;
};

}  // namespace gustav::detail
