#include "coordinator/ebctl/input/run_test_flags.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(BuildSpecTest, DefaultsAreNcclTestsDefaults) {
  auto spec = BuildSpec(RunTestFlags{});
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->collective(), v1::COLLECTIVE_ALL_REDUCE);
  EXPECT_EQ(spec->data_type(), v1::DATA_TYPE_FLOAT);
  EXPECT_EQ(spec->reduce_op(), v1::REDUCE_OP_SUM);
  EXPECT_EQ(spec->min_bytes(), 32 << 20);
  EXPECT_EQ(spec->max_bytes(), 32 << 20);
  EXPECT_EQ(spec->step_bytes(), 1 << 20);
  EXPECT_EQ(spec->step_factor(), 0);
  EXPECT_EQ(spec->iterations(), 20);
  EXPECT_EQ(spec->warmup_iterations(), 1);
  EXPECT_EQ(spec->check_iterations(), 1);
  EXPECT_EQ(spec->transport(), v1::TRANSPORT_AUTO);
  EXPECT_TRUE(spec->node_names().empty());
  EXPECT_EQ(spec->timeout_ms(), 0);
}

TEST(BuildSpecTest, EveryFlagLandsInItsField) {
  RunTestFlags flags;
  flags.collective = "alltoall";
  flags.min_bytes = "8";
  flags.max_bytes = "1G";
  flags.step_factor = 2;
  flags.iterations = 5;
  flags.warmup_iterations = 0;
  flags.check_iterations = 0;
  flags.data_type = "bf16";
  flags.reduce_op = "max";
  flags.root = 3;
  flags.nodes = "a,b,,c";
  flags.workers_per_node = 4;
  flags.transport = "nccl";
  flags.timeout = "5m";
  flags.launch_timeout = "30";
  flags.init_timeout = "500ms";
  flags.step_timeout = "1m";
  flags.min_busbw_gbps = 42.5;
  flags.nccl_env = {"NCCL_ALGO=Ring", "NCCL_PROTO=Simple=x"};
  flags.cuda_graph = 10;
  auto spec = BuildSpec(flags);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->collective(), v1::COLLECTIVE_ALL_TO_ALL);
  EXPECT_EQ(spec->data_type(), v1::DATA_TYPE_BFLOAT16);
  EXPECT_EQ(spec->reduce_op(), v1::REDUCE_OP_MAX);
  EXPECT_EQ(spec->min_bytes(), 8);
  EXPECT_EQ(spec->max_bytes(), int64_t{1} << 30);
  EXPECT_EQ(spec->step_factor(), 2);
  EXPECT_EQ(spec->iterations(), 5);
  EXPECT_EQ(spec->warmup_iterations(), 0);
  EXPECT_EQ(spec->check_iterations(), 0);
  EXPECT_EQ(spec->root_rank(), 3);
  EXPECT_THAT(spec->node_names(), ElementsAre("a", "b", "c"));
  EXPECT_EQ(spec->workers_per_node(), 4);
  EXPECT_EQ(spec->transport(), v1::TRANSPORT_NCCL);
  EXPECT_EQ(spec->timeout_ms(), 300'000);
  EXPECT_EQ(spec->launch_timeout_ms(), 30'000);
  EXPECT_EQ(spec->init_timeout_ms(), 500);
  EXPECT_EQ(spec->step_timeout_ms(), 60'000);
  EXPECT_DOUBLE_EQ(spec->min_busbw_gbps(), 42.5);
  EXPECT_THAT(spec->nccl_env(),
              UnorderedElementsAre(Pair("NCCL_ALGO", "Ring"), Pair("NCCL_PROTO", "Simple=x")));
  EXPECT_EQ(spec->cuda_graph_launches(), 10);
}

TEST(BuildSpecTest, OneCollectiveLeavesTheListEmpty) {
  RunTestFlags flags;
  flags.collective = "broadcast";
  auto spec = BuildSpec(flags);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->collective(), v1::COLLECTIVE_BROADCAST);
  EXPECT_TRUE(spec->collectives().empty());
  EXPECT_FALSE(spec->has_average());  // -a not given: the coordinator's default (1)
  EXPECT_FALSE(spec->per_iter_timing());
}

TEST(BuildSpecTest, CollectiveListAndAll) {
  RunTestFlags flags;
  flags.collective = "all_reduce,broadcast";
  auto spec = BuildSpec(flags);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->collective(), v1::COLLECTIVE_ALL_REDUCE);
  EXPECT_THAT(spec->collectives(),
              ElementsAre(v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_BROADCAST));

  flags.collective = "all";
  spec = BuildSpec(flags);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(
      spec->collectives(),
      ElementsAre(v1::COLLECTIVE_ALL_REDUCE, v1::COLLECTIVE_ALL_GATHER,
                  v1::COLLECTIVE_REDUCE_SCATTER, v1::COLLECTIVE_BROADCAST, v1::COLLECTIVE_REDUCE,
                  v1::COLLECTIVE_ALL_TO_ALL, v1::COLLECTIVE_SEND_RECV));
}

TEST(BuildSpecTest, NcclTestsPerIterAverageAndTimeoutFlags) {
  RunTestFlags flags;
  flags.per_iter_timing = 1;
  flags.average = 3;
  flags.average_given = true;
  flags.timeout_seconds = 45;
  auto spec = BuildSpec(flags);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->per_iter_timing());
  ASSERT_TRUE(spec->has_average());
  EXPECT_EQ(spec->average(), 3);
  EXPECT_EQ(spec->step_timeout_ms(), 45'000);  // -T: the deadline of a stuck step
  flags.average = 0;
  spec = BuildSpec(flags);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->average(), 0);
}

struct BadFlags {
  std::string name;
  void (*edit)(RunTestFlags&);
  std::string message;
};

class BuildSpecRejectsTest : public ::testing::TestWithParam<BadFlags> {};

TEST_P(BuildSpecRejectsTest, WithAnInvalidArgumentNamingTheFlag) {
  RunTestFlags flags;
  GetParam().edit(flags);
  auto spec = BuildSpec(flags);
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(spec.status().message()), ::testing::StartsWith(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, BuildSpecRejectsTest,
    ::testing::Values(
        BadFlags{"Collective", [](RunTestFlags& f) { f.collective = "all_party"; },
                 "--collective: unknown collective 'all_party'"},
        BadFlags{"DataType", [](RunTestFlags& f) { f.data_type = "float128"; },
                 "-d/--datatype: unknown data type"},
        BadFlags{"ReduceOp", [](RunTestFlags& f) { f.reduce_op = "xor"; },
                 "-o/--op: unknown reduction op"},
        BadFlags{"NegativeSize", [](RunTestFlags& f) { f.min_bytes = "-8"; }, "-b/--minbytes"},
        BadFlags{"MaxBelowMin",
                 [](RunTestFlags& f) {
                   f.min_bytes = "1M";
                   f.max_bytes = "8";
                 },
                 "-e/--maxbytes: 8 is smaller than -b/--minbytes 1M"},
        BadFlags{"StepBytes", [](RunTestFlags& f) { f.step_bytes = "lots"; }, "-i/--stepbytes"},
        BadFlags{"StepFactor", [](RunTestFlags& f) { f.step_factor = -1; }, "-f/--stepfactor"},
        BadFlags{"Iterations", [](RunTestFlags& f) { f.iterations = 0; }, "-n/--iters"},
        BadFlags{"Warmup", [](RunTestFlags& f) { f.warmup_iterations = -1; }, "-w/--warmup_iters"},
        BadFlags{"Check", [](RunTestFlags& f) { f.check_iterations = -1; }, "-c/--check"},
        BadFlags{"Root", [](RunTestFlags& f) { f.root = -1; }, "-r/--root"},
        BadFlags{"WorkersPerNode", [](RunTestFlags& f) { f.workers_per_node = -1; },
                 "--workers-per-node"},
        BadFlags{"MinBusbw", [](RunTestFlags& f) { f.min_busbw_gbps = -1; }, "--min-busbw"},
        BadFlags{"Timeout", [](RunTestFlags& f) { f.timeout = "soon"; }, "--timeout"},
        BadFlags{"LaunchTimeout", [](RunTestFlags& f) { f.launch_timeout = "0"; },
                 "--launch-timeout"},
        BadFlags{"InitTimeout", [](RunTestFlags& f) { f.init_timeout = "-1"; }, "--init-timeout"},
        BadFlags{"StepTimeout", [](RunTestFlags& f) { f.step_timeout = "x"; }, "--step-timeout"},
        BadFlags{"NcclEnvWithoutValue", [](RunTestFlags& f) { f.nccl_env = {"NCCL_ALGO"}; },
                 "--nccl-env: 'NCCL_ALGO' is not KEY=VALUE"},
        BadFlags{"NcclEnvWithoutKey", [](RunTestFlags& f) { f.nccl_env = {"=Ring"}; },
                 "--nccl-env: '=Ring' is not KEY=VALUE"},
        BadFlags{"CudaGraph", [](RunTestFlags& f) { f.cuda_graph = -1; }, "-G/--cudagraph"},
        BadFlags{"CollectiveInAList", [](RunTestFlags& f) { f.collective = "all_reduce,bcast2"; },
                 "--collective: unknown collective 'bcast2'"},
        BadFlags{"CollectiveTwice",
                 [](RunTestFlags& f) { f.collective = "all_reduce,broadcast,all_reduce"; },
                 "--collective: all_reduce is listed twice"},
        BadFlags{"EmptyCollectiveInAList", [](RunTestFlags& f) { f.collective = "all_reduce,"; },
                 "--collective"},
        BadFlags{"PerIterTiming", [](RunTestFlags& f) { f.per_iter_timing = 2; },
                 "-I/--per_iter_timing: must be 0 or 1"},
        BadFlags{"PerIterTimingWithGraph",
                 [](RunTestFlags& f) {
                   f.per_iter_timing = 1;
                   f.cuda_graph = 2;
                 },
                 "-I/--per_iter_timing: cannot time"},
        BadFlags{"Average",
                 [](RunTestFlags& f) {
                   f.average = 4;
                   f.average_given = true;
                 },
                 "-a/--average"},
        BadFlags{"TimeoutSecondsNegative", [](RunTestFlags& f) { f.timeout_seconds = -1; },
                 "-T/--timeout_s"},
        BadFlags{"TimeoutSecondsAndStepTimeout",
                 [](RunTestFlags& f) {
                   f.timeout_seconds = 5;
                   f.step_timeout = "10s";
                 },
                 "-T/--timeout_s: sets the step deadline"}),
    [](const ::testing::TestParamInfo<BadFlags>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace eb::ebctl
