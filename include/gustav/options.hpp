#pragma once
/// Options of a multiplication. The defaults are what a caller who does not
/// know better should use; each field says what it costs.
#include <cstddef>

namespace gustav {

/// Accumulator of the passes over the products. `automatic`, `hash` and
/// `dense` choose among the CPU's (host) accumulators; GPUs then use the
/// two-level hashmap (level 1 in team scratch, level 2 from the memory
/// pool). `mcr` and `mcw` choose the colouring numeric phase on every
/// execution space, CPU and GPU.
enum class Accumulator {
  automatic,  ///< dense up to 8 MiB per thread (and one per thread within a memory budget), else hash
  hash,       ///< two-level hashmap, cache-sized level 1
  dense,      ///< one dense array per thread over the columns of B (KKSPEED): a bitmap
              ///< (with touched words when counting, two summary levels when filling), a
              ///< value per column beside the leveled bitmap and its list of touched words
              ///< in gustav::multiply's write pass, an int per column in the numeric phase
  /// Colouring numeric phase (seed 002's KKMCR): gustav::symbolic computes C's
  /// structure as `automatic` does, then colours C's rows so that rows of one
  /// colour share no column (a distance-2 colouring of C's bipartite graph,
  /// KokkosGraph::Experimental::bipartite_color_rows) and orders them in
  /// groups of colours. The numeric phase takes a group at a time; every row
  /// of a colour marks its columns' positions in one dense array per colour
  /// (shared, without conflict, by all rows of that colour) and adds its
  /// products straight into C. About nnz(C) / cols(C) colours a group, so the
  /// arrays take about 4 or 8 bytes (the offset type) per entry of C, fewer
  /// colours a group within a memory budget. `mcr` orders each group's rows
  /// by row index (neighbouring threads read neighbouring rows of A). Costs
  /// the colouring in gustav::symbolic (plus a check of it), and in every
  /// numeric call one launch per group; power-law products, whose hub
  /// columns force many colours, take many groups. gustav::symbolic refuses
  /// (gustav::invalid_input) a product whose colouring would visit more
  /// than 64 pairs of rows sharing a column per product (plus 2^24): the
  /// colouring's cost grows with the square of the rows holding a column,
  /// and on power-law products it is many times the product's.
  /// keep_product_positions and co_execution are ignored. Slower than the defaults on every
  /// product measured so far, one-shot and reuse (docs/performance_log.md): a
  /// reference point for cross-architecture comparisons.
  mcr,
  /// As `mcr`, with each group's rows ordered by colour, then row index
  /// (seed 002's KKMCW: neighbouring threads write the same colour's array).
  mcw,
};

/// Compression of B for the CPU's thread-per-row mapping: each row becomes
/// pairs (column-set index, 32-bit mask), so row unions in the counting and
/// fill passes are bit operations, and gustav::multiply's write pass marks
/// its columns a pair at a time. The hierarchical mapping (GPUs) does not
/// compress.
enum class Compression {
  automatic,  ///< compress when it removes at least a tenth of B's entries
  always,
  never,
};

/// How rows map onto threads on a CPU execution space. GPUs always use the
/// hierarchical mapping.
enum class CpuMapping {
  automatic,      ///< one thread per row, no atomics (fastest on CPUs)
  /// The GPU mapping: teams of workers with shared tables, so the same
  /// kernel can be compared across architectures. On CPUs it is an order of
  /// magnitude slower than `automatic` (every row costs several team
  /// barriers and atomics that one thread per row does not need).
  hierarchical,
};

/// How a plan that keeps its products (SpgemmOptions::keep_product_positions)
/// holds them.
enum class KeptLayout {
  /// Slots where they apply and C's entries have 32 products each or more
  /// on average (R * (A * P) of a vector problem's multigrid), else lists.
  automatic,
  /// Every entry's products listed together, summed one list at a time: 8
  /// bytes a product and 4 an entry of C.
  lists,
  /// Each product's entry of C as a 16-bit offset in its row, in the order
  /// of the products' walk (rows of B read in order, products added in
  /// scratch): 2 bytes a product and 4 a row of A. Where they apply: B's
  /// rows strictly increasing, and C's longest row within half of what a
  /// team's scratch holds (on CUDA with Kokkos 3.4, 40 KiB: up to about
  /// 2,500 entries of doubles, fewer where B's rows are short and a team
  /// has many workers); else lists.
  slots,
};

/// CPU and GPU together on one product (seed 001's HH-CPU), for power-law
/// inputs whose hub rows make most of the products. Rows of A with at least
/// SpgemmOptions::heavy_a_row_nnz entries and rows of B with at least
/// heavy_b_row_nnz are heavy; the host (Kokkos' default host execution
/// space, OpenMP in a CUDA build) multiplies the heavy rows of A, restricted
/// to their entries that name heavy rows of B, by those rows of B, while
/// the device multiplies the rest of A by B; the device then adds the two
/// into one CSR C. Symbolic and numeric both run split, so reuse works as
/// usual. The split's own arrays (A's row map and the two parts' operands,
/// about 8 bytes per entry of A, and the merge's positions, one offset per
/// entry of C's heavy rows) are outside memory_budget_bytes.
enum class CoExecution {
  off,        ///< the execution space alone (the default)
  /// Split where the row analysis finds heavy rows (rows of at least eight
  /// times the average length, a share of the products no larger than
  /// SpgemmOptions::host_share) and a cost model with rates measured on an
  /// H200 and its 16-core host says the host's part would be done within
  /// half the device's time for the whole product (with thresholds given,
  /// the host's share under them, counted exactly); otherwise, and on host
  /// execution spaces, as `off`. On that machine the split lost on every
  /// product measured, and the model declines them all.
  /// plan.stats().co_execution says which it did.
  automatic,
  /// Always split, with the given thresholds or the chosen ones (even into
  /// nothing: then the device computes everything). On a host execution
  /// space both parts run there one after the other: the same result, for
  /// testing the split.
  always,
};

struct SpgemmOptions {
  /// Sort the column indices of every row of C. Sorting happens once, where
  /// C's columns are written (the symbolic phase, or gustav::multiply's one
  /// walk that writes columns and values); the numeric phase writes values
  /// into the sorted structure, so reuse pays nothing for it. `false` lets
  /// the CPU mapping skip the sort; the GPU mapping always sorts (its
  /// numeric phase finds positions in long rows by binary search).
  bool sort_rows = true;

  /// Check row maps for monotonicity and every column index for range before
  /// multiplying: one pass over A and B, a few percent of a multiplication.
  /// The O(1) checks (shapes, view lengths, row_map ends) are always on.
  bool validate_indices = true;

  Accumulator accumulator = Accumulator::automatic;
  Compression compression = Compression::automatic;
  CpuMapping cpu_mapping = CpuMapping::automatic;

  /// Upper bound, in bytes, on the temporary memory of one phase (0: none;
  /// the pools are then capped at 512 MiB, the hierarchical mapping's
  /// long-row pool at 256 MiB). Within a budget the level-2 /
  /// dense / long-row pools take only what the analysis arrays (about 40
  /// bytes per row of A, plus the compressed B) leave, and fewer teams take
  /// the rows in turn, so the product completes in more steps. A budget too
  /// small for the analysis arrays and one accumulator raises
  /// gustav::allocation_error saying so. C, A and B are not counted.
  std::size_t memory_budget_bytes = 0;

  /// Let gustav::symbolic list, for every entry of C, the products that add
  /// up to it, so that each gustav::numeric call only sums those lists (one
  /// thread per entry of C: no hash tables, no atomics, no column index
  /// read). A's and B's structure (row maps and column indices, in order)
  /// must then stay exactly as gustav::symbolic saw it: each numeric call
  /// checks a 64-bit fingerprint of both, even with validate_indices off,
  /// and raises gustav::plan_mismatch on any change, including changes that
  /// the default path would accept because every product still falls inside
  /// C's structure. The order of each sum is fixed by gustav::symbolic, so
  /// numeric calls on one plan with the same values give the same bits.
  /// For plans reused many times (AMG setups, values changing on a fixed
  /// structure). Costs more visits of the products in gustav::symbolic and
  /// memory proportional to them (kept_layout: 8 bytes per product and 4
  /// per entry of C in lists, 2 bytes per product and 4 per row of A by
  /// slot), held by the plan and reported in stats().positions_bytes
  /// (within memory_budget_bytes where one is set). Not kept (positions_bytes 0)
  /// where the products, nnz(C), nnz(A) or nnz(B) reach 2^32. The
  /// hierarchical mapping (GPUs) only; ignored by gustav::multiply (it hands
  /// back no plan) and by the CPU's thread-per-row mapping.
  bool keep_product_positions = false;
  /// How they are kept (KeptLayout); stats().positions_layout says which
  /// one a plan took.
  KeptLayout kept_layout = KeptLayout::automatic;

  /// Where no product positions are kept, a plan on the hierarchical
  /// mapping (GPUs) keeps, for every entry of A whose row of C has at most
  /// 128 entries, a bitmask of the positions in that row that its row of B
  /// reaches, so that gustav::numeric finds every product's place with bit
  /// operations instead of a hash table built and probed each call. Costs
  /// one more visit of those rows' products in gustav::symbolic and 4 bytes
  /// per entry of A per 32 entries of its row of C, plus 4 per row of A
  /// (stats().masks_bytes, within memory_budget_bytes where one is set);
  /// kept only where B's rows are strictly increasing and the masks take
  /// at most 2 bytes per product. As with kept positions, each numeric
  /// call then checks a 64-bit fingerprint of A's and B's structure and
  /// raises gustav::plan_mismatch on any change, and sums each entry of C
  /// in the order of A's entries (the bits repeat). Kept positions take
  /// precedence.
  bool keep_entry_masks = false;

  /// Where a plan on the hierarchical mapping (GPUs) keeps neither product
  /// positions nor masks from gustav::symbolic, its first gustav::numeric
  /// call records the same masks while it sums (about the time of a
  /// default call), and later calls sum from them. The plan then holds the
  /// masks' memory (stats().masks_bytes, from that call on; within
  /// memory_budget_bytes where one is set), and each later call compares
  /// the fingerprint of A's and B's structure with the one the masks were
  /// learned on. The contract stays the default one: where the structure
  /// differs, the call sums by the default path instead (raising
  /// gustav::plan_mismatch only where a product falls outside C) and the
  /// plan drops the masks. Not learned where keep_entry_masks says why
  /// masks are not kept, or where the first call finds a fault.
  /// On the CPUs' thread-per-row mapping the first numeric call learns
  /// them where every row of C has at most 64 entries and sort_rows is on
  /// (a word of 4 or 8 bytes per entry of A, masks_bytes, within the
  /// budget); their sums compare each product's column with C's as they
  /// go instead of taking a fingerprint, with the same contract.
  bool learn_entry_masks = true;

  /// Opt-in, on the hierarchical mapping: a plan's first gustav::numeric
  /// call also learns, for the rows its default path sums in hash tables
  /// (rows of C of up to 65,536 entries that masks do not take), the
  /// position of every product in its row of C, in the order the repeats
  /// walk them; later calls add each product at its position with no
  /// table and no search. One byte a product where a bin's rows of C have
  /// at most 256 entries, two otherwise, plus 8 bytes a row: learned bin by
  /// bin while the whole stays within a quarter of the bytes of C's columns
  /// and values, and within memory_budget_bytes where one is set
  /// (stats().learned_positions_bytes, from that call on). The first call
  /// pays one more visit of those products (a binary search each); the
  /// contract is learn_entry_masks': where A's or B's structure differs
  /// from the one they were learned on, the call sums by the default path
  /// and the plan drops them. Sums add in scratch atomically, as the
  /// tables do, so the bits of a repeat may differ in the last place.
  /// Rows of more products than a worker takes are learned and summed by a
  /// team each (stats().learned_positions_team_rows).
  /// Off by default: on an H100 it took er:100000:16's repeat from 1.05 to
  /// 0.37 ms, but a power-law A * A^T (ia-wikiquote) from 0.25 to 0.47,
  /// whose hub rows a worker each then summed far slower than a team's
  /// table, and it made first calls up to five times longer (README,
  /// Performance).
  bool learn_product_positions = false;

  /// CPU and GPU together (see CoExecution). The host part's plan follows
  /// these options except that its rows are always sorted and it keeps no
  /// product positions; the device part's keeps them where asked.
  CoExecution co_execution = CoExecution::off;
  /// Thresholds tA and tB of CoExecution: rows with at least this many
  /// entries are heavy. 0: chosen from the row analysis (powers of two,
  /// at least eight times the average row, giving the host at most
  /// host_share of the products).
  long long heavy_a_row_nnz = 0;
  long long heavy_b_row_nnz = 0;
  /// The host's share of the products that the automatic thresholds aim
  /// at (at most).
  double host_share = 0.1;
};

}  // namespace gustav
