#pragma once
/// Reading a CPU dense accumulator's row out in column order: the words of
/// its leveled bitmap (leveled_bitmap.hpp) that the row set, listed as they
/// were first touched, and then each word's columns written to C. The
/// structure pass (symbolic_pass.hpp, fill) and the one-shot write pass
/// (write_pass.hpp) both end their rows here; they and the counting pass
/// mark their words with mark_word and mark_new_bits.
///
/// One thread owns the accumulator: no atomics.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gustav/accumulators/leveled_bitmap.hpp"
#include "gustav/common/bits.hpp"
#include "gustav/team/sort_and_scan.hpp"

namespace gustav::detail {

/// A row's read-out sorts its list of set words where the list is nearly
/// in order and sorting it costs less than scanning the words between its
/// lowest and highest; scans where those are at most this many words per
/// set word apart; and descends the bitmap's summary levels otherwise.
/// Two threads of an AMD EPYC (1 MiB of L2 a core), 2026-12-06, one-shot
/// ms in alternating processes, 8 -> 4: rmat:16:2:5 47.1, 45.1, 45.3 ->
/// 44.6, 44.4, 43.2; ca-HepPh 42.1, 41.1, 45.4 -> 40.2, 39.0, 41.8;
/// lap3d:60 29.6, 29.9, 29.9 -> 29.0, 28.4, 27.4; seven others level. At 2,
/// ca-HepPh lost again (41.3, 42.1 -> 45.3, 44.8): a scan past a few empty
/// words costs less than a descent.
constexpr std::int64_t scan_words_per_set_word = 4;
/// A list of set words in which at most this many words come after a
/// higher one is put in order by insertion: each such word moves at most
/// the list's length, the others not at all.
constexpr std::int64_t late_words_max = 4;

/// Sets `bits` in word w without a branch on whether the word is new (it
/// would mispredict on about every other product of a sparse row): the
/// word's index goes into the list's spare slot either way and is kept by
/// advancing the list's end. `touched` holds one slot more than the row can
/// set. Returns the list's new length.
template <class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t mark_word(std::uint32_t* words, Ordinal* touched, Ordinal w, std::uint32_t bits,
                                                   std::int64_t set_words) {
  const std::uint32_t before = words[w];
  words[w] = before | bits;
  touched[set_words] = w;
  return set_words + (before == 0 ? 1 : 0);
}

/// Sets `bits` in word w only where one of them is new, listing the word
/// when it was empty: where A streams through B whether a key adds a column
/// follows the same pattern from row to row, so the test predicts well and
/// keys adding nothing store nothing. Returns the list's new length.
template <class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t mark_new_bits(std::uint32_t* words, Ordinal* touched, Ordinal w,
                                                       std::uint32_t bits, std::int64_t set_words) {
  const std::uint32_t before = words[w];
  if (bits & ~before) {
    words[w] = before | bits;
    if (before == 0) touched[set_words++] = w;
  }
  return set_words;
}

/// Calls emit(w, word) for the row's set words in ascending order (the
/// summary levels are set here, from the list, where they are descended).
/// The list is nearly in order where B's rows overlap (a stencil's rows),
/// in no order where they are random: count the words that come after a
/// higher one. EmptyWords: the scan may call emit for the empty words
/// between the set ones too (no branch on each word's being set). The
/// caller clears the words it is given; the levels clear themselves.
template <bool EmptyWords, class Ordinal, class Emit>
KOKKOS_INLINE_FUNCTION void emit_set_words_in_order(const LeveledBitmap& bitmap, Ordinal* touched,
                                                    std::int64_t set_words, std::int64_t bitmap_words,
                                                    const Emit& emit) {
  std::int64_t lo = bitmap_words, hi = -1, late = 0;
  for (std::int64_t t = 0; t < set_words; ++t) {
    const std::int64_t w = touched[t];
    late += w < hi ? 1 : 0;
    lo = w < lo ? w : lo;
    hi = w > hi ? w : hi;
  }
  const std::int64_t span = hi - lo + 1;
  if (late <= late_words_max && set_words * (late + 1) < span) {
    insertion_sort_pairs(touched, static_cast<int*>(nullptr), set_words);
    for (std::int64_t t = 0; t < set_words; ++t) emit(touched[t], bitmap.words[touched[t]]);
  } else if (span <= scan_words_per_set_word * set_words) {
    for (std::int64_t w = lo; w <= hi; ++w)
      if (EmptyWords || bitmap.words[w]) emit(w, bitmap.words[w]);
  } else {
    // Scattered words: their summary levels, set from the list now rather
    // than during the walk (a branch per product), give them in order
    // without a sort.
    for (std::int64_t t = 0; t < set_words; ++t) bitmap.mark_summaries(touched[t]);
    bitmap.drain(lo, hi, emit);
  }
}

/// Columns written for every word by write_word_columns, however few it holds.
constexpr int unrolled_word_columns = 4;

/// Calls put(i, c, inside) for the columns c of a word (`base` = its first
/// column), i = 0, 1, ... their places in a row after `out`, in order, and
/// returns the place after them. Where the row has room for
/// unrolled_word_columns more past them, that many lanes are put whatever
/// the word holds (inside = true), the lanes past its columns taking its
/// highest column (base + 31), and the next word's columns overwrite those
/// places: on power-law and random rows a word holds one to three columns,
/// and a loop per bit mispredicts its end on about every word (two threads
/// of an AMD EPYC, 2026-12-06, `gustav multiply --reps 5`, one-shot ms in
/// alternating processes: rmat:16:2:5 46.8, 46.6 -> 42.4, 42.7; ca-HepPh
/// 47.2, 46.1 -> 44.7, 44.6; rmat:14:8, lap3d:60, lap3d:40:27,
/// lap2d:600:9, er:300000:6, delaunay_n16 within their spread). Near the
/// row's end each column is put once, with inside = (out + i < end):
/// nothing may be written at or past `end`.
template <class Ordinal, class Put>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t put_word_columns(Ordinal base, std::uint32_t word, std::int64_t out,
                                                          std::int64_t end, const Put& put) {
  const int count = popcount32(word);
  if (out + count + unrolled_word_columns <= end) {
    std::uint32_t m = word;
    // The top bit keeps an empty word's lowest bit defined.
    for (int i = 0; i < unrolled_word_columns; ++i, m &= m - 1) put(i, base + lowest_bit32(m | 0x80000000u), true);
    for (int i = unrolled_word_columns; m; ++i, m &= m - 1) put(i, base + lowest_bit32(m), true);
  } else {
    for (int i = 0; word; word &= word - 1, ++i) put(i, base + lowest_bit32(word), out + i < end);
  }
  return out + count;
}

/// Writes the columns of word w to `row` (put_word_columns).
template <class Ordinal>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t write_word_columns(Ordinal* row, Ordinal base, std::uint32_t word,
                                                            std::int64_t out, std::int64_t end) {
  Ordinal* const to = row + out;
  return put_word_columns(base, word, out, end, [&](int i, Ordinal c, bool inside) {
    if (inside) to[i] = c;
  });
}

/// write_word_columns with each column's value beside it: values[column] is
/// copied to `row_values` at the column's place and cleared, inside the row
/// or not. A lane past the word's columns takes its highest column, either
/// one of its columns, already copied and cleared, or an empty one, whose
/// value is zero.
template <class Ordinal, class Scalar>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t write_word_entries(Ordinal* row, Scalar* row_values, Scalar* values,
                                                            Ordinal base, std::uint32_t word, std::int64_t out,
                                                            std::int64_t end) {
  Ordinal* const to = row + out;
  Scalar* const to_value = row_values + out;
  return put_word_columns(base, word, out, end, [&](int i, Ordinal c, bool inside) {
    if (inside) {
      to[i] = c;
      to_value[i] = values[c];
    }
    values[c] = Scalar(0);
  });
}

}  // namespace gustav::detail
