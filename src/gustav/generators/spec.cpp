// from_spec: the spec grammar of generators.hpp. A spec is checked in full
// before anything is generated, so a typo in the product part never costs the
// time of building a large matrix.
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gustav/errors.hpp"
#include "gustav/generators.hpp"
#include "gustav/generators/spec_fields.hpp"

namespace gustav::generators {
namespace {

using detail::integer_field;
using detail::spec_error;

constexpr std::int64_t unbounded = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t int_max = std::numeric_limits<int>::max();

/// The matrix part of a spec, checked but not yet generated.
struct MatrixRecipe {
  std::string kind;
  std::string canonical;  ///< every field spelled out, e.g. "lap3d:120:7"
  std::function<Matrix()> generate;
  int grid_dims = 0;  ///< 0 when the matrix lives on no grid (no ap or rap)
  int dofs_per_node = 1;
  std::int64_t n = 0;
};

enum class ProductKind { aa, ap, rap };

struct ProductRecipe {
  ProductKind kind = ProductKind::aa;
  std::string canonical;  ///< e.g. "rap:2"
  int aggregate = 2;
};

void expect_fields(const std::string& spec, const std::vector<std::string>& fields, std::size_t least, std::size_t most,
                   const std::string& usage) {
  if (fields.size() < least || fields.size() > most) spec_error(spec, "expected " + usage);
}

/// A stencil's point count: an integer that must be one of two choices.
int points_field(const std::string& spec, const std::string& text, int first, int second) {
  const auto points = integer_field(spec, "points", text, 0, int_max);
  if (points != first && points != second) {
    spec_error(spec, "points must be " + std::to_string(first) + " or " + std::to_string(second) + ", got " + text);
  }
  return static_cast<int>(points);
}

MatrixRecipe parse_matrix(const std::string& spec, const std::string& text) {
  const auto fields = detail::split(text, ':');
  const std::string& kind = fields[0];
  MatrixRecipe r;
  r.kind = kind;
  if (kind == "lap2d" || kind == "lap3d") {
    const bool is_2d = kind == "lap2d";
    expect_fields(spec, fields, 2, 3, is_2d ? "lap2d:N[:5|9]" : "lap3d:N[:7|27]");
    const auto n = integer_field(spec, "N", fields[1], 1, unbounded);
    const int standard = is_2d ? 5 : 7, wide = is_2d ? 9 : 27;
    const int points = fields.size() > 2 ? points_field(spec, fields[2], standard, wide) : standard;
    r.canonical = kind + ":" + std::to_string(n) + ":" + std::to_string(points);
    r.generate = [=] { return is_2d ? laplace2d(n, points) : laplace3d(n, points); };
    r.grid_dims = is_2d ? 2 : 3;
    r.n = n;
  } else if (kind == "brick") {
    expect_fields(spec, fields, 2, 2, "brick:N");
    const auto n = integer_field(spec, "N", fields[1], 1, unbounded);
    r.canonical = "brick:" + std::to_string(n);
    r.generate = [=] { return elasticity_brick(n); };
    r.grid_dims = 3;
    r.dofs_per_node = 3;
    r.n = n;
  } else if (kind == "rmat") {
    expect_fields(spec, fields, 3, 4, "rmat:SCALE:EF[:SEED]");
    RmatParams p;
    p.scale = static_cast<int>(integer_field(spec, "SCALE", fields[1], 1, 40));
    p.edge_factor = static_cast<int>(integer_field(spec, "EF", fields[2], 1, int_max));
    p.seed = fields.size() > 3 ? detail::seed_field(spec, fields[3]) : 1;
    r.canonical =
        "rmat:" + std::to_string(p.scale) + ":" + std::to_string(p.edge_factor) + ":" + std::to_string(p.seed);
    r.generate = [=] { return rmat(p); };
  } else if (kind == "er") {
    expect_fields(spec, fields, 3, 4, "er:N:AVG[:SEED]");
    const auto n = integer_field(spec, "N", fields[1], 1, unbounded);
    const double avg = detail::decimal_field(spec, "AVG", fields[2]);
    if (!(avg > 0.0 && avg <= static_cast<double>(n))) {
      spec_error(spec, "AVG must be positive and at most N = " + std::to_string(n) + ", got " + fields[2]);
    }
    const std::uint64_t seed = fields.size() > 3 ? detail::seed_field(spec, fields[3]) : 1;
    r.canonical = "er:" + std::to_string(n) + ":" + detail::shortest_decimal(avg) + ":" + std::to_string(seed);
    r.generate = [=] { return erdos_renyi(n, n, avg, seed); };
  } else if (kind == "band") {
    expect_fields(spec, fields, 3, 3, "band:N:HALF");
    const auto n = integer_field(spec, "N", fields[1], 1, unbounded);
    const auto half = integer_field(spec, "HALF", fields[2], 0, unbounded);
    r.canonical = "band:" + std::to_string(n) + ":" + std::to_string(half);
    r.generate = [=] { return banded(n, half); };
  } else if (kind == "arrow") {
    expect_fields(spec, fields, 2, 2, "arrow:N");
    const auto n = integer_field(spec, "N", fields[1], 1, unbounded);
    r.canonical = "arrow:" + std::to_string(n);
    r.generate = [=] { return arrow(n); };
  } else {
    spec_error(spec, "unknown matrix kind \"" + kind + "\" (expected lap2d, lap3d, brick, rmat, er, band or arrow)");
  }
  return r;
}

ProductRecipe parse_product(const std::string& spec, const std::string& text, const MatrixRecipe& matrix) {
  const auto fields = detail::split(text, ':');
  const std::string& kind = fields[0];
  ProductRecipe r;
  if (kind == "aa") {
    expect_fields(spec, fields, 1, 1, "/aa");
    r.canonical = "aa";
    return r;
  }
  if (kind != "ap" && kind != "rap") {
    spec_error(spec, "unknown product \"" + kind + "\" (expected aa, ap[:AGG] or rap[:AGG])");
  }
  expect_fields(spec, fields, 1, 2, "/" + kind + "[:AGG]");
  r.kind = kind == "ap" ? ProductKind::ap : ProductKind::rap;
  if (fields.size() > 1) r.aggregate = static_cast<int>(integer_field(spec, "AGG", fields[1], 1, int_max));
  if (matrix.grid_dims == 0) {
    spec_error(spec, "/" + kind + " needs a grid matrix (lap2d, lap3d or brick), not " + matrix.kind);
  }
  r.canonical = kind + ":" + std::to_string(r.aggregate);
  return r;
}

}  // namespace

Product from_spec(const std::string& spec) {
  if (spec.empty()) spec_error(spec, "empty spec");
  const auto parts = detail::split(spec, '/');
  if (parts.size() > 2) spec_error(spec, "more than one \"/\"");
  const MatrixRecipe matrix = parse_matrix(spec, parts[0]);
  const ProductRecipe product = parse_product(spec, parts.size() > 1 ? parts[1] : "aa", matrix);

  Product result;
  result.name = matrix.canonical + "/" + product.canonical;
  try {
    Matrix A = matrix.generate();
    if (product.kind == ProductKind::aa) {
      result.A = A;
      result.B = std::move(A);
      return result;
    }
    Matrix P = jacobi_smoothed_prolongator(
        A, tentative_prolongator(matrix.n, matrix.grid_dims, product.aggregate, matrix.dofs_per_node));
    if (product.kind == ProductKind::ap) {
      result.A = std::move(A);
      result.B = std::move(P);
    } else {
      result.B = multiply(A, P);
      result.A = transpose(P);
    }
  } catch (const invalid_input& e) {
    // Sizes beyond max_entries surface here, from the generator that met them.
    spec_error(spec, e.what());
  }
  return result;
}

}  // namespace gustav::generators
