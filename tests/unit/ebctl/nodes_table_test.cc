#include "coordinator/ebctl/output/nodes_table.h"

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;

v1::NodeStatus* AddNode(v1::ListNodesReply* reply, const std::string& name, v1::NodeState state,
                        int64_t age_ms) {
  v1::NodeStatus* node = reply->add_nodes();
  node->set_node_name(name);
  node->set_peer_address("ipv4:10.0.0.1:40000");
  node->set_state(state);
  node->set_heartbeat_age_ms(age_ms);
  return node;
}

TEST(NodesTableTest, AlignedColumns) {
  v1::ListNodesReply reply;
  v1::NodeStatus* gpu = AddNode(&reply, "gpu-01", v1::NODE_STATE_BUSY, 420);
  gpu->set_current_test_id("t-1");
  v1::NodeInventory* inventory = gpu->mutable_inventory();
  inventory->set_worker_slots(8);
  inventory->add_transports(v1::TRANSPORT_GLOO);
  inventory->add_transports(v1::TRANSPORT_NCCL);
  inventory->set_nccl_version("2.28.9");
  inventory->set_bootstrap_interface("eth0");
  for (int i = 0; i < 8; ++i) {
    v1::GpuInfo* info = inventory->add_gpus();
    info->set_index(i);
    info->set_name(i < 6 ? "NVIDIA H200" : "NVIDIA H100");
    info->set_memory_bytes(i < 6 ? int64_t{143771} << 20 : int64_t{81559} << 20);
  }
  for (int i = 0; i < 2; ++i) {
    v1::HcaInfo* hca = inventory->add_hcas();
    hca->set_name("mlx5_10" + std::to_string(i));
    hca->set_port(1);
    hca->set_state("ACTIVE");
  }
  v1::NodeStatus* cpu = AddNode(&reply, "cpu-01", v1::NODE_STATE_LOST, 200'000);
  cpu->mutable_inventory()->set_worker_slots(2);
  cpu->mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
  AddNode(&reply, "old", v1::NODE_STATE_IDLE, 7'500'000)->clear_peer_address();

  // One line per node; the columns are as wide as their widest cell.
  const std::vector<std::string> lines = {
      "NODE    ADDRESS              STATE  SLOTS  HEARTBEAT  TRANSPORTS  NCCL    GPUS              "
      "                                 HCAS      IFACE  TEST",
      "gpu-01  ipv4:10.0.0.1:40000  busy   8      0.4s       gloo,nccl   2.28.9  6x NVIDIA H200 "
      "(140 GiB), 2x NVIDIA H100 (80 GiB)  2 active  eth0   t-1",
      "cpu-01  ipv4:10.0.0.1:40000  lost   2      3m20s      gloo        -       -                 "
      "                                 -         any    -",
      "old     -                    idle   0      2h05m      -           -       -                 "
      "                                 -         any    -",
  };
  EXPECT_EQ(NodesTable(reply), absl::StrJoin(lines, "\n") + "\n");
}

TEST(NodesTableTest, GpusWithoutMemoryShowTheModelOnly) {
  v1::ListNodesReply reply;
  v1::NodeInventory* inventory = AddNode(&reply, "n", v1::NODE_STATE_IDLE, 0)->mutable_inventory();
  inventory->add_gpus()->set_name("NVIDIA H200");
  inventory->add_gpus()->set_name("NVIDIA H200");
  inventory->add_gpus();
  EXPECT_THAT(NodesTable(reply), ::testing::HasSubstr("  2x NVIDIA H200, 1x GPU  "));
}

TEST(NodesTableTest, UnusableHcasAreCountedAndSpelledOutBelowTheTable) {
  v1::ListNodesReply reply;
  v1::NodeInventory* inventory =
      AddNode(&reply, "gpu-02", v1::NODE_STATE_IDLE, 100)->mutable_inventory();
  v1::HcaInfo* active = inventory->add_hcas();
  active->set_name("mlx5_100");
  active->set_port(1);
  active->set_state("ACTIVE");
  v1::HcaInfo* down = inventory->add_hcas();
  down->set_name("mlx5_103");
  down->set_port(1);
  down->set_state("DOWN");
  v1::HcaInfo* missing = inventory->add_hcas();
  missing->set_name("mlx5_107");
  missing->set_port(1);
  missing->set_error(
      "HCA mlx5_107 does not exist (/sys/class/infiniband lists mlx5_100, mlx5_103)");
  const std::string table = NodesTable(reply);
  EXPECT_THAT(table, ::testing::HasSubstr("  1/3 active  "));
  EXPECT_THAT(table, ::testing::EndsWith(
                         "\nnode gpu-02: HCA mlx5_103 port 1 is DOWN, not ACTIVE\n"
                         "node gpu-02: HCA mlx5_107 does not exist (/sys/class/infiniband lists "
                         "mlx5_100, mlx5_103)\n"));
}

TEST(GpusTableTest, EveryGpuWithItsNumaNodeAndNearestHca) {
  v1::ListNodesReply reply;
  v1::NodeStatus& node = *reply.add_nodes();
  node.set_node_name("a800-0");
  for (int i = 0; i < 2; ++i) {
    v1::GpuInfo& gpu = *node.mutable_inventory()->add_gpus();
    gpu.set_index(i);
    gpu.set_name("NVIDIA A800-SXM4-80GB");
    gpu.set_pci_bus_id(i == 0 ? "0000:0e:00.0" : "0000:4f:00.0");
    gpu.set_numa_node(i == 0 ? 0 : -1);
    gpu.set_nearest_hca(i == 0 ? "mlx5_100" : "");
    gpu.set_hca_affinity(i == 0 ? "same PCIe switch" : "none");
  }
  EXPECT_EQ(
      GpusTable(reply),
      "\nNODE    GPU  BUS ID        MODEL                  NUMA  NEAREST HCA  AFFINITY\n"
      "a800-0  0    0000:0e:00.0  NVIDIA A800-SXM4-80GB  0     mlx5_100     same PCIe switch\n"
      "a800-0  1    0000:4f:00.0  NVIDIA A800-SXM4-80GB  -     -            none\n");
  EXPECT_EQ(GpusTable(v1::ListNodesReply()), "no node reports a GPU\n");
}

TEST(NodesTableTest, NoNodes) {
  EXPECT_EQ(NodesTable(v1::ListNodesReply()), "no agents are registered with the coordinator\n");
}

// With a scheduler (issue 30): its column after STATE, whose drain it is,
// and the reason in full on a line of its own.
TEST(NodesTableTest, SchedulerColumnSaysWhoseDrain) {
  v1::ListNodesReply reply;
  reply.set_scheduler("slurm");
  reply.set_scheduler_read_unix_ms(1);
  AddNode(&reply, "a", v1::NODE_STATE_IDLE, 100)->set_scheduler_state("idle");
  v1::NodeStatus* b = AddNode(&reply, "b", v1::NODE_STATE_IDLE, 100);
  b->set_scheduler_state("drained");
  b->set_scheduler_drained_by("operator");
  b->set_scheduler_reason("operator: bad fan | ticket 42");
  v1::NodeStatus* c = AddNode(&reply, "c", v1::NODE_STATE_IDLE, 100);
  c->set_scheduler_state("drained");
  c->set_scheduler_drained_by("ebnccl");
  c->set_scheduler_reason("ebnccl v-1: degraded");
  AddNode(&reply, "d", v1::NODE_STATE_IDLE, 100)->set_scheduler_state("allocated");
  AddNode(&reply, "e", v1::NODE_STATE_IDLE, 100);  // not in the partition
  const std::string table = NodesTable(reply);
  const std::vector<std::string> lines = absl::StrSplit(table, '\n');
  ASSERT_GE(lines.size(), 8u);
  EXPECT_THAT(lines[0], ::testing::StartsWith("NODE  ADDRESS              STATE  SLURM"
                                              "               SLOTS"));
  EXPECT_THAT(lines[1], ::testing::HasSubstr("  idle   idle                0"));
  EXPECT_THAT(lines[2], ::testing::HasSubstr("  idle   drained (operator)  0"));
  EXPECT_THAT(lines[3], ::testing::HasSubstr("  idle   drained (ebnccl)    0"));
  EXPECT_THAT(lines[4], ::testing::HasSubstr("  idle   allocated           0"));
  EXPECT_THAT(lines[5], ::testing::HasSubstr("  idle   -                   0"));
  EXPECT_EQ(lines[6], "node b: drained in slurm by an operator: operator: bad fan | ticket 42");
  EXPECT_EQ(lines[7], "node c: drained in slurm by ebnccl: ebnccl v-1: degraded");
  // No scheduler: no column.
  reply.clear_scheduler();
  EXPECT_THAT(NodesTable(reply), ::testing::Not(::testing::HasSubstr("SLURM")));
}

}  // namespace
}  // namespace eb::ebctl
