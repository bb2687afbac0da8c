#include "gustav/common/page_reporting.hpp"

#include <dirent.h>

#include <fstream>
#include <string>

namespace gustav::detail {
namespace {

/// virtio's device id of a memory balloon.
constexpr const char* balloon_device_id = "0x0005";
/// The balloon's feature bit for free page reporting.
constexpr std::size_t reporting_feature_bit = 5;

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool reporting_balloon(const std::string& device) {
  if (first_line(device + "/device") != balloon_device_id) return false;
  // Only a device bound to its driver reports anything; sysfs links the
  // driver's folder in as "driver" (readable by every user, unlike its files).
  DIR* driver = opendir((device + "/driver").c_str());
  if (!driver) return false;
  closedir(driver);
  // One character per feature bit, in bit order.
  const std::string features = first_line(device + "/features");
  return features.size() > reporting_feature_bit && features[reporting_feature_bit] == '1';
}

}  // namespace

bool reporting_balloon_under(const std::string& devices_dir) {
  DIR* dir = opendir(devices_dir.c_str());
  if (!dir) return false;
  bool found = false;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (reporting_balloon(devices_dir + "/" + name)) {
      found = true;
      break;
    }
  }
  closedir(dir);
  return found;
}

bool free_pages_reported_to_hypervisor() {
  static const bool reported = reporting_balloon_under("/sys/bus/virtio/devices");
  return reported;
}

}  // namespace gustav::detail
