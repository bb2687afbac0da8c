#pragma once
/// The two-level hashmap accumulator of KKMEM (seed 002). Level 1 lives in
/// team scratch (GPU shared memory; a cache-sized buffer on CPUs) and is
/// probed a bounded number of times; keys that find no room there go to
/// level 2, a table in global memory that only rows which can overflow level
/// 1 take from the memory pool. A key lives in exactly one level (see
/// hash_table.hpp for why the bounded probe makes that consistent).
///
/// Two payloads are used: a 32-bit column mask OR-ed per key (symbolic phase)
/// and the key's position in its row of C (numeric phase lookups).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/hash_table.hpp"

namespace gustav::detail {

template <class Key, class Concurrency, class Payload>
struct TwoLevelHashmap {
  HashTable<Key, Concurrency> level1;
  Payload* level1_payload = nullptr;
  int level1_probes = 0;  ///< 0 sends every key to level 2
  HashTable<Key, Concurrency> level2;  ///< keys == nullptr: no level 2
  Payload* level2_payload = nullptr;

  /// Slot payload for `key`, claiming a slot if the key is new (then `fresh`
  /// is set); nullptr when no level has room (a sizing bug the caller reports).
  KOKKOS_INLINE_FUNCTION Payload* claim(Key key, bool& fresh) const {
    if (level1_probes > 0) {
      const int s = level1.insert(key, level1_probes, fresh);
      if (s >= 0) return level1_payload + s;
    }
    if (!level2.valid()) return nullptr;
    const int s = level2.insert(key, level2.slots(), fresh);
    return s >= 0 ? level2_payload + s : nullptr;
  }

  /// Payload of an existing key; nullptr when the key is in neither level.
  KOKKOS_INLINE_FUNCTION const Payload* find(Key key) const {
    if (level1_probes > 0) {
      const int s = level1.find(key, level1_probes);
      if (s >= 0) return level1_payload + s;
      if (s == -1) return nullptr;
    }
    if (!level2.valid()) return nullptr;
    const int s = level2.find(key, level2.slots());
    return s >= 0 ? level2_payload + s : nullptr;
  }
};

}  // namespace gustav::detail
