// The check for free page reporting to a hypervisor (common/page_reporting),
// on fake sysfs trees: the decision must follow the balloon's device id,
// whether a driver holds it, and its reporting feature bit.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gustav/common/page_reporting.hpp"

namespace gustav::detail {
namespace {

namespace fs = std::filesystem;

/// A virtio device folder as sysfs shows one.
struct FakeDevice {
  std::string id = "0x0005";
  bool bound = true;
  std::string features = "0110010100000000000000000000000010000000";
};

class PageReporting : public ::testing::Test {
 protected:
  fs::path root;

  void SetUp() override {
    root = fs::temp_directory_path() /
           ("gustav_page_reporting_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    fs::create_directories(root);
  }
  void TearDown() override { fs::remove_all(root); }

  void add(const std::string& name, const FakeDevice& d) {
    const fs::path dir = root / name;
    fs::create_directories(dir);
    std::ofstream(dir / "device") << d.id << "\n";
    std::ofstream(dir / "features") << d.features << "\n";
    if (d.bound) fs::create_directories(dir / "driver");
  }
};

TEST_F(PageReporting, BoundBalloonWithTheFeatureReports) {
  add("virtio0", FakeDevice{});
  EXPECT_TRUE(reporting_balloon_under(root.string()));
}

TEST_F(PageReporting, FoundAmongOtherDevices) {
  add("virtio0", FakeDevice{"0x0002", true, "1111111111"});
  add("virtio1", FakeDevice{"0x0001", true, "1111111111"});
  add("virtio2", FakeDevice{});
  EXPECT_TRUE(reporting_balloon_under(root.string()));
}

TEST_F(PageReporting, BalloonWithoutTheFeatureDoesNot) {
  // Bit 5 clear, and a features string too short to have it.
  for (const char* features : {"0110000100000000000000000000000010000000", "01100"}) {
    FakeDevice d;
    d.features = features;
    add("virtio0", d);
    EXPECT_FALSE(reporting_balloon_under(root.string())) << features;
  }
}

TEST_F(PageReporting, UnboundBalloonDoesNot) {
  FakeDevice d;
  d.bound = false;
  add("virtio0", d);
  EXPECT_FALSE(reporting_balloon_under(root.string()));
}

TEST_F(PageReporting, OtherDevicesWithBitFiveDoNot) {
  add("virtio0", FakeDevice{"0x0002", true, "1111111111"});
  add("virtio1", FakeDevice{"0x0013", true, "0000010000"});
  EXPECT_FALSE(reporting_balloon_under(root.string()));
}


TEST_F(PageReporting, MissingOrEmptyFolderDoesNot) {
  EXPECT_FALSE(reporting_balloon_under(root.string()));
  EXPECT_FALSE(reporting_balloon_under((root / "absent").string()));
}

TEST(PageReportingOnThisMachine, AnswersTheSameEveryTime) {
  const bool first = free_pages_reported_to_hypervisor();
  EXPECT_EQ(free_pages_reported_to_hypervisor(), first);
  EXPECT_EQ(first, reporting_balloon_under("/sys/bus/virtio/devices"));
}

}  // namespace
}  // namespace gustav::detail
