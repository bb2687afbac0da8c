#pragma once
/// Point-to-point traffic of the distributed layer as MPI_Alltoallv over
/// host memory: device arrays are packed on the device, staged through a
/// host copy (unless they already live there) and unpacked on the device.
/// CUDA-aware MPI would save the staging; it is not assumed.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gustav/distributed/collective_errors.hpp"
#include "gustav/distributed/mpi_types.hpp"

namespace gustav::distributed::detail {

/// Who sends how many elements to whom, in MPI's int counts.
struct ExchangePattern {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::int64_t send_total = 0;
  std::int64_t recv_total = 0;
};

/// What every peer sends this rank, given what this rank sends each peer.
/// Collective.
inline std::vector<std::int64_t> exchange_counts(MPI_Comm comm, const std::vector<std::int64_t>& send_counts) {
  std::vector<std::int64_t> recv(send_counts.size(), 0);
  MPI_Alltoall(send_counts.data(), 1, MPI_INT64_T, recv.data(), 1, MPI_INT64_T, comm);
  return recv;
}

/// The pattern of per-peer counts placed back to back in rank order on both
/// sides. Throws gustav::overflow_error on every rank when a rank's total
/// exceeds MPI's int counts. Collective.
inline ExchangePattern make_pattern(MPI_Comm comm, const std::vector<std::int64_t>& send_counts,
                                    const std::vector<std::int64_t>& recv_counts, const char* who,
                                    const char* what) {
  ExchangePattern p;
  const std::size_t peers = send_counts.size();
  p.send_counts.resize(peers);
  p.send_displs.resize(peers);
  p.recv_counts.resize(peers);
  p.recv_displs.resize(peers);
  for (std::size_t r = 0; r < peers; ++r) {
    p.send_displs[r] = static_cast<int>(std::min<std::int64_t>(p.send_total, std::numeric_limits<int>::max()));
    p.recv_displs[r] = static_cast<int>(std::min<std::int64_t>(p.recv_total, std::numeric_limits<int>::max()));
    p.send_counts[r] = static_cast<int>(std::min<std::int64_t>(send_counts[r], std::numeric_limits<int>::max()));
    p.recv_counts[r] = static_cast<int>(std::min<std::int64_t>(recv_counts[r], std::numeric_limits<int>::max()));
    p.send_total += send_counts[r];
    p.recv_total += recv_counts[r];
  }
  const bool too_many = p.send_total > std::numeric_limits<int>::max() || p.recv_total > std::numeric_limits<int>::max();
  fail_together(comm, too_many, ErrorKind::overflow,
                std::string(who) + ": a rank would exchange more than 2^31 - 1 " + what +
                    " in one message (MPI's int counts); use more ranks");
  return p;
}

/// The same pattern, the other way round (replies to requests).
inline ExchangePattern reversed(const ExchangePattern& p) {
  ExchangePattern r;
  r.send_counts = p.recv_counts;
  r.send_displs = p.recv_displs;
  r.recv_counts = p.send_counts;
  r.recv_displs = p.send_displs;
  r.send_total = p.recv_total;
  r.recv_total = p.send_total;
  return r;
}

/// Sends `send` (host memory, p.send_total elements) and returns what
/// arrived (host memory, p.recv_total elements). Collective.
template <class T>
Kokkos::View<T*, Kokkos::HostSpace> exchange_host(MPI_Comm comm, const ExchangePattern& p, const T* send,
                                                  const std::string& label) {
  Kokkos::View<T*, Kokkos::HostSpace> recv(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                           static_cast<std::size_t>(p.recv_total));
  MPI_Alltoallv(send, p.send_counts.data(), p.send_displs.data(), mpi_type<T>(), recv.data(), p.recv_counts.data(),
                p.recv_displs.data(), mpi_type<T>(), comm);
  return recv;
}

/// A host copy of `device` (the same array where it is host memory) in
/// which only the elements outside [skip_first, skip_end) are copied: the
/// part a rank keeps for itself is never staged.
template <class View>
auto host_copy_except(const View& device, std::size_t skip_first, std::size_t skip_end) {
  auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), device);
  if (host.data() != device.data()) {
    const std::size_t n = device.extent(0);
    const auto copy = [&](std::size_t lo, std::size_t hi) {
      if (hi > lo) Kokkos::deep_copy(Kokkos::subview(host, std::make_pair(lo, hi)), Kokkos::subview(device, std::make_pair(lo, hi)));
    };
    copy(0, skip_first);
    copy(skip_end, n);
  }
  return host;
}

/// Sends a packed array of `space`'s memory and returns what arrived, in
/// the same memory. Collective.
template <class ExecSpace, class T>
Kokkos::View<T*, typename ExecSpace::memory_space> exchange(const ExecSpace& space, MPI_Comm comm,
                                                             const ExchangePattern& p,
                                                             const Kokkos::View<T*, typename ExecSpace::memory_space>& send,
                                                             const std::string& label) {
  space.fence();
  auto send_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), send);
  auto recv_host = exchange_host<T>(comm, p, send_host.data(), label);
  return Kokkos::create_mirror_view_and_copy(typename ExecSpace::memory_space(), recv_host);
}

}  // namespace gustav::distributed::detail
