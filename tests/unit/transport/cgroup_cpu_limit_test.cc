// Where a worker's CPU limit is read (cgroup_cpu_limit.h): mountinfo and
// /proc/thread-self/cgroup texts as a v1 host (this development machine),
// a v2 host and a Kubernetes container give them, cpu.stat of both
// versions, and the reader over a fake tree of files.

#include "common/transport/cgroup_cpu_limit.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::transport {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Paths(const std::vector<CpuStatFile>& files) {
  std::vector<std::string> paths;
  for (const CpuStatFile& f : files) paths.push_back(f.path + (f.v2 ? " v2" : " v1"));
  return paths;
}

// This machine's /proc/self/mountinfo (cgroup lines), 2026-12-08: v1
// controllers each on its own mount, and an empty unified v2 beside them.
constexpr char kHybridMountinfo[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(ParseCpuCgroupMountsTest, KeepsV1CpuAndEveryV2MountOnly) {
  const std::vector<CpuCgroupMount> mounts = ParseCpuCgroupMounts(kHybridMountinfo);
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup/cpu");
  EXPECT_FALSE(mounts[0].v2);
  EXPECT_EQ(mounts[1].mount_point, "/sys/fs/cgroup/unified");
  EXPECT_TRUE(mounts[1].v2);
}

TEST(ParseCpuCgroupMountsTest, ReadsOptionalFieldsEscapesAndCombinedControllers) {
  const std::vector<CpuCgroupMount> mounts = ParseCpuCgroupMounts(
      "40 32 0:35 /kubepods/pod1 /sys/fs/cgroup/cpu,cpuacct rw shared:9 master:2 - cgroup cgroup "
      "rw,cpuacct,cpu\n"
      "41 32 0:36 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw,nsdelegate\n"
      "garbage line\n"
      "1 2 3 - cgroup\n");
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].root, "/kubepods/pod1");
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(mounts[1].mount_point, "/mnt/my cgroups");
}

TEST(CpuStatFilesOfTest, V1ThreadGoesUpToTheMountsRoot) {
  const std::vector<CpuCgroupMount> mounts = ParseCpuCgroupMounts(kHybridMountinfo);
  EXPECT_THAT(Paths(CpuStatFilesOf("4:memory:/x\n1:cpu:/ebnccl-culprit-42\n0::/\n", mounts)),
              ElementsAre("/sys/fs/cgroup/cpu/ebnccl-culprit-42/cpu.stat v1",
                          "/sys/fs/cgroup/cpu/cpu.stat v1", "/sys/fs/cgroup/unified/cpu.stat v2"));
}

// A Kubernetes container (cgroup v2, its own cgroup namespace): the pod's
// limit and the container's are both read.
TEST(CpuStatFilesOfTest, V2ContainerReadsItsPodAbove) {
  const std::vector<CpuCgroupMount> mounts =
      ParseCpuCgroupMounts("30 20 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
  EXPECT_THAT(
      Paths(CpuStatFilesOf("0::/kubepods.slice/pod-a.slice/cri-b.scope\n", mounts)),
      ElementsAre("/sys/fs/cgroup/kubepods.slice/pod-a.slice/cri-b.scope/cpu.stat v2",
                  "/sys/fs/cgroup/kubepods.slice/pod-a.slice/cpu.stat v2",
                  "/sys/fs/cgroup/kubepods.slice/cpu.stat v2", "/sys/fs/cgroup/cpu.stat v2"));
}

TEST(CpuStatFilesOfTest, AMountOfASubtreeMapsBelowItsRootAndSkipsWhatIsOutside) {
  std::vector<CpuCgroupMount> mounts = {{"/kubepods/pod1", "/cg", false}};
  EXPECT_THAT(Paths(CpuStatFilesOf("3:cpu,cpuacct:/kubepods/pod1/c2\n", mounts)),
              ElementsAre("/cg/c2/cpu.stat v1", "/cg/cpu.stat v1"));
  EXPECT_TRUE(CpuStatFilesOf("3:cpu:/other/pod\n", mounts).empty());
  EXPECT_TRUE(CpuStatFilesOf("3:cpu:/kubepods/pod1/../../etc\n", mounts).empty());
  EXPECT_TRUE(CpuStatFilesOf("3:cpu:relative\n", mounts).empty());
}

TEST(CpuStatFilesOfTest, AStrangeMembershipReadsAtMostTheBoundOfLevels) {
  std::vector<CpuCgroupMount> mounts = {{"/", "/cg", true}};
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "/d";
  EXPECT_EQ(CpuStatFilesOf("0::" + deep + "\n", mounts).size(),
            static_cast<size_t>(kMaxCgroupLevels));
}

TEST(ParseThrottledUsTest, ReadsV1NanosecondsAndV2Microseconds) {
  absl::StatusOr<double> v1 =
      ParseThrottledUs("nr_periods 1200\nnr_throttled 1080\nthrottled_time 9755004261\n", false);
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_DOUBLE_EQ(*v1, 9755004.261);
  absl::StatusOr<double> v2 = ParseThrottledUs(
      "usage_usec 81230\nuser_usec 60000\nsystem_usec 21230\nnr_periods 50\nnr_throttled 12\n"
      "throttled_usec 340112\n",
      true);
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_DOUBLE_EQ(*v2, 340112);
}

TEST(ParseThrottledUsTest, NoLimitReadsZeroAndGarbageIsRefusedNamingTheLine) {
  EXPECT_EQ(*ParseThrottledUs("usage_usec 81230\nuser_usec 60000\n", true), 0.0);
  EXPECT_EQ(*ParseThrottledUs("", false), 0.0);
  const absl::Status bad = ParseThrottledUs("throttled_time -5\n", false).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("'throttled_time -5' is not 'throttled_time <a whole"));
  EXPECT_FALSE(ParseThrottledUs("throttled_usec 1e9\n", true).ok());
}

TEST(ThrottledBetweenTest, TheMostAnyLevelGrewAndNothingForUnreadOrReset) {
  CpuLimitMark begin{{{"/a", false}, {"/b", false}, {"/c", false}}, {100, 1000, -1}};
  CpuLimitMark end{{{"/a", false}, {"/b", false}, {"/c", false}}, {400, 1200, 5000}};
  EXPECT_DOUBLE_EQ(ThrottledBetween(begin, end), 300);
  end.throttled_us = {50, 900, 5000};  // recreated cgroups: counters went back
  EXPECT_DOUBLE_EQ(ThrottledBetween(begin, end), 0);
  EXPECT_DOUBLE_EQ(ThrottledBetween({}, end), 0);
}

class CpuLimitReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "cpu" / "limited");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  CpuLimitReader Reader() {
    return CpuLimitReader({{"/", (root_ / "cpu").string(), false}}, (root_ / "cgroup").string());
  }
  const std::filesystem::path root_ =
      std::filesystem::temp_directory_path() / ("eb-cgroup-" + std::to_string(::getpid()));
};

TEST_F(CpuLimitReaderTest, MeasuresTheLimitedCgroupBetweenTwoMarks) {
  Write(root_ / "cgroup", "1:cpu:/limited\n");
  Write(root_ / "cpu" / "cpu.stat", "throttled_time 0\n");
  Write(root_ / "cpu" / "limited" / "cpu.stat", "nr_throttled 3\nthrottled_time 2000000\n");
  const CpuLimitReader reader = Reader();
  const CpuLimitMark begin = reader.Mark();
  ASSERT_EQ(begin.files.size(), 2u);
  Write(root_ / "cpu" / "limited" / "cpu.stat", "nr_throttled 9\nthrottled_time 47000000\n");
  // Moved out meanwhile: the end reads the same files as the begin.
  Write(root_ / "cgroup", "1:cpu:/\n");
  EXPECT_DOUBLE_EQ(ThrottledBetween(begin, reader.MarkAgain(begin)), 45000);
}

TEST_F(CpuLimitReaderTest, WhatCannotBeReadMeasuresNothing) {
  // No membership file; then a FIFO where a cpu.stat should be.
  EXPECT_TRUE(Reader().Mark().files.empty());
  Write(root_ / "cgroup", "1:cpu:/limited\n");
  ASSERT_EQ(::mkfifo((root_ / "cpu" / "limited" / "cpu.stat").c_str(), 0600), 0);
  const CpuLimitMark mark = Reader().Mark();
  ASSERT_EQ(mark.files.size(), 2u);
  EXPECT_LT(mark.throttled_us[0], 0);
  EXPECT_DOUBLE_EQ(ThrottledBetween(mark, Reader().MarkAgain(mark)), 0);
}

}  // namespace
}  // namespace eb::transport
