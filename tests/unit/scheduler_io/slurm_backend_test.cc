// The Slurm backend over a fake CommandRunner: the commands it runs (argv,
// no shell; SLURM_CONF; the partition), how it reads their answers, and
// that a failed, slow or garbled answer is an error naming slurm and the
// command, never a shorter node list.

#include "coordinator/scheduler_io/slurm_backend.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/scheduler_io/fake_command_runner.h"

namespace eb::scheduler_io {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using testing::FakeCommandRunner;
using ::testing::HasSubstr;

SlurmBackendConfig Config() {
  SlurmBackendConfig config;
  config.bin_dir = "/opt/slurm/bin";
  config.slurm_conf = "/etc/test/slurm.conf";
  config.partition = "gpu";
  return config;
}

TEST(SlurmBackendTest, ListsNodesAndMarksOurBorrowJobs) {
  FakeCommandRunner runner;
  runner.Answer("sinfo", "node0|allocated|none\nnode1|allocated|none\nnode2|idle|none\n");
  runner.Answer("squeue", "2|ebnccl-borrow|RUNNING|node[0]\n");
  SlurmBackend backend(runner, Config());
  auto nodes = backend.ListNodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 3u);
  EXPECT_TRUE((*nodes)[0].held_by_us);
  EXPECT_FALSE((*nodes)[1].held_by_us);
  EXPECT_THAT(runner.commands, ElementsAre("/opt/slurm/bin/sinfo -h -N -o %N|%T|%E --partition=gpu",
                                           "/opt/slurm/bin/squeue -h -o %i|%j|%T|%N "
                                           "--name=ebnccl-borrow,ebnccl-probe"));
  EXPECT_THAT(runner.envs[0], Contains("SLURM_CONF=/etc/test/slurm.conf"));
}

TEST(SlurmBackendTest, TheSentinelsProbeJobsHoldTheirNodesForUsAndArePreemptible) {
  FakeCommandRunner runner;
  runner.Answer("sinfo", "node0|allocated|none\nnode1|allocated|none\nnode2|allocated|none\n");
  runner.Answer("squeue", "3|ebnccl-probe|RUNNING|node[1-2]\n4|someone-else|RUNNING|node0\n");
  SlurmBackendConfig config = Config();
  config.probe_partition = "gpu-scavenger";
  config.probe_qos = "preemptible";
  SlurmBackend backend(runner, config);
  auto nodes = backend.ListNodes();
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_FALSE((*nodes)[0].held_by_us);  // a tenant's job of any other name
  EXPECT_TRUE((*nodes)[1].held_by_us);
  EXPECT_TRUE((*nodes)[2].held_by_us);

  runner.Answer("sbatch", "78\n");
  ASSERT_TRUE(backend.Borrow({"node1", "node2"}, "ebnccl-probe", 60).ok());
  EXPECT_THAT(runner.commands.back(), HasSubstr("--job-name=ebnccl-probe"));
  EXPECT_THAT(runner.commands.back(), HasSubstr("--partition=gpu-scavenger --qos=preemptible"));
  // A validation's borrow keeps the scheduler's partition and no QOS.
  runner.Answer("sbatch", "79\n");
  ASSERT_TRUE(backend.Borrow({"node1"}, "ebnccl-borrow", 60).ok());
  EXPECT_THAT(runner.commands.back(), HasSubstr("--partition=gpu"));
  EXPECT_THAT(runner.commands.back(), ::testing::Not(HasSubstr("--qos")));
}

TEST(SlurmBackendTest, FailedCommandNamesSlurmAndTheCommand) {
  FakeCommandRunner runner;
  runner.Answer("sinfo", "sinfo: error: Unable to contact slurm controller (connect failure)\n", 1);
  SlurmBackend backend(runner, Config());
  auto nodes = backend.ListNodes();
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(nodes.status().message(), HasSubstr("slurm: `/opt/slurm/bin/sinfo -h -N"));
  EXPECT_THAT(nodes.status().message(), HasSubstr("exited 1: sinfo: error: Unable to contact"));
}

TEST(SlurmBackendTest, SlowCommandIsAnErrorNamingIt) {
  FakeCommandRunner runner;
  runner.Answer("sinfo", absl::DeadlineExceededError("did not end within 10s; killed"));
  SlurmBackend backend(runner, Config());
  auto nodes = backend.ListNodes();
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(nodes.status().message(), HasSubstr("slurm: `/opt/slurm/bin/sinfo"));
}

TEST(SlurmBackendTest, GarbledAnswerIsNoListAtAll) {
  FakeCommandRunner runner;
  runner.Answer("sinfo", "node0|idle|none\nnode1|idl");  // cut short
  SlurmBackend backend(runner, Config());
  EXPECT_FALSE(backend.ListNodes().ok());
  FakeCommandRunner runner2;
  runner2.Answer("sinfo", "node0|idle|none\n");
  runner2.Answer("squeue", "garbage\n");
  SlurmBackend backend2(runner2, Config());
  auto nodes = backend2.ListNodes();
  ASSERT_FALSE(nodes.ok());
  EXPECT_THAT(nodes.status().message(), HasSubstr("squeue"));
}

TEST(SlurmBackendTest, DrainsAndResumesWithOneArgvElementPerField) {
  FakeCommandRunner runner;
  SlurmBackend backend(runner, Config());
  ASSERT_TRUE(backend.Drain("node3", "ebnccl v-1: rail 0 at 10%; $(reboot)\nx").ok());
  ASSERT_TRUE(backend.Resume("node3").ok());
  EXPECT_THAT(runner.commands,
              ElementsAre("/opt/slurm/bin/scontrol update NodeName=node3 State=DRAIN "
                          "Reason=ebnccl v-1: rail 0 at 10%; $(reboot) x",
                          "/opt/slurm/bin/scontrol update NodeName=node3 State=RESUME"));
}

TEST(SlurmBackendTest, RefusesNodeNamesThatAreNotNames) {
  FakeCommandRunner runner;
  SlurmBackend backend(runner, Config());
  EXPECT_FALSE(backend.Drain("node3 State=RESUME", "x").ok());
  EXPECT_FALSE(backend.Resume("").ok());
  EXPECT_FALSE(backend.Borrow({"n1,n2"}, "ebnccl-borrow", 60).ok());
  EXPECT_TRUE(runner.commands.empty());
}

TEST(SlurmBackendTest, BorrowsThroughAnExclusiveJobAndEndsIt) {
  FakeCommandRunner runner;
  runner.Answer("sbatch", "77\n");
  runner.Answer("squeue", "77|ebnccl-borrow|PENDING|\n");
  runner.Answer("squeue", "77|ebnccl-borrow|RUNNING|node[1-2]\n");
  SlurmBackend backend(runner, Config());
  auto id = backend.Borrow({"node1", "node2"}, "ebnccl-borrow", 90);
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, "77");
  EXPECT_THAT(runner.commands[0],
              HasSubstr("sbatch --parsable --exclusive --job-name=ebnccl-borrow --nodes=2 "
                        "--nodelist=node1,node2 --time=2"));
  EXPECT_TRUE(backend.JobNodes("77")->empty());
  EXPECT_THAT(*backend.JobNodes("77"), ElementsAre("node1", "node2"));
  ASSERT_TRUE(backend.EndJob("77").ok());
  EXPECT_EQ(runner.commands.back(), "/opt/slurm/bin/scancel 77");
  EXPECT_FALSE(backend.EndJob("77 --signal=KILL").ok());
}

}  // namespace
}  // namespace eb::scheduler_io
