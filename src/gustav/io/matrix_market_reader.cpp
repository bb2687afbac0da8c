/// The Matrix Market reader's driver: file or text in, checked 64-bit CSR
/// out. The steps live in their own files: file_contents (the whole file at
/// once), header (banner, size line), then a counting sort by row in two
/// passes over the entry lines: row_layout counts, entries places.
#include <cstdio>
#include <fstream>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unistd.h>

#include "gustav/io/entries.hpp"
#include "gustav/io/file_contents.hpp"
#include "gustav/io/header.hpp"
#include "gustav/io/parsed_matrix.hpp"
#include "gustav/io/row_layout.hpp"
#include "gustav/io/source_error.hpp"
#include "gustav/io/text_scanner.hpp"
#include "gustav/matrix_market.hpp"

namespace gustav::detail {

namespace {

std::string type_limit(const char* role, int bits, std::int64_t max) {
  return "the " + std::to_string(bits) + "-bit " + role + " type (at most " + std::to_string(max) + "); use a 64-bit " +
         role;
}

/// Refuses a size line that announces more entries than the rest of the
/// text could hold, before any type check: such a file is damaged, and
/// advice to widen a type would mislead. Every entry line takes at least a
/// row and a column, each a character and a separator; a line short of its
/// value is left to the placing pass, which names it.
void check_entries_fit_text(const Header& header, const TextScanner& scanner, const SourceName& source) {
  const std::int64_t bytes = static_cast<std::int64_t>(scanner.bytes_left());
  const std::int64_t at_most = (bytes + 1) / 4;
  if (header.entries > at_most)
    throw_invalid_input(source, header.size_line,
                        "the size line announces " + std::to_string(header.entries) + " entries, but the " +
                            std::to_string(bytes) + " bytes after it hold at most " + std::to_string(at_most));
}

/// Refuses, before any entry is stored, a file whose values or counts the
/// caller's types cannot hold.
void check_fits(const Header& header, const CsrLimits& limits, const SourceName& source) {
  if (header.field == Field::complex && !limits.complex_scalar)
    throw_invalid_input(source, 1, "complex values cannot be read into a real scalar type");
  if (header.rows > limits.max_ordinal)
    throw_overflow(source, header.size_line,
                   std::to_string(header.rows) + " rows do not fit " +
                       type_limit("ordinal", limits.ordinal_bits, limits.max_ordinal));
  if (header.cols > limits.max_ordinal)
    throw_overflow(source, header.size_line,
                   std::to_string(header.cols) + " columns do not fit " +
                       type_limit("ordinal", limits.ordinal_bits, limits.max_ordinal));
  if (header.entries > limits.max_offset)
    throw_overflow(source, header.size_line,
                   std::to_string(header.entries) + " entries do not fit " +
                       type_limit("offset", limits.offset_bits, limits.max_offset));
}

void check_expansion_fits(std::int64_t expanded, const Header& header, const CsrLimits& limits,
                          const SourceName& source) {
  if (expanded > limits.max_offset)
    throw_overflow(source, header.size_line,
                   std::string(symmetry_name(header.symmetry)) + " expansion gives " + std::to_string(expanded) +
                       " entries, which do not fit " + type_limit("offset", limits.offset_bits, limits.max_offset));
}

std::string in_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char text[64];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

/// Memory a new allocation can take without pushing others out: Linux's
/// MemAvailable, else the machine's physical memory, else 0 (unknown).
double available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

/// Runs `allocate`; a failed allocation becomes an allocation_error that
/// names the file, the size line and the memory that line asks for.
template <class Allocate>
void allocate_for(const SourceName& source, const Header& header, const std::string& what, double bytes,
                  const Allocate& allocate) {
  const std::string needs = what + " needs " + in_bytes(bytes);
  // More than the memory available is refused before trying: the kernel
  // grants such an allocation and then ends the process when its pages are
  // touched, and some allocators (AddressSanitizer's among them) end the
  // process instead of throwing.
  const double memory = available_memory_bytes();
  if (memory > 0 && bytes > memory)
    throw_allocation(source, header.size_line, needs + ", more than the " + in_bytes(memory) + " of memory available");
  bool failed = false;
  try {
    allocate();
  } catch (const std::bad_alloc&) {
    failed = true;
  } catch (const std::length_error&) {
    failed = true;
  }
  if (failed) throw_allocation(source, header.size_line, needs + ", more memory than could be allocated");
}

/// Text editors on some systems open files with a UTF-8 byte order mark;
/// it is not part of the banner.
std::string_view without_byte_order_mark(std::string_view text) {
  constexpr std::string_view mark = "\xEF\xBB\xBF";
  return text.substr(0, mark.size()) == mark ? text.substr(mark.size()) : text;
}

/// Header, counting pass, allocation, placing pass: the text is read twice
/// but the entries are stored once, in their final place.
ParsedMatrix parse(std::string_view text, const SourceName& source, const CsrLimits& limits, MatrixMarketInfo* info) {
  TextScanner scanner(without_byte_order_mark(text));
  const Header header = read_header(scanner, source);
  check_entries_fit_text(header, scanner, source);
  check_fits(header, limits, source);

  ParsedMatrix m;
  m.num_rows = header.rows;
  m.num_cols = header.cols;
  allocate_for(source, header, "the row map of " + std::to_string(header.rows) + " rows",
               (static_cast<double>(header.rows) + 1) * sizeof(std::int64_t),
               [&]() { m.row_map = count_row_layout(scanner, header); });
  const std::int64_t nnz = m.row_map.back();
  check_expansion_fits(nnz, header, limits, source);
  const double per_entry = sizeof(std::int64_t) + (header.field != Field::pattern ? sizeof(double) : 0) +
                           (header.field == Field::complex ? sizeof(double) : 0);
  allocate_for(source, header, std::to_string(nnz) + " entries", static_cast<double>(nnz) * per_entry, [&]() {
    m.entries.resize(static_cast<std::size_t>(nnz));
    if (header.field != Field::pattern) m.real.resize(static_cast<std::size_t>(nnz));
    if (header.field == Field::complex) m.imag.resize(static_cast<std::size_t>(nnz));
  });
  place_entries(scanner, header, source, m);

  if (info) {
    info->field = field_name(header.field);
    info->symmetry = symmetry_name(header.symmetry);
    info->rows = header.rows;
    info->cols = header.cols;
    info->stored_entries = header.entries;
  }
  return m;
}

}  // namespace

ParsedMatrix read_matrix_market_file(const std::string& path, const CsrLimits& limits, MatrixMarketInfo* info) {
  const SourceName source{"gustav::read_matrix_market", path};
  const FileContents contents(path, source);
  ParsedMatrix m = parse(contents.text(), source, limits, info);
  if (info) info->bytes = contents.bytes_on_disk();
  return m;
}

ParsedMatrix parse_matrix_market_text(std::string_view text, const std::string& name, const CsrLimits& limits,
                                      MatrixMarketInfo* info) {
  const SourceName source{"gustav::parse_matrix_market", name};
  ParsedMatrix m = parse(text, source, limits, info);
  if (info) info->bytes = static_cast<std::int64_t>(text.size());
  return m;
}

}  // namespace gustav::detail

bool gustav::matrix_market_reads_gzip() { return detail::gzip_supported(); }
