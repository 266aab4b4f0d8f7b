// The node inventory built from given host facts: no host is read.

#include "agent/core/inventory.h"

#include <string>
#include <vector>

#include "common/version/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::agent {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;

HostFacts TwoNicHost() {
  HostFacts host;
  host.hostname = "gpu-01";
  host.host_identity = "boot_id:5f2a7c1e";
  host.interfaces = {{"eth0", {"10.0.0.2", "fe80::1"}, true, false, 9000, 100000},
                     {"lo", {"127.0.0.1"}, true, true, 65536, 0}};
  v1::HcaInfo active;
  active.set_name("mlx5_0");
  active.set_port(1);
  active.set_state("ACTIVE");
  active.set_rate_gbps(400);
  v1::HcaInfo missing;
  missing.set_name("mlx5_9");
  missing.set_error("HCA mlx5_9 does not exist");
  host.hcas = {active, missing};
  host.driver_version = "580.65.06";
  return host;
}

std::vector<v1::GpuInfo> Gpus(int count) {
  std::vector<v1::GpuInfo> gpus(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) gpus[static_cast<size_t>(i)].set_index(i);
  return gpus;
}

TEST(BuildInventoryTest, CopiesTheHostFactsAndTheConfig) {
  AgentCoreConfig config;
  config.worker_slots = 2;
  config.bootstrap_interface = "eth0";
  config.transport = "gloo";
  config.nccl_version = "2.28.9";
  const v1::NodeInventory inventory = BuildInventory(config, Gpus(2), TwoNicHost());
  EXPECT_EQ(inventory.hostname(), "gpu-01");
  EXPECT_EQ(inventory.host_id(), "boot_id:5f2a7c1e");
  EXPECT_EQ(inventory.worker_slots(), 2);
  ASSERT_EQ(inventory.gpus_size(), 2);
  EXPECT_EQ(inventory.gpus(1).index(), 1);
  ASSERT_EQ(inventory.interfaces_size(), 2);
  EXPECT_EQ(inventory.interfaces(0).name(), "eth0");
  EXPECT_THAT(inventory.interfaces(0).addresses(), ElementsAre("10.0.0.2", "fe80::1"));
  EXPECT_TRUE(inventory.interfaces(0).up());
  EXPECT_EQ(inventory.interfaces(0).mtu_bytes(), 9000);
  EXPECT_EQ(inventory.interfaces(0).speed_mbps(), 100000);
  EXPECT_EQ(inventory.bootstrap_interface(), "eth0");
  EXPECT_EQ(inventory.nccl_version(), "2.28.9");
  // The missing HCA is reported with its error, not left out.
  ASSERT_EQ(inventory.hcas_size(), 2);
  EXPECT_EQ(inventory.hcas(0).state(), "ACTIVE");
  EXPECT_EQ(inventory.hcas(1).error(), "HCA mlx5_9 does not exist");
  EXPECT_EQ(inventory.driver_version(), "580.65.06");
  EXPECT_EQ(inventory.agent_version(), kVersion);
  // --transport gloo offers Gloo only, whatever the GPUs.
  EXPECT_THAT(inventory.transports(), ElementsAre(v1::TRANSPORT_GLOO));
}

TEST(BuildInventoryTest, AConfiguredHostIdWinsAndIsMarkedAsSuch) {
  AgentCoreConfig config;
  config.host_id = "rack3-node7";
  EXPECT_EQ(BuildInventory(config, {}, TwoNicHost()).host_id(), "configured:rack3-node7");
}

TEST(BuildInventoryTest, NcclIsOfferedOnlyWhenUsable) {
  AgentCoreConfig config;
  config.worker_slots = 2;
  config.nccl_version = "2.28.9";
#ifdef EB_HAVE_NCCL
  EXPECT_THAT(BuildInventory(config, Gpus(2), {}).transports(),
              ElementsAre(v1::TRANSPORT_GLOO, v1::TRANSPORT_NCCL));
#else
  EXPECT_THAT(BuildInventory(config, Gpus(2), {}).transports(), ElementsAre(v1::TRANSPORT_GLOO));
#endif
  // More slots than GPUs: one rank per GPU, so no NCCL.
  EXPECT_THAT(BuildInventory(config, Gpus(1), {}).transports(), ElementsAre(v1::TRANSPORT_GLOO));
  // No library for the workers.
  config.nccl_version.clear();
  EXPECT_THAT(BuildInventory(config, Gpus(2), {}).transports(), ElementsAre(v1::TRANSPORT_GLOO));
}

}  // namespace
}  // namespace eb::agent
