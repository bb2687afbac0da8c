#pragma once
/// Device memory that Gustav's arenas gave back, kept for its next call.
///
/// A device allocation costs a round trip to the driver and a free a device
/// synchronisation: on an H100 each took 50 to 250 us, against 1.2 ms for a
/// whole product of four million products (er:1000000:2), so calls that
/// repeat (benchmarks, multigrid set-ups, time steps) would spend a fifth of
/// their time there. An arena (arena.hpp) on a device memory space takes its
/// block from here when one of the right size is kept, and gives it back
/// when released. Kept: at most `cached_blocks_max` blocks of at most
/// `cached_block_max_bytes` each, freed by gustav::release_cached_memory()
/// and at Kokkos::finalize. Host memory is not kept (its allocations are
/// cheap). An arena dropped without release (an exception) frees its block
/// as any view does.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace gustav::detail {

constexpr std::size_t cached_block_max_bytes = std::size_t(64) << 20;
constexpr std::size_t cached_blocks_max = 4;

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

  /// Whether blocks of this memory space are kept at all.
  static constexpr bool keeps = !std::is_same_v<typename Device::memory_space, Kokkos::HostSpace>;

  static BlockCache& instance() {
    static BlockCache c;
    return c;
  }

  /// A kept block of at least `bytes` bytes, at most twice that and at most
  /// `limit`, taken out of the cache; an empty view when there is none.
  Block take(std::size_t bytes, std::size_t limit) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      const std::size_t size = blocks_[i].span() * sizeof(std::uint64_t);
      if (size >= bytes && size <= 2 * bytes + 4096 && size <= limit) {
        Block b = std::move(blocks_[i]);
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
        return b;
      }
    }
    return Block();
  }

  /// Keeps `b` for a later take (the oldest kept block goes when full).
  /// The caller must be done with it on the device in stream order: the
  /// next user runs on the same or a fenced stream.
  void give(Block&& b) {
    if (!keeps || b.span() * sizeof(std::uint64_t) > cached_block_max_bytes || !Kokkos::is_initialized()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!hook_pushed_) {
      // Kept views must go before Kokkos does (once per Kokkos lifetime).
      Kokkos::push_finalize_hook([] { instance().finalize(); });
      BlockCacheRegistry::instance().add([] { instance().clear(); });
      hook_pushed_ = true;
    }
    blocks_.push_back(std::move(b));
    if (blocks_.size() > cached_blocks_max) blocks_.erase(blocks_.begin());
  }

  void clear() {
    std::vector<Block> gone;
    std::lock_guard<std::mutex> lock(mutex_);
    gone.swap(blocks_);
  }

 private:
  void finalize() {
    clear();
    std::lock_guard<std::mutex> lock(mutex_);
    hook_pushed_ = false;
  }

  std::mutex mutex_;
  std::vector<Block> blocks_;
  bool hook_pushed_ = false;
};

}  // namespace gustav::detail
