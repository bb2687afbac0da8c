#pragma once
/// What a multiplication did: flop count, compression, binning and memory.
/// Filled by the symbolic phase (and the numeric phase for its own fields).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gustav {

/// One bin of the binning by product count: the rows whose accumulator need
/// falls in (previous bin's max_need, max_need], and how they were mapped.
struct BinUse {
  std::string name;           ///< e.g. "worker/64" or "team/2048" or "pool"
  std::int64_t max_need = 0;  ///< upper end of the bin's table need (slots)
  /// Rows of A that fell in the bin. The CPU's single dense tier of the
  /// counting pass and of gustav::multiply's write pass takes every row,
  /// empty ones included.
  std::int64_t rows = 0;
  int vector_length = 1;      ///< vector lanes per row
  int team_size = 1;          ///< workers per team
  int table_slots = 0;        ///< level-1 table slots per row
};

struct SpgemmStats {
  std::int64_t products = 0;          ///< sum over rows of A of sum nnz(B(k,:)); flops = 2*products
  std::int64_t max_row_products = 0;  ///< largest per-row product count
  std::int64_t nnz = 0;               ///< nnz(C)

  /// How rows mapped onto threads: "hierarchical" (teams, workers and vector
  /// lanes; GPUs, or CpuMapping::hierarchical) or "thread per row" (CPUs).
  std::string mapping;

  bool compressed = false;          ///< symbolic phase ran on the compressed B (thread-per-row mapping only, so far)
  double compression_ratio = 1.0;   ///< compressed entries / nnz(B) (1 when skipped)
  std::string accumulator;          ///< "hash" or "dense", or "mcr" or "mcw" (the colouring numeric phase)
  /// gustav::multiply on the thread-per-row mapping: how its write pass,
  /// which writes C's columns and values in one walk after the count, kept
  /// a row's values: "dense" (a value per column of B), "ranked" (added
  /// straight into C's row; B with many columns) or "ring" (such a B where
  /// A streams through it: rows summed in a ring indexed by a column's low
  /// bits, those spanning more columns than the ring ranked). "" where no write pass
  /// ran (gustav::symbolic's plans, the hierarchical mapping, or a dense
  /// accumulator that does not fit).
  std::string write_rows;
  /// The thread-per-row numeric phase's dense rows (a plan's numeric calls,
  /// and gustav::multiply where no write pass ran): "positions" (each
  /// product added into C's row at its column's position), "summed" (a
  /// value per column of B), "ring" (a ring of values indexed by the
  /// column's low bits, where every row of C spans few columns), "ranked"
  /// (B with many columns) or "hashed" (a hash table of each row's columns,
  /// where a position per column of B would outgrow a core's L2, no row of
  /// C passes 2,048 entries and they average at least 16). "" where the
  /// numeric phase has no dense rows.
  std::string numeric_rows;

  /// Colouring numeric phase (Accumulator::mcr / mcw; 0 otherwise): colours
  /// of C's rows, colours handled per group, and groups (numeric launches).
  std::int64_t colours = 0;
  std::int64_t colours_per_group = 0;
  std::int64_t colour_groups = 0;

  std::vector<BinUse> count_bins;    ///< symbolic counting pass (by product bound)
  std::vector<BinUse> fill_bins;     ///< symbolic structure pass (by column sets)
  std::vector<BinUse> numeric_bins;  ///< numeric phase (by nnz of the row of C)

  int row_chunks = 1;  ///< row chunks processed (more than one under a memory budget)

  /// Peak bytes of temporaries alive at once in each phase (C not counted;
  /// the plan's own arrays that outlive symbolic are counted in numeric).
  std::size_t symbolic_peak_temp_bytes = 0;
  std::size_t numeric_peak_temp_bytes = 0;
  /// Level-2 memory pool size of each phase (part of the peaks above).
  std::size_t symbolic_pool_bytes = 0;
  std::size_t numeric_pool_bytes = 0;
  /// Bytes of product positions the plan keeps (SpgemmOptions::
  /// keep_product_positions; 0 otherwise). Part of both peaks above.
  std::size_t positions_bytes = 0;
  /// How they are kept: "lists" or "slots" (KeptLayout), "" where none are.
  std::string positions_layout;
  /// Bytes of the entries' masks the plan keeps (SpgemmOptions::
  /// keep_entry_masks, from gustav::symbolic on; learn_entry_masks, from
  /// the numeric call that learned them on; 0 where none are). Part of the
  /// peaks of the phase that records them and of every numeric call after.
  std::size_t masks_bytes = 0;
  /// Bytes of the hash bins' product positions the plan learned
  /// (SpgemmOptions::learn_product_positions), from the numeric call that
  /// learned them on (0 where none are). Part of every later numeric peak.
  std::size_t learned_positions_bytes = 0;
  /// Rows among those whose positions the plan learned that a team sums
  /// (more products than a worker takes), the rest a worker each.
  std::int64_t learned_positions_team_rows = 0;
  /// Bytes of the long rows' offsets the plan keeps from its first numeric
  /// call on (8 bytes for each row of C past the team bins and for each
  /// entry of A in those rows; 0 where it has none), so that a repeat
  /// starts summing them without computing where their products lie.
  /// Part of the numeric peak.
  std::size_t long_row_offsets_bytes = 0;

  /// SpgemmOptions::co_execution: "" (off), "device only" (asked for, but
  /// the analysis found no heavy part worth the host's time), or "host and
  /// device"; the thresholds used, the heavy rows of A and of B, and the
  /// products the host computed (part of `products`).
  std::string co_execution;
  std::int64_t heavy_a_row_nnz = 0, heavy_b_row_nnz = 0;
  std::int64_t heavy_a_rows = 0, heavy_b_rows = 0;
  std::int64_t host_products = 0;
};

}  // namespace gustav
