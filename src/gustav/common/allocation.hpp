#pragma once
/// Every allocation Gustav makes goes through here: labelled on the caller's
/// execution space, turned into gustav::allocation_error (naming what and how
/// large) when the memory is not there, and counted towards the phase's
/// peak temporary memory when it is a temporary.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "gustav/errors.hpp"

namespace gustav::detail {

/// Host arrays of at least this many bytes are asked to live on huge pages.
constexpr std::size_t huge_page_advice_bytes = std::size_t(4) << 20;

/// Asks the kernel to back an untouched host array with transparent huge
/// pages where it is set to do so on request (Linux's "madvise" mode): the
/// first touch of C's arrays and of the accumulators then costs one fault
/// per 2 MiB instead of one per 4 KiB, which was a fifth of a one-shot
/// product on CPUs. A hint only: nothing changes where it is not taken.
inline void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const std::uintptr_t page = 4096;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

/// Allocates a rank-1 view of n elements. `zero` fills it with T{} on `space`;
/// otherwise the contents are undefined (the caller writes every element).
template <class View, class ExecSpace>
View allocate_view(const ExecSpace& space, const std::string& label, std::size_t n, bool zero) {
  using T = typename View::value_type;
  try {
    if constexpr (std::is_same_v<typename View::memory_space, Kokkos::HostSpace>) {
      if (n * sizeof(T) >= huge_page_advice_bytes) {
        View v(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label), n);
        advise_huge_pages(v.data(), n * sizeof(T));
        if (zero) Kokkos::deep_copy(space, v, T{});
        return v;
      }
    }
    if (zero) return View(Kokkos::view_alloc(space, label), n);
    return View(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label), n);
  } catch (const std::exception& e) {
    std::ostringstream s;
    s << label << ": could not allocate " << n << " x " << sizeof(T) << " bytes ("
      << static_cast<double>(n) * sizeof(T) / (1 << 20) << " MiB) in "
      << View::memory_space::name() << ": " << e.what();
    throw allocation_error(s.str());
  }
}

/// Bytes held by a view.
template <class View>
std::size_t view_bytes(const View& v) {
  return v.span() * sizeof(typename View::value_type);
}

/// Running and peak total of the temporaries of one phase, held within an
/// optional budget (SpgemmOptions::memory_budget_bytes).
class TempMemory {
 public:
  /// Refuses, with gustav::allocation_error, any temporary that would take
  /// the running total past `bytes` (0: no budget).
  void set_budget(std::size_t bytes) { budget_ = bytes; }

  /// Bytes that may still be allocated within the budget.
  std::size_t room() const {
    if (budget_ == 0) return static_cast<std::size_t>(-1);
    return budget_ > current_ ? budget_ - current_ : 0;
  }

  template <class View, class ExecSpace>
  View allocate(const ExecSpace& space, const std::string& label, std::size_t n, bool zero) {
    const std::size_t bytes = n * sizeof(typename View::value_type);
    if (bytes > room()) {
      std::ostringstream s;
      s << label << ": " << bytes << " bytes of temporaries on top of the " << current_
        << " already held exceed the memory budget of " << budget_
        << " bytes (SpgemmOptions::memory_budget_bytes); the budget must cover the O(rows) analysis arrays "
           "and one accumulator chunk";
      throw allocation_error(s.str());
    }
    View v = allocate_view<View>(space, label, n, zero);
    current_ += view_bytes(v);
    peak_ = std::max(peak_, current_);
    return v;
  }

  /// Drops the caller's reference and the view's bytes from the running total.
  template <class View>
  void release(View& v) {
    current_ -= std::min(current_, view_bytes(v));
    v = View();
  }

  /// Counts memory that outlives the phase but belongs to it (plan arrays),
  /// or a temporary the caller holds already (a kept block, which room()
  /// allowed for).
  void add_resident(std::size_t bytes) {
    current_ += bytes;
    peak_ = std::max(peak_, current_);
  }

  std::size_t peak() const { return peak_; }
  std::size_t current() const { return current_; }

 private:
  std::size_t current_ = 0;
  std::size_t peak_ = 0;
  std::size_t budget_ = 0;
};

}  // namespace gustav::detail
