#pragma once
// A matrix's structure with values drawn anew: the input of a plan's
// repeat (gustav::numeric with new values on the same structure).
#include <cstdint>

#include "support/random_csr.hpp"

namespace gustav::test {

/// `m` with every value replaced by random_value draws from `seed`.
template <class S, class O, class Z>
HostCsr<S, O, Z> with_new_values(HostCsr<S, O, Z> m, std::uint64_t seed) {
  Rng rng(seed);
  for (auto& v : m.values) v = random_value<S>(rng);
  return m;
}

}  // namespace gustav::test
