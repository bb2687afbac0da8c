#pragma once
/// The symbolic phase: analysis, compression of B, the counting pass (nnz of
/// every row of C, then the exact allocation of C), the fill pass (C's
/// column indices), and the numeric schedule. Everything it allocates for
/// itself is released before it returns; the plan keeps C's row map and
/// entries and the numeric binning.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "gustav/analysis/binning.hpp"
#include "gustav/analysis/row_bounds.hpp"
#include "gustav/common/allocation.hpp"
#include "gustav/common/host_caches.hpp"
#include "gustav/common/spread_sort.hpp"
#include "gustav/common/types.hpp"
#include "gustav/compression/compressed_rows.hpp"
#include "gustav/errors.hpp"
#include "gustav/plan.hpp"
#include "gustav/spgemm/kernel_errors.hpp"
#include "gustav/spgemm/hierarchical_phases.hpp"
#include "gustav/spgemm/mapping.hpp"
#include "gustav/spgemm/numeric_pass.hpp"
#include "gustav/spgemm/symbolic_pass.hpp"
#include "gustav/spgemm/tier_kernel.hpp"
#include "gustav/spgemm/write_pass.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// On CPUs, where the symbolic passes are bound by the work per product and
/// compressing costs one cheap pass over B, removing a tenth of B's entries
/// already pays: on an R-MAT graph at ratio 0.81 compression cut both passes
/// by 30-40%. (The hierarchical mapping does not compress.)
constexpr double compression_worthwhile_ratio_host = 0.9;

/// The write pass marks C's columns by B's compressed runs (a word and its
/// mask each; it is given the compressed B for that) only where they number
/// this many or fewer per entry of B:
/// above it a run marks little more than an entry does, and walking the
/// runs beside the entries costs more than it saves. Measured on 2 threads
/// (AMD EPYC, paired runs): marking by B's entries took 22-24% less time in
/// all for lap3d:120's A * P (ratio 0.76), 11-18% for its R * (A * P) (0.61),
/// 12-18% for rmat:16:8 (0.81), 4% for delaunay_n16 (0.48); marking by runs
/// 5% less for the 27-point Laplacian (0.35) and 10-19% for brick's
/// R * (A * P) (0.14).
constexpr double write_runs_worthwhile_ratio = 0.4;

/// On GPUs a row with more products than this many times the largest table
/// that fits scratch takes the multi-team long-row path whatever its number
/// of columns, so that no single team is left with a hub row.
constexpr std::int64_t products_per_slot_of_work = 8;

/// The product count beyond which a row is long (0: no long-row path).
inline std::int64_t long_row_products(const std::vector<Tier>& tiers) {
  if (tiers.empty() || !tiers.back().long_rows) return 0;
  std::int64_t largest = 1;
  for (const auto& t : tiers)
    if (!t.long_rows) largest = std::max(largest, t.max_need);
  return products_per_slot_of_work * largest;
}

/// Long rows use their dense accumulator when at least this many of them fit
/// the pool at once; otherwise they keep the two-level hashmap.
constexpr std::int64_t min_long_rows_per_batch = 8;

template <class NeedView>
struct NeedFromView {
  NeedView v;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const { return static_cast<std::int64_t>(v(i)); }
};

template <class RowMap>
struct NeedFromRowMap {
  RowMap row_map;
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(std::int64_t i) const {
    return static_cast<std::int64_t>(row_map(i + 1) - row_map(i));
  }
};

inline std::vector<BinUse> bin_uses(const std::vector<Tier>& tiers, const std::vector<std::int64_t>& offsets) {
  std::vector<BinUse> uses;
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    BinUse u;
    u.name = tiers[t].name;
    u.max_need = tiers[t].max_need;
    u.rows = offsets[t + 1] - offsets[t];
    u.vector_length = tiers[t].vector_length;
    u.team_size = tiers[t].team_size;
    u.table_slots = tiers[t].dense ? 0 : 1 << tiers[t].log2_slots;
    uses.push_back(u);
  }
  return uses;
}

/// The largest nnz of a row of C; rows beyond 2^31 - 1 entries are refused.
template <class ExecSpace, class RowMap>
std::int64_t max_row_nnz(const ExecSpace& space, const RowMap& row_map, std::int64_t rows) {
  std::int64_t max_nnz = 0;
  if (rows > 0)
    Kokkos::parallel_reduce("gustav::symbolic::max_row_nnz",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, rows),
                            MaxRowLength<RowMap>{row_map}, Kokkos::Max<std::int64_t>(max_nnz));
  if (max_nnz > std::numeric_limits<int>::max())
    throw overflow_error("gustav::symbolic: a row of C has " + std::to_string(max_nnz) +
                         " entries; rows of more than 2^31 - 1 entries are not supported");
  return max_nnz;
}

/// The widest stretch of columns a row of C spans: its last column less its
/// first, plus one (rows sorted; 0 for an empty row).
template <class RowMap, class Entries>
struct MaxRowSpan {
  RowMap row_map;
  Entries entries;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::int64_t& widest) const {
    const auto b = static_cast<std::int64_t>(row_map(i));
    const auto e = static_cast<std::int64_t>(row_map(i + 1));
    if (e <= b) return;
    const std::int64_t span = static_cast<std::int64_t>(entries(e - 1)) - static_cast<std::int64_t>(entries(b)) + 1;
    if (span > widest) widest = span;
  }
};

template <class ExecSpace, class RowMap, class Entries>
std::int64_t max_row_span(const ExecSpace& space, const RowMap& row_map, const Entries& entries, std::int64_t rows) {
  std::int64_t widest = 0;
  if (rows > 0)
    Kokkos::parallel_reduce("gustav::symbolic::max_row_span",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, rows),
                            MaxRowSpan<RowMap, Entries>{row_map, entries}, Kokkos::Max<std::int64_t>(widest));
  return widest;
}

/// The ring of ring_dense_row takes at most this many times a core's
/// level-2 cache. What a thread keeps hot is not the whole ring but the few
/// slots each of its row's stretches of columns reaches, and these move on
/// by a column a row, so a ring wider than the cache still keeps its lines
/// in use while the positions (a miss into C's row after each) or ranks
/// would not. Two threads of an AMD EPYC (512 KiB of L2 a core),
/// 2026-12-05, numeric-only reuse of `gustav multiply` in processes run in
/// turn, the ring capped at half the L2 (positions or ranks beyond it)
/// against uncapped: lap3d:100 (393 KiB ring) 99.4, 95.7 -> 68.0, 64.7 ms;
/// lap3d:120 (786 KiB) 164 -> 118; lap3d:190 (1.5 MiB, ranked before)
/// 605, 612 -> 563, 532; lap3d:80:27 (393 KiB) 256, 257 -> 259, 258,
/// level: its rows have six products an entry, whose adds dominate either
/// way.
constexpr std::size_t ring_l2_multiple = 4;
/// The most slots of `slot_bytes` a ring may have: ring_l2_multiple times a
/// core's L2, and never more than B's columns.
inline std::int64_t ring_widest(std::int64_t b_cols, std::size_t slot_bytes) {
  return std::min<std::int64_t>(b_cols, static_cast<std::int64_t>(host_l2_bytes() * ring_l2_multiple / slot_bytes));
}
/// The narrowest ring: 1,024 slots (16 KiB with double values), so that
/// narrow rows still share the same few rings' sizes.
constexpr std::int64_t ring_min_width = 1024;
/// The longest row of C whose numeric phase may take a hash table of its
/// columns (DenseRows::hashed): 16,384 slots, 128 KiB with 32-bit columns.
constexpr std::int64_t hashed_rows_max = 2048;
/// Rows of C are hashed only where they average at least this many entries:
/// a position per column of B, even missing the L2, beat a table (or a scan)
/// on rows of a few.
constexpr std::int64_t hashed_rows_mean_min = 16;

/// Builds the numeric schedule (bins by nnz of each row of C); returns the
/// largest nnz of a row.
template <class Types, class ExecSpace, class Plan, class ProductsView>
std::int64_t plan_numeric(const ExecSpace& space, Plan& plan, const Mapping& mapping, std::int64_t b_cols,
                  double avg_b_row, const ProductsView& products, TempMemory& temp) {
  using Ordinal = typename Types::ordinal_type;
  const auto& options = plan.options_;
  auto& schedule = plan.schedule_;
  const std::int64_t rows = plan.a_rows_;
  const auto row_map = plan.c_row_map_;
  const std::int64_t max_nnz = max_row_nnz(space, row_map, rows);
  auto run = [&](auto concurrency) {
    using Pass = NumericPass<ExecSpace, Types, decltype(concurrency)>;
    TierRequest r;
    r.max_load = schedule.max_load;
    r.row_bytes = [&](int log2) { return Pass::region_bytes(log2, capacity_of(log2, r.max_load)); };
    r.spill_row_bytes = [](int log2) { return Pass::region_bytes(log2, 0); };
    r.vector_length = vector_length_for<ExecSpace>(avg_b_row);
    r.max_need = max_nnz;
    // Long rows' tables are sized by their own nnz: always affordable.
    r.long_rows = !mapping.one_thread_per_row;
    // Ranked where a position per column of B does not fit (it took hash
    // tables there) and C's rows are sorted (a rank is a position only in a
    // sorted row). Two threads of the development machine, 2026-11-28,
    // numeric-only reuse of processes run in turn: lap2d:1500:9 (2.25
    // million columns) 341-349 ms with hash tables, 234-238 ranked. Ranked
    // everywhere was slower where the positions fit: er:1000000:8 409-458
    // -> 480-524 ms, er:300000:6 52-60 -> 64-76, lap3d:60 12.6 -> 17.2,
    // lap3d:60's A * P 8.0 -> 10.9.
    const bool ranked = mapping.one_thread_per_row && options.sort_rows && b_cols < (std::int64_t(1) << 31) &&
                        !dense_allowed(mapping, options, Pass::dense_bytes(DenseRows::positions, b_cols));
    // Where A streams through B (stencils, multigrid operators: a row's
    // columns lie close together, so a value per column stays in cache as
    // the positions do) and a value per column of B fits beside the
    // positions (as the automatic choice would take it, even where dense
    // rows are forced) within a core's level-2 cache, rows sum there and
    // copy their values to C after; see numeric_pass.hpp. Numeric-only
    // reuse, processes in turn, 2026-12-04: two threads of an AMD EPYC (512
    // KiB of L2), lap3d:60's A * P 9.7, 9.6 -> 7.8, 7.4 ms. Where the
    // accumulator outgrows the L2 the values triple its lines: 16 threads
    // of an Intel Xeon (2 MiB), lap3d:120's A * P (2.6 MB a thread) 10.8,
    // 10.2 -> 13.7, 12.3 ms and lap3d:120's R * (A * P) 9.2, 9.3 -> 10.2,
    // 10.9, though two AMD threads gained there (80, 80 -> 62, 64 ms): the
    // L2 is the bound under which no measured product lost. Random rows keep the
    // positions alone: with the values on every dense row a product there
    // missed twice (er:300000:6's reuse 81, 118 -> 139, 102 ms, one thread).
    SpgemmOptions automatic = options;
    automatic.accumulator = Accumulator::automatic;
    const std::size_t summed_bytes = Pass::dense_bytes(DenseRows::summed, b_cols);
    const bool summed = !ranked && schedule.prefetch_limit == 0 && dense_allowed(mapping, automatic, summed_bytes) &&
                        summed_bytes <= host_l2_bytes();
    schedule.dense_rows = ranked ? DenseRows::ranked : summed ? DenseRows::summed : DenseRows::positions;
    // Where the values per column do not fit, A streams through B and every
    // row of C spans few columns, rows sum in a ring indexed by the
    // column's low bits instead (see numeric_pass.hpp), whatever B's width.
    // Numeric-only reuse, two threads of an AMD EPYC (512 KiB of L2),
    // bench processes of each tool in turn, 2026-12-04: lap3d:120's A * P
    // 111.6, 114.2 -> 66.1, 65.0 ms against the positions, lap3d:60 19.5,
    // 22.7 -> 13.9, 13.1, lap2d:600:9 40.4, 47.6 -> 28.9, 29.0. Where the
    // values per column fit, they stay: a ring (wider than brick:16's
    // A * P's 1,536 columns) took 9.1, 9.4 -> 10.9, 10.9 ms there. A ring
    // is never wider than B's columns (ring_l2_multiple says how wide it
    // may be against the cache). The span is compared with the slots that
    // fit before any rounding, so no width overflows (B's columns may
    // number up to 2^63).
    schedule.ring_width = 0;
    if constexpr (is_host_space<ExecSpace>()) {
      const std::int64_t widest = ring_widest(b_cols, Pass::ring_slot_bytes);
      if (!summed && widest >= ring_min_width && mapping.one_thread_per_row && options.sort_rows &&
          schedule.prefetch_limit == 0) {
        const std::int64_t span = max_row_span(space, row_map, plan.c_entries_, rows);
        if (span <= widest) {
          std::int64_t width = ring_min_width;
          while (width < span) width *= 2;
          if (width <= widest && dense_allowed(mapping, automatic, Pass::dense_bytes(DenseRows::ring, b_cols, width))) {
            schedule.dense_rows = DenseRows::ring;
            schedule.ring_width = width;
          }
        }
      }
    }
    // Where no ring holds the rows and a position per column of B outgrows
    // a core's L2 (random columns over a wide B), rows find their
    // positions in a hash table of their own columns instead, if every row
    // is short enough for one in that cache and the rows are not mostly a
    // few entries long (numeric_pass.hpp). Numeric-only reuse, 16 threads
    // of an Intel Xeon (2 MiB of L2 a core), two processes each:
    // er:1000000:8 (64 entries a row) 96.5, 94.7 -> 78.1, 69.7 ms hashed;
    // er:1000000:2 (4 a row) 8.1, 7.2 -> 9.5, 8.5, which therefore keeps
    // its positions.
    schedule.hash_log2_slots = 0;
    if constexpr (is_host_space<ExecSpace>()) {
      const bool scattered = schedule.dense_rows == DenseRows::positions || schedule.dense_rows == DenseRows::ranked;
      const auto c_nnz = static_cast<std::int64_t>(plan.c_entries_.extent(0));
      if (mapping.one_thread_per_row && scattered && max_nnz <= hashed_rows_max &&
          c_nnz >= hashed_rows_mean_min * rows &&
          Pass::dense_bytes(DenseRows::positions, b_cols) > host_l2_bytes() &&
          dense_allowed(mapping, automatic, Pass::dense_bytes(DenseRows::hashed, b_cols, max_nnz))) {
        schedule.dense_rows = DenseRows::hashed;
        schedule.hash_log2_slots = Pass::hashed_log2_slots(max_nnz);
      }
    }
    const std::size_t dense_bytes =
        Pass::dense_bytes(schedule.dense_rows, b_cols,
                          schedule.dense_rows == DenseRows::hashed ? max_nnz : schedule.ring_width);
    schedule.tiers = tiers_for(mapping, r, options, dense_bytes);
    schedule.pools.spill_chunk_bytes = Pass::chunk_bytes_for(log2_slots_for(max_nnz, r.max_load));
    schedule.pools.dense_chunk_bytes = dense_bytes;
    // Summed rows zero their own columns' values before adding, and add
    // only where the position says the column is in the row: the pool sets
    // the positions alone (filling the values too tripled the pool's fill
    // for nothing read: two AMD threads, lap3d:80:27's reuse 257, 265 ->
    // 233, 233 ms while it was summed).
    schedule.pools.dense_fill_bytes = Pass::dense_fill_bytes(schedule.dense_rows, b_cols, schedule.ring_width);
    plan.stats_.numeric_rows = uses_dense(schedule.tiers) ? dense_rows_name(schedule.dense_rows) : "";
  };
  if (mapping.one_thread_per_row) {
    run(Exclusive{});
  } else {
    run(Concurrent{});
  }
  // A single dense tier (CPUs) takes every row as it comes, rows without
  // products too: no permutation to build or read, and a product moved into
  // such a row meets no position in it (a row left out would need
  // empty_rows_check.hpp's pass: 4 of 64 ms of a repeat of er:1000000:2 on
  // two threads).
  const bool in_order = is_host_space<ExecSpace>() && schedule.tiers.size() == 1 && schedule.tiers.front().dense;
  schedule.binning =
      in_order ? rows_in_order<typename Types::device_type, Ordinal>(rows)
               : bin_rows<Ordinal>(space, rows,
                                   WorkNeed<NeedFromRowMap<decltype(row_map)>, ProductsView>{
                                       {row_map}, products, long_row_products(schedule.tiers)},
                                   schedule.tiers, "gustav::symbolic::numeric_bins", temp);
  plan.stats_.numeric_bins = bin_uses(schedule.tiers, schedule.binning.offsets);
  plan.stats_.numeric_pool_bytes = 0;
  // CPU plans whose rows of C all fit a 64-bit word learn the entries'
  // masks in their first numeric call (row_masks.hpp); C's rows must be
  // sorted for a bit's position to be a column's.
  schedule.max_row_nnz = max_nnz;
  schedule.row_masks = nullptr;
  if (is_host_space<ExecSpace>() && mapping.one_thread_per_row && options.learn_entry_masks && options.sort_rows &&
      max_nnz > 0 && max_nnz <= RowMasks<typename Types::device_type>::max_row)
    schedule.row_masks = std::make_shared<RowMasks<typename Types::device_type>>();
  return max_nnz;
}

/// Whether the write pass would get its dense accumulator (it has no other).
template <class Types, class ExecSpace, class Source>
bool write_pass_is_dense(const Mapping& mapping, const SpgemmOptions& options, std::int64_t b_cols, bool ranked,
                         bool listing) {
  return dense_allowed(mapping, options, WritePass<ExecSpace, Types, Source>::dense_bytes(b_cols, ranked, listing));
}

/// Whether the write pass may list its short rows (write_pass.hpp:
/// listed_row): where A streams through B, the pass reads B's own entries
/// (B's runs are not kept for it), and a flag per column still fits beside
/// the values (a flag is 1 byte per column: B's width may not pass the
/// dense accumulator's limit for it, lap3d:100's million columns among
/// them, so listing is left out there rather than rows ranked).
template <class Types, class ExecSpace, class Source>
bool write_pass_lists(const Mapping& mapping, const SpgemmOptions& options, std::int64_t b_cols, bool streams,
                      bool b_runs_kept) {
  return streams && !b_runs_kept && write_pass_is_dense<Types, ExecSpace, Source>(mapping, options, b_cols, false, true);
}

/// Whether the write pass ranks its rows (write_pass.hpp) rather than sum
/// them in a value per column of B: where that array does not fit the dense
/// accumulator's limit or the memory budget. The ranked accumulator takes 16
/// bytes per 32 columns, so such products still get their one walk instead
/// of a fill pass and a numeric pass after the count. Measured on 16
/// threads of an Intel Xeon (2 MiB of L2 a core, 300 MiB of L3;
/// 2026-11-28, one-shot totals of processes run in turn): lap2d:2000:9
/// (four million columns) 204-233 ms against 263-327, rmat:20:2 590-638
/// against 725-903, lap3d:120 102-115 against 115-120. Ranking rows whose
/// values fit was not kept: uniform random rows over a million columns
/// gained (er:1000000:2 24-26 ms against 28-35) or lost (er:1000000:8
/// 224-259 against 208-258), rmat:18:4 and er:200000:4 moved within the
/// spread of processes, and rows over fewer columns lost (rmat:16:8 109-114
/// against 80-93). A rank is a 32-bit position in C's row.
template <class Types, class ExecSpace, class Source>
bool write_pass_is_ranked(const Mapping& mapping, const SpgemmOptions& options, std::int64_t b_cols) {
  return b_cols < (std::int64_t(1) << 32) &&
         !write_pass_is_dense<Types, ExecSpace, Source>(mapping, options, b_cols, false, false);
}

/// gustav::multiply on the thread-per-row mapping: every row's columns and
/// values written at once (write_pass.hpp), every row in order. Returns the
/// pool's bytes; `uses` gets the one bin.
template <class Types, class ExecSpace, class AIn, class BIn, class Source, class Plan, class ProductsView>
std::size_t write_rows_thread_per_row(const ExecSpace& space, const AIn& A, const BIn& B, const Source& source,
                                      Plan& plan, const Mapping& mapping, const ProductsView& products,
                                      std::int64_t max_nnz, std::int64_t max_products, bool ranked, bool listing,
                                      const typename Types::c_values& values, TempMemory& temp,
                                      std::vector<BinUse>& uses) {
  using Pass = WritePass<ExecSpace, Types, Source>;
  const auto row_map = plan.c_row_map_;
  TierRequest r;
  r.max_load = 0.5;
  r.row_bytes = [](int log2) { return Pass::region_bytes(log2, 0); };
  r.spill_row_bytes = r.row_bytes;
  r.max_need = max_nnz;
  // Ranked rows where A streams through B are summed in a ring first
  // (write_pass.hpp: ring_row), as wide as a value and a column per slot fit
  // ring_l2_multiple times a core's L2 (the ring's fronts, not the ring,
  // stay in cache: see plan_numeric), a power of two no wider than B. Rows
  // spanning more columns than that are ranked as before. Two threads of an
  // AMD EPYC, 2026-12-05, `gustav multiply` one-shot totals in processes run
  // in turn: lap3d:120 449.7 -> 403.1 ms (its write pass 249 -> 198),
  // lap2d:2000:9 1035.7, 997.5 -> 970.6, 970.7. Rows whose value per column
  // fits keep it: the ring there took lap3d:120's A * P's write pass from 97
  // to 121 ms and lap3d:60's from 22 to 25 (its column per slot and the sort
  // of its words cost more than the bitmap's scan).
  std::int64_t ring_width = 0;
  std::size_t dense_bytes = Pass::dense_bytes(B.num_cols, ranked, listing);
  std::size_t dense_fill_bytes = ~std::size_t(0);
  if constexpr (is_host_space<ExecSpace>()) {
    if (ranked && plan.schedule_.prefetch_limit == 0) {
      const std::int64_t widest = ring_widest(B.num_cols, sizeof(typename Pass::RingSlot));
      std::int64_t width = ring_min_width;
      while (2 * width <= widest) width *= 2;
      std::size_t fill = 0;
      std::size_t bytes = Pass::ring_chunk_bytes(B.num_cols, ranked, listing, width, fill);
      // Where a core's L2 allows a ring that, beside the pass's bitmap and
      // ranks, passes the dense accumulator's limit (an Intel Xeon's 2 MiB
      // allow 8 MiB of slots), the ring is narrowed until it fits: rows
      // spanning more columns are ranked, the others keep the ring.
      while (width > ring_min_width && !dense_allowed(mapping, plan.options_, bytes)) {
        width /= 2;
        bytes = Pass::ring_chunk_bytes(B.num_cols, ranked, listing, width, fill);
      }
      if (width <= widest && dense_allowed(mapping, plan.options_, bytes)) {
        ring_width = width;
        dense_bytes = bytes;
        dense_fill_bytes = fill;
      }
    }
  }
  const auto tiers = tiers_for(mapping, r, plan.options_, dense_bytes);
  // The dense accumulator is the only tier (write_pass_is_dense): every row
  // in order, no binning.
  if (tiers.size() != 1 || !tiers.front().dense)
    throw internal_error("gustav::multiply: the write pass was planned without its dense accumulator");
  const auto binning = rows_in_order<typename Types::device_type, typename Types::ordinal_type>(A.num_rows);
  uses = bin_uses(tiers, binning.offsets);
  auto errors = make_error_flag<typename Types::device_type>(space, "gustav::multiply::errors");
  Pass pass;
  pass.a_row_map = A.row_map;
  pass.a_entries = A.entries;
  pass.a_values = A.values;
  pass.b_row_map = B.row_map;
  pass.b_entries = B.entries;
  pass.b_values = B.values;
  pass.c_row_map = row_map;
  pass.c_entries = plan.c_entries_;
  pass.c_values = values;
  pass.row_products = products;
  pass.source = source;
  pass.errors = errors;
  pass.max_load = r.max_load;
  pass.bitmap_words = ceil_div<std::int64_t>(B.num_cols, std::int64_t(1) << column_set_shift);
  pass.prefetch_limit = plan.schedule_.prefetch_limit;
  pass.ranked = ranked;
  pass.listing = listing;
  pass.ring_mask = ring_width > 0 ? ring_width - 1 : 0;
  plan.stats_.write_rows = ring_width > 0 ? "ring" : ranked ? "ranked" : "dense";
  pass.key_bucket_shift = spread_bucket_shift(B.num_cols);
  if constexpr (is_host_space<ExecSpace>()) {
    pass.wide_row_products_max = wide_sort_keys_max;
    pass.wide_key_shift = wide_bucket_shift(B.num_cols);
  }
  pass.sorted_rows_only = pass.sorts_short_rows() && (max_products <= Pass::sorted_row_products_max ||
                                                      (pass.sorts_long_rows() && max_products <= pass.wide_row_products_max));
  PoolSizing pools;
  pools.spill_chunk_bytes = Pass::chunk_bytes_for(log2_slots_for(r.max_need, r.max_load));
  // Sorted rows only: no chunk is carved, so none is cleared either. The
  // H200 machine's 16 host threads, 2026-12-02, two `gustav bench`
  // processes of each tool in turn, one-shot ms: er:1000000:2 29.6, 26.6 ->
  // 23.8, 22.2 (16 chunks of 8 MB cleared before), er:1000000:8 (64
  // products every row) 255.8, 251.4 -> 226.2, 227.7, er:200000:4 13.6,
  // 12.4 -> 11.1, 11.6.
  pools.dense_chunk_bytes = pass.sorted_rows_only ? 16 : dense_bytes;
  pools.dense_fill_bytes = dense_fill_bytes;
  const std::size_t pool_bytes = launch_tiers(space, pass, tiers, binning, pools, "gustav::multiply", temp);
  raise_kernel_errors(space, errors, "gustav::multiply");
  return pool_bytes;
}

/// Runs one symbolic pass (count or fill) over its own binning.
template <bool Fill, class Types, class ExecSpace, class AIn, class Source, class NeedView, class ProductsView,
          class Plan>
std::size_t run_symbolic_pass(const ExecSpace& space, const AIn& A, const Source& source, const NeedView& need,
                              const ProductsView& products, std::int64_t max_need,
                              std::int64_t b_cols, const Mapping& mapping, Plan& plan,
                              Kokkos::View<int*, typename Types::device_type> sets_out, TempMemory& temp,
                              std::vector<BinUse>& uses, bool& dense, const std::string& label) {
  using Ordinal = typename Types::ordinal_type;
  auto errors = make_error_flag<typename Types::device_type>(space, label + "::errors");
  std::size_t pool_bytes = 0;
  auto run = [&](auto concurrency) {
    using Pass = SymbolicPass<ExecSpace, Types, Source, NeedView, Fill, decltype(concurrency)>;
    TierRequest r;
    // The counting pass sizes tables on an upper bound, so it can afford a
    // higher load; the fill pass knows the exact number of sets.
    r.max_load = Fill ? 0.5 : 0.75;
    r.row_bytes = [](int log2) { return Pass::region_bytes(log2, 0); };
    r.spill_row_bytes = r.row_bytes;
    const double avg_source = A.nnz() > 0 && source.row_map.extent(0) > 1
                                  ? static_cast<double>(source.keys.extent(0)) /
                                        static_cast<double>(source.row_map.extent(0) - 1)
                                  : 1.0;
    r.vector_length = vector_length_for<ExecSpace>(avg_source);
    r.spill_bypasses_level1 = Fill;
    r.max_need = max_need;
    PoolSizing pools;
    r.long_rows = !mapping.one_thread_per_row &&
                  Pass::long_bytes_for_columns(b_cols) * min_long_rows_per_batch <= pools.max_bytes;
    const auto tiers = tiers_for(mapping, r, plan.options_, Pass::dense_bytes(b_cols));
    dense = uses_dense(tiers);
    // A single dense tier (CPUs) takes every row as it comes: no binning.
    const bool in_order = is_host_space<ExecSpace>() && tiers.size() == 1 && tiers.front().dense;
    auto binning = in_order ? rows_in_order<typename Types::device_type, Ordinal>(A.num_rows)
                            : bin_rows<Ordinal>(space, A.num_rows,
                                                WorkNeed<NeedFromView<NeedView>, ProductsView>{
                                                    {need}, products, long_row_products(tiers)},
                                                tiers, (label + "_bins").c_str(), temp);
    uses = bin_uses(tiers, binning.offsets);
    Pass pass;
    pass.a_row_map = A.row_map;
    pass.a_entries = A.entries;
    pass.source = source;
    pass.need_of = need;
    pass.c_row_map = plan.c_row_map_;
    pass.c_entries = plan.c_entries_;
    pass.sets_out = sets_out;
    pass.errors = errors;
    pass.max_load = r.max_load;
    // The numeric phase's long rows find positions by binary search, so the
    // hierarchical (GPU) mapping always writes sorted rows.
    pass.sort_rows = plan.options_.sort_rows || !mapping.one_thread_per_row;
    pass.max_row_count = max_count_of<typename Types::c_offset_type>();
    pass.bitmap_words = ceil_div<std::int64_t>(b_cols, 32);
    pass.prefetch_limit = plan.schedule_.prefetch_limit;
    pools.spill_chunk_bytes = Pass::chunk_bytes_for(log2_slots_for(max_need, r.max_load));
    pools.dense_chunk_bytes = Pass::dense_bytes(b_cols);
    pool_bytes = launch_tiers(space, pass, tiers, binning, pools, label, temp);
    temp.release(binning.perm);
  };
  if (mapping.one_thread_per_row) {
    run(Exclusive{});
  } else {
    run(Concurrent{});
  }
  raise_kernel_errors(space, errors, "gustav::symbolic");
  return pool_bytes;
}

/// Throws the error naming the first fault of an operand that a pass found
/// faulty as it read it (validate_csr's full checks find it again).
template <class ExecSpace, class Input>
[[noreturn]] void name_fault(const ExecSpace& space, const Input& m, const char* who, const char* name,
                             bool need_values) {
  validate_csr(space, m, who, name, need_values, true);
  throw internal_error(std::string(who) + ": " + name + " was found malformed, but its checks found no fault");
}

/// Whether the options ask for the colouring numeric phase.
inline bool colouring_numeric(const SpgemmOptions& options) {
  return options.accumulator == Accumulator::mcr || options.accumulator == Accumulator::mcw;
}

/// Adds the colour schedule to a plan whose structure is made.
template <class ExecSpace, class Plan>
void plan_colours(const ExecSpace& space, Plan& plan, const char* who) {
  using Ordinal = typename Plan::ordinal_type;
  auto& stats = plan.stats_;
  const bool by_colour = plan.options_.accumulator == Accumulator::mcw;
  TempMemory temp;
  temp.set_budget(plan.options_.memory_budget_bytes);
  // The numeric phase holds the arrays beside the schedule's two lists;
  // without a budget, within the cap the pools have.
  const std::size_t lists = static_cast<std::size_t>(plan.a_rows_) * (sizeof(Ordinal) + sizeof(int));
  const std::size_t budget = plan.options_.memory_budget_bytes;
  const std::size_t room =
      budget == 0 ? PoolSizing{}.max_bytes : (budget > lists ? budget - lists : 0);
  plan.schedule_.colours = make_colour_schedule<ExecSpace, Ordinal>(
      space, plan.a_rows_, plan.b_cols_, plan.c_row_map_, plan.c_entries_, stats.products, plan.a_nnz_, by_colour,
      room, who, temp);
  const auto& s = plan.schedule_.colours;
  stats.accumulator = by_colour ? "mcw" : "mcr";
  stats.colours = s.colours;
  stats.colours_per_group = s.colours_per_group;
  stats.colour_groups = static_cast<std::int64_t>(s.group_offsets.size()) - 1;
  stats.numeric_bins.clear();
  stats.numeric_rows.clear();  // the colouring phase has no dense rows
  stats.symbolic_peak_temp_bytes = std::max(stats.symbolic_peak_temp_bytes, temp.peak());
}

/// The shapes and nnz of A and B that a plan's numeric calls check.
template <class Plan, class AIn, class BIn>
void record_operand_shapes(Plan& plan, const AIn& A, const BIn& B) {
  plan.a_rows_ = A.num_rows;
  plan.a_cols_ = A.num_cols;
  plan.a_nnz_ = A.nnz();
  plan.b_rows_ = B.num_rows;
  plan.b_cols_ = B.num_cols;
  plan.b_nnz_ = B.nnz();
}

/// CPU and GPU together (hybrid/hybrid_product.hpp, included below).
template <class Types, class ExecSpace, class AIn, class BIn>
SpgemmPlan<ExecSpace, typename Types::c_offset_type, typename Types::ordinal_type> hybrid_symbolic(
    const ExecSpace& space, const AIn& A, const BIn& B, const SpgemmOptions& options, const char* who,
    bool check_values, typename Types::c_values* values);

/// The symbolic phase. With `values`, also the numeric phase, into a new
/// array of C's values (gustav::multiply): on the hierarchical mapping the
/// two then share one walk over the products.
template <class Types, class ExecSpace, class AIn, class BIn>
SpgemmPlan<ExecSpace, typename Types::c_offset_type, typename Types::ordinal_type> symbolic_impl(
    const ExecSpace& space, const AIn& A, const BIn& B, const SpgemmOptions& options, const char* who,
    bool check_values, typename Types::c_values* values = nullptr) {
  using Ordinal = typename Types::ordinal_type;
  using COffset = typename Types::c_offset_type;
  using Device = typename Types::device_type;
  using Plan = SpgemmPlan<ExecSpace, COffset, Ordinal>;

  if (colouring_numeric(options)) {
    // C's structure as the default makes it (no values: the numeric phase
    // is the colouring one), then the colours.
    SpgemmOptions structure = options;
    structure.accumulator = Accumulator::automatic;
    structure.keep_product_positions = false;
    structure.keep_entry_masks = false;
    structure.learn_entry_masks = false;
    structure.learn_product_positions = false;
    // The colouring phase runs on the execution space alone.
    structure.co_execution = CoExecution::off;
    Plan plan = symbolic_impl<Types>(space, A, B, structure, who, check_values);
    plan.options_ = options;
    plan_colours(space, plan, who);
    return plan;
  }
  if (options.co_execution != CoExecution::off)
    return hybrid_symbolic<Types>(space, A, B, options, who, check_values, values);

  if (A.num_cols != B.num_rows) {
    std::ostringstream s;
    s << who << ": A has " << A.num_cols << " columns but B has " << B.num_rows << " rows";
    throw invalid_input(s.str());
  }
  const Mapping mapping = choose_mapping(space, options);
  if (mapping.one_thread_per_row) {
    // The O(1) checks here; the O(nnz) ones as the analysis reads A and B
    // (row_bounds, compression), or below where nothing reads them whole.
    validate_csr(space, A, who, "A", check_values, false);
    validate_csr(space, B, who, "B", check_values, false);
  } else {
    // The hierarchical mapping checks the rest on the device as it goes.
    validate_csr_extents(A, who, "A", check_values);
    validate_csr_extents(B, who, "B", check_values);
  }
  if (A.num_rows >= static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()))
    throw overflow_error(std::string(who) + ": A has too many rows for the ordinal type");

  Plan plan;
  plan.options_ = options;
  record_operand_shapes(plan, A, B);
  auto& stats = plan.stats_;
  stats.mapping = mapping.one_thread_per_row ? "thread per row" : "hierarchical";
  if (!mapping.one_thread_per_row) {
    symbolic_hierarchical<Types>(space, A, B, plan, mapping, who, check_values, values);
    return plan;
  }

  TempMemory temp;
  temp.set_budget(options.memory_budget_bytes);
  plan.c_row_map_ =
      allocate_result_view<typename Types::c_row_map>(space, "gustav::symbolic::c_row_map", A.num_rows + 1, true);

  const bool check = options.validate_indices;
  if (A.num_rows == 0 || A.nnz() == 0 || B.nnz() == 0) {
    validate_csr(space, A, who, "A", check_values, check);
    validate_csr(space, B, who, "B", check_values, check);
    plan.c_entries_ = allocate_result_view<typename Types::c_entries>(space, "gustav::symbolic::c_entries", 0, false);
    if (values) *values = allocate_result_view<typename Types::c_values>(space, "gustav::numeric::c_values", 0, false);
    plan_numeric<Types>(space, plan, mapping, B.num_cols, 1.0, Kokkos::View<std::int64_t*, Device>(), temp);
    plan.stats_.numeric_rows.clear();  // no row has products: no pass runs
    stats.accumulator = "hash";
    stats.symbolic_peak_temp_bytes = temp.peak();
    stats.numeric_peak_temp_bytes = view_bytes(plan.schedule_.binning.perm);
    return plan;
  }

  // Compressed B (or B itself) as the symbolic phase's source of keys;
  // compressing checks B as it reads it. B = A (a square matrix times
  // itself) needs its indices checked once.
  double ratio = 1.0;
  bool b_checked = false;
  const bool check_b = check && !same_structure(A, B);
  auto source = build_product_source<ExecSpace, Device>(
      space, B, options.compression != Compression::never, options.compression == Compression::always,
      compression_worthwhile_ratio_host, check_b, [&] { name_fault(space, B, who, "B", check_values); }, temp, ratio,
      b_checked);
  if (check_b && !b_checked) validate_csr(space, B, who, "B", check_values, true);
  stats.compressed = source.compressed;
  stats.compression_ratio = ratio;
  const std::int64_t universe =
      source.compressed ? ceil_div<std::int64_t>(B.num_cols, std::int64_t(1) << column_set_shift) : B.num_cols;

  // Analysis: product bound per row.
  auto need = temp.allocate_scratch<Kokkos::View<std::int64_t*, Device>>(space, "gustav::symbolic::row_need",
                                                                         A.num_rows, false);
  auto products = temp.allocate_scratch<Kokkos::View<std::int64_t*, Device>>(
      space, "gustav::symbolic::row_products", A.num_rows, false);
  RowBoundTotals totals;
  Kokkos::parallel_reduce(
      "gustav::symbolic::row_bounds", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
      RowBounds<decltype(A.row_map), decltype(A.entries), decltype(B.row_map), decltype(source.row_map), decltype(need)>{
          A.row_map, A.entries, B.row_map, source.row_map, need, products, universe, check, A.nnz(), B.num_rows},
      totals);
  // A fault was counted, not followed: the full check names the first one.
  if (totals.faults > 0) name_fault(space, A, who, "A", check_values);
  stats.products = totals.products;
  stats.max_row_products = totals.max_products;
  plan.schedule_.prefetch_limit = prefetch_b_rows(totals, A.nnz()) ? A.nnz() : 0;

  // Count pass: nnz of each row of C, then the row map.
  auto sets =
      temp.allocate_scratch<Kokkos::View<int*, Device>>(space, "gustav::symbolic::row_sets", A.num_rows, true);
  bool dense_count = false, dense_fill = false;
  stats.symbolic_pool_bytes =
      run_symbolic_pass<false, Types>(space, A, source, need, products, totals.max_need, B.num_cols, mapping,
                                      plan, sets, temp, stats.count_bins, dense_count, "gustav::symbolic::count");
  temp.release(need);
  const std::int64_t nnz = counts_to_offsets(space, plan.c_row_map_, "gustav::symbolic::row_map_scan");
  if (nnz > max_count_of<COffset>()) {
    std::ostringstream s;
    s << who << ": nnz(C) = " << nnz << " does not fit the offset type " << offset_type_name<COffset>()
      << "; use 64-bit offsets (std::int64_t or std::size_t)";
    throw overflow_error(s.str());
  }
  stats.nnz = nnz;

  // Both ways on write C's columns from dynamically scheduled rows: their
  // pages are put in place first (touch_pages_in_parallel).
  plan.c_entries_ = allocate_result_view_in_place<typename Types::c_entries>(space, "gustav::symbolic::c_entries", nnz);
  stats.accumulator = dense_count ? "dense" : "hash";
  // gustav::multiply writes columns and values in one walk after counting
  // wherever the write pass's dense accumulator fits (its runs of the
  // compressed B mark the columns, B's entries add the values); otherwise,
  // and always for gustav::symbolic, whose plan must hold C's structure
  // before any value exists, the fill pass writes the columns and
  // gustav::multiply runs the numeric phase after.
  using Source = decltype(source);
  const bool ranked = write_pass_is_ranked<Types, ExecSpace, Source>(mapping, options, B.num_cols);
  const bool b_runs_kept = source.compressed && ratio <= write_runs_worthwhile_ratio;
  // Ranked rows never list (they take no value per column, and the flags
  // would not fit where the values do not).
  const bool listing = write_pass_lists<Types, ExecSpace, Source>(mapping, options, B.num_cols,
                                                                  plan.schedule_.prefetch_limit == 0, b_runs_kept);
  const bool one_walk =
      values && write_pass_is_dense<Types, ExecSpace, Source>(mapping, options, B.num_cols, ranked, listing);
  if (!one_walk) {
    // Fill pass: C's column indices, sorted per row.
    std::int64_t max_sets = 0;
    Kokkos::parallel_reduce("gustav::symbolic::max_row_sets",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, A.num_rows),
                            MaxOfView<decltype(sets)>{sets}, Kokkos::Max<std::int64_t>(max_sets));
    const std::size_t fill_pool =
        run_symbolic_pass<true, Types>(space, A, source, sets, products, max_sets, B.num_cols, mapping, plan,
                                       sets, temp, stats.fill_bins, dense_fill, "gustav::symbolic::fill");
    stats.symbolic_pool_bytes = std::max(stats.symbolic_pool_bytes, fill_pool);
  }
  temp.release(sets);

  TempMemory numeric_temp;
  numeric_temp.set_budget(options.memory_budget_bytes);
  if (one_walk) {
    // The plan goes no further than gustav::multiply, so it needs no
    // numeric schedule. The product counts stay for the write pass, and so
    // does the compressed B where B compresses well (its runs mark the
    // bitmap); elsewhere B's entries mark it themselves and the compressed
    // B goes first.
    plan.values_written_once_ = true;
    const std::int64_t max_nnz = max_row_nnz(space, plan.c_row_map_, A.num_rows);
    *values = allocate_result_view_in_place<typename Types::c_values>(space, "gustav::numeric::c_values", nnz);
    numeric_temp.add_resident(view_bytes(products));
    if (source.compressed && !b_runs_kept) release_product_source(source, temp);
    if (source.compressed)
      numeric_temp.add_resident(view_bytes(source.row_map) + view_bytes(source.keys) + view_bytes(source.masks));
    stats.numeric_pool_bytes = write_rows_thread_per_row<Types>(space, A, B, source, plan, mapping, products, max_nnz,
                                                                totals.max_products, ranked, listing, *values,
                                                                numeric_temp,
                                                                stats.numeric_bins);
    release_product_source(source, temp);
  } else {
    release_product_source(source, temp);
    // Numeric schedule, kept in the plan.
    const double avg_b_row = static_cast<double>(B.nnz()) / static_cast<double>(B.num_rows > 0 ? B.num_rows : 1);
    plan_numeric<Types>(space, plan, mapping, B.num_cols, avg_b_row, products, numeric_temp);
  }
  temp.release(products);
  stats.symbolic_peak_temp_bytes = temp.peak();
  stats.numeric_peak_temp_bytes = numeric_temp.peak();
  return plan;
}

}  // namespace gustav::detail

// The hybrid product's definitions, which use symbolic_impl and numeric_impl.
#include "gustav/hybrid/hybrid_product.hpp"
