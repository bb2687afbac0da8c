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
#include <utility>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "gustav/common/block_cache.hpp"
#include "gustav/common/launch.hpp"
#include "gustav/common/page_reporting.hpp"
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

/// allocate_view, with the huge-page advice for host arrays of at least
/// huge_page_advice_bytes given only where `huge_pages` is set.
template <class View, class ExecSpace>
View allocate_view_advised(const ExecSpace& space, const std::string& label, std::size_t n, bool zero,
                           bool huge_pages) {
  using T = typename View::value_type;
  try {
    if constexpr (std::is_same_v<typename View::memory_space, Kokkos::HostSpace>) {
      if (huge_pages && n * sizeof(T) >= huge_page_advice_bytes) {
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

/// Allocates a rank-1 view of n elements. `zero` fills it with T{} on `space`;
/// otherwise the contents are undefined (the caller writes every element).
template <class View, class ExecSpace>
View allocate_view(const ExecSpace& space, const std::string& label, std::size_t n, bool zero) {
  return allocate_view_advised<View>(space, label, n, zero, true);
}

/// Whether C's arrays (handed to the caller, fresh on every call) are
/// advised onto huge pages: everywhere but where free memory goes back to a
/// hypervisor (page_reporting.hpp). There a huge page that was free for a
/// few seconds has been handed back, and its first touch waits for the
/// host to provide 2 MiB again. Two threads of such a virtual machine
/// (AMD EPYC), 2026-11-29: 200 MB touched a byte a page after 3 s idle took
/// 165-257 ms on huge pages and 55-63 ms on small ones (9-16 ms on huge
/// pages freed just before); `gustav bench` one-shot totals in processes run
/// in turn, C on huge pages -> not: lap3d:60 46.8, 67.3 -> 38.4, 41.0 ms,
/// lap2d:600:9 146, 147 -> 70, 74, lap3d:120's A * P 258, 350 -> 193, 200
/// (rmat:14:8, er:300000:6 within their spread). A machine that reports
/// nothing keeps them (16 threads of an Intel Xeon without reporting: 400
/// MB faulted in 9-11 ms on huge pages, 21-30 on small). Temporaries keep
/// the advice everywhere: they come back from the block cache still
/// mapped, and a dense accumulator's scattered accesses need fewer TLB
/// entries on huge pages.
inline bool result_huge_pages() { return !free_pages_reported_to_hypervisor(); }

/// allocate_view for an array of C, advised onto huge pages only where
/// result_huge_pages() says so.
template <class View, class ExecSpace>
View allocate_result_view(const ExecSpace& space, const std::string& label, std::size_t n, bool zero) {
  return allocate_view_advised<View>(space, label, n, zero, result_huge_pages());
}

/// Bytes between page touches of touch_pages_in_parallel: the smallest page.
constexpr std::size_t touched_page_bytes = 4096;

/// Asks the kernel to fault [begin, begin + bytes) in for writing in one
/// call (MADV_POPULATE_WRITE, Linux 5.14 on), without a trap per page;
/// `begin` is page-aligned. False where it is not offered or did not
/// complete (the caller then touches the pages itself).
inline bool populate_for_writing(void* begin, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  return madvise(begin, bytes, MADV_POPULATE_WRITE) == 0;
#else
  (void)begin;
  (void)bytes;
  return false;
#endif
}

/// Puts a fresh host array's pages in place before a kernel with a dynamic
/// schedule writes it, each thread taking one contiguous stretch of pages.
/// Threads that take rows in turn write neighbouring parts of the output,
/// so each 2 MiB huge page of a fresh array was faulted by several of them
/// at once, the others waiting while one had the kernel clear it. Sixteen
/// threads of an Intel Xeon, 2026-11-29, `gustav multiply` totals (C's
/// arrays first touched in parallel, a byte a page, then the write pass)
/// in processes run in turn: lap3d:120 A*P 50.8, 48.7 -> 41.2, 38.2 ms
/// (Kokkos Kernels' best 34.5 in the same session), lap3d:120 99.2, 88.6 ->
/// 76.6, 78.3; er:1000000:8 and er:200000:4 within their spread.
///
/// A thread asks the kernel to populate its stretch in one call where it
/// can, and writes a byte a page otherwise. On small pages each page's trap
/// costs about as much as clearing it: two threads of a virtual machine,
/// 72 MB faulted in 17 ms a byte a page and in 11-12 ms by populating each
/// half; 200 MB of huge pages 8.9 against 8.7 ms. Where C is on small pages
/// (result_huge_pages) the touch stays: `gustav bench` one-shot totals with
/// a byte a page and without the touch, lap2d:600:9 70, 74 against 74, 81
/// ms, the others level. The contents stay undefined; only arrays of at
/// least huge_page_advice_bytes, on host spaces, are touched.
template <class ExecSpace, class View>
void touch_pages_in_parallel(const ExecSpace& space, const View& v, const char* label) {
  if constexpr (is_host_space<ExecSpace>()) {
    const std::size_t bytes = v.span() * sizeof(typename View::value_type);
    if (bytes < huge_page_advice_bytes) return;
    auto* const base = reinterpret_cast<unsigned char*>(v.data());
    // Whole pages from the first page boundary in the array; the bytes
    // before it share a page with whatever precedes the array.
    const std::size_t lead = (touched_page_bytes - reinterpret_cast<std::uintptr_t>(base) % touched_page_bytes) %
                             touched_page_bytes;
    const auto pages = static_cast<std::int64_t>((bytes - lead) / touched_page_bytes);
    const std::int64_t stretches = std::max<std::int64_t>(1, std::min<std::int64_t>(space.concurrency(), pages));
    base[0] = 0;
    base[bytes - 1] = 0;
    Kokkos::parallel_for(
        label,
        Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>, Kokkos::IndexType<std::int64_t>>(
            space, 0, stretches),
        [=](const std::int64_t t) {
          const std::int64_t first = pages * t / stretches;
          const std::int64_t last = pages * (t + 1) / stretches;
          unsigned char* const at = base + lead + static_cast<std::size_t>(first) * touched_page_bytes;
          const std::size_t length = static_cast<std::size_t>(last - first) * touched_page_bytes;
          if (length == 0 || populate_for_writing(at, length)) return;
          for (std::size_t b = 0; b < length; b += touched_page_bytes) at[b] = 0;
        });
    space.fence();
  } else {
    (void)space;
    (void)v;
    (void)label;
  }
}

/// allocate_result_view for an array of C that a dynamically scheduled
/// pass writes next (the numeric phase's values): its pages are put in
/// place first, as the one-shot product's are (touch_pages_in_parallel).
template <class View, class ExecSpace>
View allocate_result_view_in_place(const ExecSpace& space, const std::string& label, std::size_t n) {
  View v = allocate_result_view<View>(space, label, n, false);
  touch_pages_in_parallel(space, v, (label + "::touch").c_str());
  return v;
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
  TempMemory() = default;
  TempMemory(const TempMemory&) = delete;
  TempMemory& operator=(const TempMemory&) = delete;
  /// Host scratch still held goes back to the block cache: its views are
  /// the caller's locals, gone with it (host kernels have finished).
  ~TempMemory() {
    for (auto& h : scratch_) HostCache::instance().give(std::move(h.block));
  }

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
    check_room(label, n * sizeof(typename View::value_type));
    View v = allocate_view<View>(space, label, n, zero);
    current_ += view_bytes(v);
    peak_ = std::max(peak_, current_);
    return v;
  }

  /// A temporary that does not outlive this TempMemory and goes back
  /// through release(). In host memory it is carved from a block of the
  /// block cache (block_cache.hpp), which it rejoins when released, so a
  /// repeated call finds its pages mapped and does not pay for the kernel
  /// clearing them again; the view is unmanaged then, and this object owns
  /// the block until release. It counts its own bytes towards the budget
  /// and the peak, as allocate() does. Elsewhere it is allocate().
  template <class View, class ExecSpace>
  View allocate_scratch(const ExecSpace& space, const std::string& label, std::size_t n, bool zero) {
    using T = typename View::value_type;
    if constexpr (!std::is_same_v<typename View::memory_space, Kokkos::HostSpace>) {
      return allocate<View>(space, label, n, zero);
    } else {
      const std::size_t words = (n * sizeof(T) + 7) / 8;
      check_room(label, n * sizeof(T));
      typename HostCache::Block block = HostCache::instance().take(words * 8, room());
      if (!block.data()) block = allocate_view<typename HostCache::Block>(space, label, words, false);
      View v(reinterpret_cast<T*>(block.data()), n);
      if (zero) Kokkos::deep_copy(space, v, T{});
      // The request counts, not the block: a kept block's spare bytes were
      // the cache's before the call, and counting them would make the
      // budget's verdict depend on what earlier calls left behind.
      const std::size_t bytes = n * sizeof(T);
      current_ += bytes;
      peak_ = std::max(peak_, current_);
      scratch_.push_back(HeldScratch{std::move(block), bytes});
      return v;
    }
  }

  /// Drops the caller's reference and the view's bytes from the running
  /// total; host scratch rejoins the block cache.
  template <class View>
  void release(View& v) {
    for (std::size_t i = 0; v.data() && i < scratch_.size(); ++i) {
      if (static_cast<const void*>(scratch_[i].block.data()) == static_cast<const void*>(v.data())) {
        current_ -= std::min(current_, scratch_[i].bytes);
        v = View();
        HostCache::instance().give(std::move(scratch_[i].block));
        scratch_.erase(scratch_.begin() + static_cast<std::ptrdiff_t>(i));
        return;
      }
    }
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
  using HostCache = BlockCache<Kokkos::HostSpace::device_type>;
  struct HeldScratch {
    typename HostCache::Block block;
    std::size_t bytes = 0;
  };

  void check_room(const std::string& label, std::size_t bytes) const {
    if (bytes <= room()) return;
    std::ostringstream s;
    s << label << ": " << bytes << " bytes of temporaries on top of the " << current_
      << " already held exceed the memory budget of " << budget_
      << " bytes (SpgemmOptions::memory_budget_bytes); the budget must cover the O(rows) analysis arrays "
         "and one accumulator chunk";
    throw allocation_error(s.str());
  }

  std::size_t current_ = 0;
  std::size_t peak_ = 0;
  std::size_t budget_ = 0;
  std::vector<HeldScratch> scratch_;
};

}  // namespace gustav::detail
