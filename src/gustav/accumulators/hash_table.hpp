#pragma once
/// Open-addressing hash set of column (or column-set) keys with linear
/// probing, over raw memory: the same code serves the level-1 table in team
/// scratch and the level-2 table in a memory-pool chunk. Payloads (masks,
/// positions) live in parallel arrays owned by the caller, indexed by slot.
///
/// Keys are only ever written once (empty -> key) and never removed while a
/// row is processed. That makes a bounded probe sequence a consistent
/// decision: if every slot a key may occupy in level 1 is held by other keys,
/// that stays true, so every lane sends that key to level 2.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/common/bits.hpp"

namespace gustav::detail {

template <class Key, class Concurrency>
struct HashTable {
  static constexpr Key empty = Key(-1);

  Key* keys = nullptr;
  int log2_slots = 0;

  KOKKOS_INLINE_FUNCTION int slots() const { return 1 << log2_slots; }
  KOKKOS_INLINE_FUNCTION bool valid() const { return keys != nullptr; }

  /// Finds `key` or claims an empty slot for it within `max_probes` probes.
  /// Returns the slot, or -1 when every probed slot holds another key;
  /// `fresh` is set when this call claimed the slot.
  KOKKOS_INLINE_FUNCTION int insert(Key key, int max_probes, bool& fresh) const {
    const std::uint32_t mask = static_cast<std::uint32_t>(slots() - 1);
    std::uint32_t s = hash_slot(key, log2_slots);
    for (int probe = 0; probe < max_probes; ++probe) {
      const Key current = Concurrency::load(keys + s);
      if (current == key) return static_cast<int>(s);
      if (current == empty) {
        const Key old = Concurrency::compare_exchange(keys + s, empty, key);
        if (old == empty) {
          fresh = true;
          return static_cast<int>(s);
        }
        if (old == key) return static_cast<int>(s);
      }
      s = (s + 1) & mask;
    }
    return -1;
  }

  /// Slot of `key`; -1 when an empty slot proves it absent, -2 when
  /// `max_probes` slots all hold other keys (look in level 2).
  KOKKOS_INLINE_FUNCTION int find(Key key, int max_probes) const {
    const std::uint32_t mask = static_cast<std::uint32_t>(slots() - 1);
    std::uint32_t s = hash_slot(key, log2_slots);
    for (int probe = 0; probe < max_probes; ++probe) {
      const Key current = keys[s];
      if (current == key) return static_cast<int>(s);
      if (current == empty) return -1;
      s = (s + 1) & mask;
    }
    return -2;
  }
};

}  // namespace gustav::detail
