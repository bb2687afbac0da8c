#pragma once
/// One allocation carved into many arrays. Every allocation costs a device
/// round trip (and every free a device synchronisation), so a phase takes
/// its temporaries from one arena instead of one view each.
///
/// Use it in two steps with the same sequence of take() calls: first on a
/// measuring arena (no memory) to learn the size, then on the real one.
/// The block comes from, and goes back to, the block cache
/// (block_cache.hpp) where it can; release() after the device is done with
/// it (a fence, or a copy to the host).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/common/block_cache.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

template <class Device>
class Arena {
 public:
  template <class T>
  using view = Kokkos::View<T*, Device, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// A measuring arena: take() returns empty views and counts bytes.
  Arena() = default;

  /// An arena of `bytes` from `temp` (counted against the phase's budget).
  template <class ExecSpace>
  Arena(const ExecSpace& space, const std::string& label, std::size_t bytes, TempMemory& temp)
      : measuring_(false) {
    const std::size_t words = (bytes + 7) / 8;
    storage_ = BlockCache<Device>::instance().take(words * 8, temp.room());
    if (storage_.data()) temp.add_resident(view_bytes(storage_));
    if (!storage_.data()) storage_ = temp.allocate<Kokkos::View<std::uint64_t*, Device>>(space, label, words, false);
    capacity_ = storage_.span() * sizeof(std::uint64_t);
  }

  /// The next n elements of T, 64-byte aligned (a cache line, and a whole
  /// number of GPU memory transactions).
  template <class T>
  view<T> take(std::int64_t n) {
    offset_ = (offset_ + 63) & ~std::size_t(63);
    const std::size_t bytes = static_cast<std::size_t>(n > 0 ? n : 0) * sizeof(T);
    if (measuring_) {
      offset_ += bytes;
      return view<T>();
    }
    if (offset_ + bytes > capacity_) throw internal_error("gustav: arena carved past its size");
    T* p = reinterpret_cast<T*>(reinterpret_cast<char*>(storage_.data()) + offset_);
    offset_ += bytes;
    return view<T>(p, static_cast<std::size_t>(n > 0 ? n : 0));
  }

  /// Bytes taken so far (the size a measuring arena reports).
  std::size_t used() const { return (offset_ + 63) & ~std::size_t(63); }

  void release(TempMemory& temp) {
    Kokkos::View<std::uint64_t*, Device> block = storage_;
    temp.release(storage_);
    if (block.data()) BlockCache<Device>::instance().give(std::move(block));
  }

 private:
  bool measuring_ = true;
  Kokkos::View<std::uint64_t*, Device> storage_;
  std::size_t capacity_ = 0;
  std::size_t offset_ = 0;
};

}  // namespace gustav::detail
