#pragma once
/// Runs the device's part and the host's part of a product at the same
/// time: the device's from a thread of its own (its launches and the waits
/// between them), the host's on the calling thread, which holds Kokkos'
/// OpenMP thread pool. On a host execution space both parts share the same
/// cores, so they run one after the other. An exception from either part is
/// raised once both have finished (the device's first). The device's part
/// must make no execution-space instance of its own (see below).
#include <Kokkos_Core.hpp>
#include <exception>
#include <thread>

#include "gustav/common/concurrent_bins.hpp"
#include "gustav/common/launch.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace gustav::detail {

/// Makes the calling thread use the device `space` runs on (a new thread
/// starts on the first device).
template <class ExecSpace>
void bind_device_of(const ExecSpace& space) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) cudaSetDevice(space.cuda_device());
#endif
  (void)space;
}

template <class ExecSpace, class DeviceTask, class HostTask>
void run_side_by_side(const ExecSpace& space, const DeviceTask& device_task, const HostTask& host_task) {
  if constexpr (is_host_space<ExecSpace>()) {
    device_task();
    host_task();
  } else {
#if defined(KOKKOS_ENABLE_CUDA)
    // Kokkos makes an execution-space instance only on the thread that
    // initialized its host space (the check is thread-local), so the side
    // streams the device's passes use are made here, before the thread.
    if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) SideStreams::instance().ready();
#endif
    std::exception_ptr device_error, host_error;
    std::thread device_thread([&]() {
      try {
        bind_device_of(space);
        device_task();
      } catch (...) {
        device_error = std::current_exception();
      }
    });
    try {
      host_task();
    } catch (...) {
      host_error = std::current_exception();
    }
    device_thread.join();
    if (device_error) std::rethrow_exception(device_error);
    if (host_error) std::rethrow_exception(host_error);
  }
}

}  // namespace gustav::detail
