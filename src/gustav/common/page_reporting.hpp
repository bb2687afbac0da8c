#pragma once
/// Whether this machine's kernel hands free memory back to a hypervisor
/// (free page reporting). A virtual machine that does so gets the memory
/// back only as it is touched again, each fault waiting for the host: a
/// huge page that had been free for a few seconds then costs far more to
/// fault than 512 small ones (see allocation.hpp: result_huge_pages).
#include <string>

namespace gustav::detail {

/// True where a virtio memory balloon bound to its driver has negotiated
/// free page reporting (VIRTIO_BALLOON_F_REPORTING); read once from sysfs.
/// False elsewhere, including where sysfs cannot be read.
bool free_pages_reported_to_hypervisor();

/// The check itself, over the virtio device folders in `devices_dir`
/// (sysfs's /sys/bus/virtio/devices): true where one is a balloon (device
/// id 0x0005) held by a driver whose features string has bit 5 set.
bool reporting_balloon_under(const std::string& devices_dir);

}  // namespace gustav::detail
