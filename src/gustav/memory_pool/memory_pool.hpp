#pragma once
/// Memory pool of fixed-size chunks in global memory (seed 002): the level-2
/// hash tables and the CPU dense accumulators are taken from it by the teams
/// that need one, for as long as they need it. Its size is chunk size x the
/// number of teams that can hold a chunk at once, never a function of the
/// total product count.
///
/// Acquisition is a compare-and-swap on a per-chunk flag. A team that finds
/// no free chunk spins; this cannot deadlock because every holder is a
/// running team that releases its chunk when its row is done.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"

namespace gustav::detail {

template <class Device>
class MemoryPool {
 public:
  MemoryPool() = default;

  /// `chunk_bytes` is rounded up to 16 bytes. With `fill_byte` >= 0 the
  /// first `fill_bytes` of every chunk (all of it by default) are set to it
  /// (0xFF makes every hash key -1, i.e. empty); the rest is left as it was.
  template <class ExecSpace>
  MemoryPool(const ExecSpace& space, const std::string& label, std::size_t chunk_bytes,
             int num_chunks, int fill_byte, TempMemory& temp, std::size_t fill_bytes = ~std::size_t(0))
      : chunk_words_(chunk_words_for(chunk_bytes, num_chunks)), num_chunks_(num_chunks) {
    storage_ = temp.allocate_scratch<Kokkos::View<std::uint64_t*, Device>>(
        space, label + "::chunks", chunk_words_ * static_cast<std::size_t>(num_chunks), false);
    busy_ = temp.allocate_scratch<Kokkos::View<int*, Device>>(space, label + "::busy", num_chunks, true);
    if (fill_byte >= 0) {
      std::uint64_t word = 0;
      for (int b = 0; b < 8; ++b) word |= std::uint64_t(fill_byte & 0xFF) << (8 * b);
      if (fill_bytes >= chunk_words_ * 8) {
        Kokkos::deep_copy(space, storage_, word);
      } else if (fill_bytes > 0) {
        const std::size_t fill_words = (fill_bytes + 7) / 8;
        const auto n = static_cast<std::int64_t>(fill_words * static_cast<std::size_t>(num_chunks));
        using Words = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
        Kokkos::parallel_for(label + "::fill_prefixes", Words(space, 0, n),
                             FillPrefixes{storage_, chunk_words_, fill_words, word});
      }
    }
  }

  /// Sets the first `fill_words` words of every chunk to `word`.
  struct FillPrefixes {
    Kokkos::View<std::uint64_t*, Device> storage;
    std::size_t chunk_words, fill_words;
    std::uint64_t word;
    KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
      const auto k = static_cast<std::size_t>(i);
      storage(k / fill_words * chunk_words + k % fill_words) = word;
    }
  };

  KOKKOS_INLINE_FUNCTION int num_chunks() const { return num_chunks_; }
  KOKKOS_INLINE_FUNCTION std::size_t chunk_bytes() const { return chunk_words_ * 8; }

  /// 8-byte words of a chunk of `chunk_bytes` rounded up to 16 bytes. A
  /// pool past the size type's range would wrap to a few bytes here (and
  /// its teams write past them): refused.
  static std::size_t chunk_words_for(std::size_t chunk_bytes, int num_chunks) {
    const std::size_t chunks = static_cast<std::size_t>(num_chunks > 1 ? num_chunks : 1);
    if (chunk_bytes / 16 >= std::numeric_limits<std::size_t>::max() / 16 / chunks)
      throw internal_error("gustav: a memory pool of " + std::to_string(chunks) + " chunks of " +
                           std::to_string(chunk_bytes) + " bytes exceeds the address range");
    return (chunk_bytes + 15) / 16 * 2;
  }

  /// Claims a free chunk, starting the search at `hint` so that teams spread
  /// out; call from a single thread of the team.
  KOKKOS_INLINE_FUNCTION int acquire(int hint) const {
    int c = hint % num_chunks_;
    while (true) {
      const int seen = *reinterpret_cast<volatile int*>(&busy_(c));
      if (seen == 0 && Kokkos::atomic_compare_exchange(&busy_(c), 0, 1) == 0) {
        Kokkos::memory_fence();
        return c;
      }
      c = (c + 1 == num_chunks_) ? 0 : c + 1;
    }
  }

  KOKKOS_INLINE_FUNCTION void release(int c) const {
    Kokkos::memory_fence();
    Kokkos::atomic_exchange(&busy_(c), 0);
  }

  KOKKOS_INLINE_FUNCTION char* chunk(int c) const {
    return reinterpret_cast<char*>(storage_.data() + chunk_words_ * static_cast<std::size_t>(c));
  }

  void free(TempMemory& temp) {
    temp.release(storage_);
    temp.release(busy_);
  }

 private:
  std::size_t chunk_words_ = 0;
  int num_chunks_ = 0;
  Kokkos::View<std::uint64_t*, Device> storage_;
  Kokkos::View<int*, Device> busy_;
};

}  // namespace gustav::detail
