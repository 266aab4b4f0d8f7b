// Two nodes of one host must not put NCCL ranks on the same GPU.

#include "coordinator/core/collective_tests/gpu_sharing.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::AllOf;
using ::testing::HasSubstr;

v1::NodeInventory Inventory(const std::string& host_id) {
  v1::NodeInventory inventory;
  inventory.set_hostname("gpu-host");
  inventory.set_host_id(host_id);
  return inventory;
}

v1::RankAssignment Rank(int rank, const std::string& node, int node_index, int device,
                        const std::string& bus_id) {
  v1::RankAssignment assignment;
  assignment.set_rank(rank);
  assignment.set_node_name(node);
  assignment.set_node_index(node_index);
  assignment.set_device_index(device);
  assignment.set_gpu_pci_bus_id(bus_id);
  return assignment;
}

TEST(GpuSharingTest, DisjointGpusOfOneHostPass) {
  const std::vector<v1::NodeInventory> nodes = {Inventory("boot_id:h"), Inventory("boot_id:h")};
  EXPECT_TRUE(CheckNoSharedGpus(
                  {Rank(0, "a", 0, 0, "0000:18:00.0"), Rank(1, "b", 1, 4, "0000:9a:00.0")}, nodes)
                  .ok());
}

TEST(GpuSharingTest, OneGpuOnTwoNodesOfOneHostIsResourceExhaustedNamingEverything) {
  const std::vector<v1::NodeInventory> nodes = {Inventory("boot_id:h"), Inventory("boot_id:h")};
  // Spelt differently by the two agents: still one GPU.
  const absl::Status status = CheckNoSharedGpus(
      {Rank(0, "half-a", 0, 0, "0000:18:00.0"), Rank(1, "half-a", 0, 1, "0000:19:00.0"),
       Rank(2, "half-b", 1, 0, "00000000:18:00.0")},
      nodes);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("nodes half-a and half-b run on one host (gpu-host, boot_id:h)"),
                    HasSubstr("GPU at PCI 0000:18:00.0"), HasSubstr("rank 0 (half-a GPU 0)"),
                    HasSubstr("rank 2 (half-b GPU 0)"), HasSubstr("one rank per GPU")));
}

TEST(GpuSharingTest, SameBusIdOnDifferentHostsPasses) {
  const std::vector<v1::NodeInventory> nodes = {Inventory("boot_id:h1"), Inventory("boot_id:h2")};
  EXPECT_TRUE(CheckNoSharedGpus(
                  {Rank(0, "a", 0, 0, "0000:18:00.0"), Rank(1, "b", 1, 0, "0000:18:00.0")}, nodes)
                  .ok());
}

TEST(GpuSharingTest, UnknownHostsOrBusIdsAreNotCompared) {
  // Older agents report no host id; CPU ranks and GPUs without bus ids have
  // nothing to compare.
  EXPECT_TRUE(
      CheckNoSharedGpus({Rank(0, "a", 0, 0, "0000:18:00.0"), Rank(1, "b", 1, 0, "0000:18:00.0")},
                        {Inventory(""), Inventory("")})
          .ok());
  const std::vector<v1::NodeInventory> same = {Inventory("boot_id:h"), Inventory("boot_id:h")};
  EXPECT_TRUE(CheckNoSharedGpus({Rank(0, "a", 0, 0, ""), Rank(1, "b", 1, 0, "")}, same).ok());
  EXPECT_TRUE(CheckNoSharedGpus(
                  {Rank(0, "a", 0, -1, "0000:18:00.0"), Rank(1, "b", 1, -1, "0000:18:00.0")}, same)
                  .ok());
}

TEST(GpuSharingTest, ANodeIndexWithoutInventoryIsSkipped) {
  EXPECT_TRUE(CheckNoSharedGpus({Rank(0, "a", 3, 0, "0000:18:00.0")}, {}).ok());
}

}  // namespace
}  // namespace eb::coordinator
