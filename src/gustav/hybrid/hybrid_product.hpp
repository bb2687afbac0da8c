#pragma once
/// CPU and GPU together on one product (SpgemmOptions::co_execution, seed
/// 001's HH-CPU): the split (split_operands.hpp), the two products side by
/// side (side_by_side.hpp), the merge (merge_parts.hpp). gustav::symbolic
/// and gustav::multiply come here from symbolic_impl, gustav::numeric from
/// numeric_impl, when the plan or the options ask for it.
#include <Kokkos_Core.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "gustav/common/allocation.hpp"
#include "gustav/errors.hpp"
#include "gustav/hybrid/gather_parts.hpp"
#include "gustav/hybrid/heavy_rows.hpp"
#include "gustav/hybrid/hybrid_parts.hpp"
#include "gustav/hybrid/merge_parts.hpp"
#include "gustav/hybrid/side_by_side.hpp"
#include "gustav/hybrid/split_operands.hpp"
#include "gustav/spgemm/numeric.hpp"
#include "gustav/spgemm/symbolic.hpp"
#include "gustav/validation/validate_csr.hpp"

namespace gustav::detail {

/// The options of either part's own product.
inline SpgemmOptions part_options(const SpgemmOptions& options, bool host) {
  SpgemmOptions o = options;
  o.co_execution = CoExecution::off;
  // A and B are checked once, before the split; the parts are built from them.
  o.validate_indices = false;
  // The merge finds C_D's and C_H's columns by binary search.
  o.sort_rows = true;
  if (host) o.keep_product_positions = false;
  return o;
}

/// One part's plan, and with `with_values` its values (as gustav::multiply).
template <class Types, class Space, class AIn, class BIn>
auto run_part(const Space& space, const AIn& A, const BIn& B, const SpgemmOptions& options, const char* who,
              bool with_values) {
  typename Types::c_values values;
  auto plan = symbolic_impl<Types>(space, A, B, options, who, false, with_values ? &values : nullptr);
  if (with_values && values.data() == nullptr &&
      !plan.hybrid_ && (!plan.schedule_.hierarchical.used || plan.schedule_.colours.used)) {
    values = allocate_result_view<typename Types::c_values>(space, "gustav::numeric::c_values", plan.nnz(), false);
    numeric_impl<Types>(space, plan, A, B, values, who, true);
  }
  return std::make_pair(plan, values);
}

/// One part's operand as an input of the product.
template <class In, class RowMap, class Entries, class Values>
In part_input(std::int64_t rows, std::int64_t cols, const RowMap& row_map, const Entries& entries,
              const Values& values) {
  In in;
  in.num_rows = rows;
  in.num_cols = cols;
  in.row_map = row_map;
  in.entries = entries;
  in.values = values;
  return in;
}

/// The host's copy of a device view (the view itself where the device's
/// memory is the host's).
template <class View>
auto host_copy(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

/// The thresholds for `options` on A and B: the given ones, or chosen from
/// the product histogram. With `costs` (the automatic choice weighs them)
/// also all products and, for thresholds given, the host's share of them
/// counted exactly; every product is counted once.
template <class ExecSpace, class AIn, class BIn>
HeavySplit heavy_thresholds(const ExecSpace& space, const AIn& A, const BIn& B, const SpgemmOptions& options,
                            bool costs) {
  const bool given_a = options.heavy_a_row_nnz > 0, given_b = options.heavy_b_row_nnz > 0;
  const std::int64_t products = costs || !(given_a && given_b) ? product_count(space, A, B) : 0;
  HeavySplit t;
  if (!(given_a && given_b)) {
    const double avg_a = A.num_rows > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(A.num_rows) : 0.0;
    const double avg_b = B.num_rows > 0 ? static_cast<double>(B.nnz()) / static_cast<double>(B.num_rows) : 0.0;
    const auto hist = product_histogram(space, A, B, min_heavy_length(avg_a), min_heavy_length(avg_b));
    t = choose_heavy_split(hist, products, avg_a, avg_b, options.host_share);
  }
  if (given_a) t.a_row_nnz = options.heavy_a_row_nnz;
  if (given_b) t.b_row_nnz = options.heavy_b_row_nnz;
  // The histogram's share holds for its own pair of thresholds only.
  if (given_a || given_b) t.host_products = costs ? heavy_product_count(space, A, B, t.a_row_nnz, t.b_row_nnz) : 0;
  t.products = products;
  return t;
}

template <class Types, class ExecSpace, class AIn, class BIn>
SpgemmPlan<ExecSpace, typename Types::c_offset_type, typename Types::ordinal_type> hybrid_symbolic(
    const ExecSpace& space, const AIn& A, const BIn& B, const SpgemmOptions& options, const char* who,
    bool check_values, typename Types::c_values* values) {
  using Offset = typename Types::c_offset_type;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using Plan = SpgemmPlan<ExecSpace, Offset, Ordinal>;
  using Parts = HybridParts<ExecSpace, Offset, Ordinal>;
  using HostTypes = SpgemmTypes<HybridHostSpace, Scalar, Ordinal, Offset, Offset>;
  using HostA = CsrInput<typename HostTypes::a_row_map, typename HostTypes::entries, typename HostTypes::values>;
  using HostB = CsrInput<typename HostTypes::b_row_map, typename HostTypes::entries, typename HostTypes::values>;
  using DeviceA = CsrInput<typename Types::a_row_map, typename Types::entries, typename Types::values>;

  if (A.num_cols != B.num_rows) {
    std::ostringstream s;
    s << who << ": A has " << A.num_cols << " columns but B has " << B.num_rows << " rows";
    throw invalid_input(s.str());
  }
  validate_csr(space, A, who, "A", check_values, options.validate_indices);
  validate_csr(space, B, who, "B", check_values, options.validate_indices && !same_structure(A, B));

  // automatic declines on host spaces before any analysis (there is no
  // second processor to give a part to).
  const bool automatic = options.co_execution == CoExecution::automatic;
  bool declined = automatic && is_host_space<ExecSpace>();
  HeavySplit chosen;
  if (!declined) {
    chosen = heavy_thresholds(space, A, B, options, automatic);
    declined = automatic && (chosen.host_products == 0 ||
                             !split_pays(chosen.host_products, chosen.products, HybridHostSpace().concurrency()));
  }
  if (declined) {
    SpgemmOptions alone = options;
    alone.co_execution = CoExecution::off;
    Plan plan = symbolic_impl<Types>(space, A, B, alone, who, check_values, values);
    plan.options_ = options;
    plan.stats_.co_execution = "device only";
    return plan;
  }

  auto parts = std::make_shared<Parts>();
  auto& s = parts->split;
  s = split_operands<ExecSpace, Offset, Ordinal>(space, A, B, chosen.a_row_nnz, chosen.b_row_nnz, who);
  const bool with_values = values != nullptr;
  using DeviceValues = Kokkos::View<Scalar*, typename Types::device_type>;
  DeviceValues device_a_values, host_a_values, host_b_values;
  if (with_values) {
    device_a_values = allocate_view<DeviceValues>(space, "gustav::hybrid::device_a_values", s.device_a_entries.extent(0), false);
    host_a_values = allocate_view<DeviceValues>(space, "gustav::hybrid::host_a_values", s.host_a_entries.extent(0), false);
    host_b_values = allocate_view<DeviceValues>(space, "gustav::hybrid::host_b_values", s.host_b_entries.extent(0), false);
    gather_a_parts(space, s, A, device_a_values, host_a_values);
  }
  gather_b_part(space, s, B, true, host_b_values);
  parts->host_a_row_map = host_copy(s.host_a_row_map);
  parts->host_a_entries = host_copy(s.host_a_entries);
  parts->host_b_row_map = host_copy(s.host_b_row_map);
  parts->host_b_entries = host_copy(s.host_b_entries);
  typename HostTypes::values host_a_vals, host_b_vals;
  if (with_values) {
    host_a_vals = host_copy(host_a_values);
    host_b_vals = host_copy(host_b_values);
  }

  const auto device_a = part_input<DeviceA>(A.num_rows, A.num_cols, s.device_a_row_map, s.device_a_entries,
                                           device_a_values);
  const auto host_a = part_input<HostA>(s.heavy_a_rows_count, s.heavy_b_rows_count, parts->host_a_row_map,
                                        parts->host_a_entries, host_a_vals);
  const auto host_b = part_input<HostB>(s.heavy_b_rows_count, B.num_cols, parts->host_b_row_map,
                                        parts->host_b_entries, host_b_vals);

  typename Types::c_values device_c_values;
  typename HostTypes::c_values host_c_values;
  const SpgemmOptions device_options = part_options(options, false);
  const SpgemmOptions host_options = part_options(options, true);
  run_side_by_side(
      space,
      [&]() {
        auto r = run_part<Types>(space, device_a, B, device_options, who, with_values);
        parts->device_plan = r.first;
        device_c_values = r.second;
      },
      [&]() {
        auto r = run_part<HostTypes>(HybridHostSpace(), host_a, host_b, host_options, who, with_values);
        parts->host_plan = r.first;
        host_c_values = r.second;
      });

  Plan plan;
  plan.options_ = options;
  record_operand_shapes(plan, A, B);
  const auto& dp = parts->device_plan;
  parts->merged = s.heavy_a_rows_count > 0;
  if (!parts->merged) {
    plan.c_row_map_ = dp.c_row_map_;
    plan.c_entries_ = dp.c_entries_;
    if (with_values) *values = device_c_values;
  } else {
    const auto& hp = parts->host_plan;
    auto h_row_map = Kokkos::create_mirror_view_and_copy(typename Types::memory_space(), hp.c_row_map_);
    auto h_entries = Kokkos::create_mirror_view_and_copy(typename Types::memory_space(), hp.c_entries_);
    plan.c_row_map_ =
        allocate_result_view<typename Types::c_row_map>(space, "gustav::symbolic::c_row_map", A.num_rows + 1, true);
    parts->merge = merge_structure(space, s, dp.c_row_map_, dp.c_entries_, h_row_map, h_entries, plan.c_row_map_,
                                   plan.c_entries_);
    if (with_values) {
      auto h_values = Kokkos::create_mirror_view_and_copy(typename Types::memory_space(), host_c_values);
      *values = allocate_result_view<typename Types::c_values>(space, "gustav::numeric::c_values",
                                                               plan.c_entries_.extent(0), false);
      merge_values(space, s, parts->merge, dp.c_row_map_, device_c_values, h_values, plan.c_row_map_, *values);
    }
  }
  space.fence();

  auto& stats = plan.stats_;
  stats = dp.stats_;
  const auto& hs = parts->host_plan.stats_;
  stats.products = dp.stats_.products + hs.products;
  stats.max_row_products = std::max(dp.stats_.max_row_products, hs.max_row_products);
  stats.nnz = static_cast<std::int64_t>(plan.c_entries_.extent(0));
  stats.co_execution = "host and device";
  stats.heavy_a_row_nnz = s.a_row_nnz;
  stats.heavy_b_row_nnz = s.b_row_nnz;
  stats.heavy_a_rows = s.heavy_a_rows_count;
  stats.heavy_b_rows = s.heavy_b_rows_count;
  stats.host_products = hs.products;
  plan.hybrid_ = parts;
  return plan;
}

template <class Types, class ExecSpace, class Plan, class AIn, class BIn, class CValues>
void hybrid_numeric(const ExecSpace& space, const Plan& plan, const AIn& A, const BIn& B, const CValues& c_values,
                    const char* who, bool indices_checked) {
  using Offset = typename Types::c_offset_type;
  using Ordinal = typename Types::ordinal_type;
  using Scalar = typename Types::scalar_type;
  using HostTypes = SpgemmTypes<HybridHostSpace, Scalar, Ordinal, Offset, Offset>;
  using HostA = CsrInput<typename HostTypes::a_row_map, typename HostTypes::entries, typename HostTypes::values>;
  using HostB = CsrInput<typename HostTypes::b_row_map, typename HostTypes::entries, typename HostTypes::values>;
  using DeviceA = CsrInput<typename Types::a_row_map, typename Types::entries, typename Types::values>;
  using DeviceValues = Kokkos::View<Scalar*, typename Types::device_type>;
  const auto& parts = *plan.hybrid_;
  const auto& s = parts.split;

  const bool full = plan.options_.validate_indices && !indices_checked;
  validate_csr(space, A, who, "A", true, full);
  validate_csr(space, B, who, "B", true, full && !same_structure(A, B));
  check_values_extent(plan, c_values, who);

  auto device_a_values =
      allocate_view<DeviceValues>(space, "gustav::hybrid::device_a_values", s.device_a_entries.extent(0), false);
  auto host_a_values =
      allocate_view<DeviceValues>(space, "gustav::hybrid::host_a_values", s.host_a_entries.extent(0), false);
  auto host_b_values =
      allocate_view<DeviceValues>(space, "gustav::hybrid::host_b_values", s.host_b_entries.extent(0), false);
  if (!gather_a_parts(space, s, A, device_a_values, host_a_values)) split_mismatch(who);
  if (!gather_b_part(space, s, B, false, host_b_values)) split_mismatch(who);

  const auto device_a = part_input<DeviceA>(A.num_rows, A.num_cols, s.device_a_row_map, s.device_a_entries,
                                           device_a_values);
  const auto host_a = part_input<HostA>(s.heavy_a_rows_count, s.heavy_b_rows_count, parts.host_a_row_map,
                                        parts.host_a_entries, host_copy(host_a_values));
  const auto host_b = part_input<HostB>(s.heavy_b_rows_count, B.num_cols, parts.host_b_row_map,
                                        parts.host_b_entries, host_copy(host_b_values));

  typename Types::c_values device_c_values = parts.merged ? allocate_view<typename Types::c_values>(
                                                                space, "gustav::hybrid::device_c_values",
                                                                parts.device_plan.nnz(), false)
                                                          : typename Types::c_values(c_values);
  auto host_c_values = allocate_view<typename HostTypes::c_values>(HybridHostSpace(), "gustav::hybrid::host_c_values",
                                                                   parts.host_plan.nnz(), false);
  run_side_by_side(
      space, [&]() { numeric_impl<Types>(space, parts.device_plan, device_a, B, device_c_values, who, true); },
      [&]() { numeric_impl<HostTypes>(HybridHostSpace(), parts.host_plan, host_a, host_b, host_c_values, who, true); });
  if (parts.merged) {
    auto h_values = Kokkos::create_mirror_view_and_copy(typename Types::memory_space(), host_c_values);
    merge_values(space, s, parts.merge, parts.device_plan.c_row_map_, device_c_values, h_values, plan.c_row_map_,
                 c_values);
  }
  space.fence();
  plan.stats_.numeric_pool_bytes = parts.device_plan.stats_.numeric_pool_bytes;
  plan.stats_.numeric_peak_temp_bytes = parts.device_plan.stats_.numeric_peak_temp_bytes;
}

}  // namespace gustav::detail
