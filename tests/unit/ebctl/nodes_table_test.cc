#include "coordinator/ebctl/output/report_table.h"

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
  inventory->set_bootstrap_interface("eth0");
  for (int i = 0; i < 8; ++i) {
    v1::GpuInfo* info = inventory->add_gpus();
    info->set_index(i);
    info->set_name(i < 6 ? "NVIDIA H200" : "NVIDIA H100");
  }
  v1::NodeStatus* cpu = AddNode(&reply, "cpu-01", v1::NODE_STATE_LOST, 200'000);
  cpu->mutable_inventory()->set_worker_slots(2);
  cpu->mutable_inventory()->add_transports(v1::TRANSPORT_GLOO);
  AddNode(&reply, "old", v1::NODE_STATE_IDLE, 7'500'000)->clear_peer_address();

  EXPECT_EQ(
      NodesTable(reply),
      "NODE    ADDRESS              STATE  SLOTS  HEARTBEAT  TRANSPORTS  GPUS                 "
      "           IFACE  TEST\n"
      "gpu-01  ipv4:10.0.0.1:40000  busy   8      0.4s       gloo,nccl   6x NVIDIA H200, 2x "
      "NVIDIA H100  eth0   t-1\n"
      "cpu-01  ipv4:10.0.0.1:40000  lost   2      3m20s      gloo        -                    "
      "           any    -\n"
      "old     -                    idle   0      2h05m      -           -                    "
      "           any    -\n");
}

TEST(NodesTableTest, NoNodes) {
  EXPECT_EQ(NodesTable(v1::ListNodesReply()), "no agents are registered with the coordinator\n");
}

}  // namespace
}  // namespace eb::ebctl
