// The coordinator's bounds on what agents and clients send
// (docs/SECURITY.md, "Limits"), each at its edge, and the findings of
// docs/SECURITY_FINDINGS.md (../shared/docs) they close: case 6 (2^31 worker
// slots crashed the placement), case 7 (log reads in pages), case 10 (lost
// nodes never forgotten), case 11 (an unbounded "every idle node"), cases 13
// and 14 (huge names, rendezvous values, and errors that echo them).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/spec/limits.h"
#include "common/spec/rendezvous_bounds.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/rank_assigner.h"
#include "coordinator/core/collective_tests/rendezvous_kv.h"
#include "coordinator/core/collective_tests/spec_validator.h"
#include "coordinator/core/nodes/log_requests.h"
#include "coordinator/core/nodes/node_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_agent_channel.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"
#include "tests/testutil/thread_cpu_time.h"
#include "tests/unit/coordinator/coordinator_test_util.h"

namespace eb::coordinator {
namespace {

namespace v1 = ebnccl::v1;
using eb::testing::FakeAgentChannel;
using test::IsOk;
using test::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

class RegistryLimitsTest : public ::testing::Test {
 protected:
  RegistryLimitsTest() {
    config_.heartbeat_period = absl::Seconds(2);
    config_.heartbeat_miss_limit = 3;
    config_.lost_node_retention = absl::Hours(1);
    registry_ = std::make_unique<NodeRegistry>(clock_, executor_, config_, nullptr);
  }

  static v1::RegisterAgent Request(const std::string& name, int slots = 4) {
    v1::RegisterAgent request;
    request.set_node_name(name);
    request.mutable_inventory()->set_worker_slots(slots);
    return request;
  }

  absl::Status Register(uint64_t session, const std::string& name, int slots = 4,
                        const std::string& host = "") {
    const std::string peer = absl::StrCat(
        "ipv4:", host.empty() ? absl::StrCat("10.1.", session / 250, ".", session % 250) : host,
        ":5000");
    return registry_->Register(session, Request(name, slots),
                               std::make_shared<FakeAgentChannel>(peer));
  }

  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  CoordinatorConfig config_;
  std::unique_ptr<NodeRegistry> registry_;
};

// Case 6: a fake agent registered with worker_slots = 2147483647.
TEST_F(RegistryLimitsTest, Case6WorkerSlotsAreBoundedAtRegistration) {
  EXPECT_THAT(Register(1, "at-edge", spec::kMaxWorkerSlots), IsOk());
  EXPECT_THAT(Register(2, "over", spec::kMaxWorkerSlots + 1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("inventory.worker_slots: at most 1024, got 1025")));
  EXPECT_THAT(Register(3, "huge", 2147483647),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2147483647")));
  EXPECT_EQ(registry_->Find("huge"), nullptr);
}

// Case 6, second line: the placement checks the world size in 64 bits
// before it allocates anything.
TEST(RankAssignerLimitsTest, Case6TooManyRanksIsAnErrorNotBadAlloc) {
  std::vector<PlacementNode> nodes = {{"a", 2147483647}, {"b", 2147483647}};
  EXPECT_THAT(AssignRanks(nodes, 0, false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(StartsWith("workers_per_node: "), HasSubstr("4294967294 ranks"))));
  // At the edge: exactly kMaxRanksPerTest ranks.
  nodes = {{"a", spec::kMaxRanksPerTest / 2}, {"b", spec::kMaxRanksPerTest / 2}};
  auto ranks = AssignRanks(nodes, 0, false);
  ASSERT_THAT(ranks.status(), IsOk());
  EXPECT_THAT(*ranks, SizeIs(spec::kMaxRanksPerTest));
  nodes.push_back({"c", 1});
  EXPECT_THAT(AssignRanks(nodes, 1, false), IsOk());
}

// Cases 13 and 14: node names are identifiers of bounded length, and the
// error quotes at most 64 characters of what was refused.
TEST_F(RegistryLimitsTest, Case13And14NodeNamesAreBoundedAndNotEchoed) {
  EXPECT_THAT(Register(1, std::string(spec::kMaxNodeNameLength, 'n')), IsOk());
  const std::string huge(1 << 20, 'x');
  const absl::Status status = Register(2, huge);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               StartsWith("node_name: 1048576 characters, at most 253")));
  EXPECT_LT(status.message().size(), 200u);
  for (const std::string& bad : {std::string("../etc"), std::string("a b"), std::string("-x"),
                                 std::string("a\nb"), std::string("a/b")}) {
    EXPECT_THAT(Register(3, bad),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("node_name: ")))
        << bad;
  }
}

TEST_F(RegistryLimitsTest, AnInventoryOverTheLimitIsRefused) {
  v1::RegisterAgent request = Request("big");
  request.mutable_inventory()->set_hostname(std::string(kMaxInventoryBytes, 'h'));
  EXPECT_THAT(registry_->Register(1, request, std::make_shared<FakeAgentChannel>()),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("inventory: ")));
}

TEST_F(RegistryLimitsTest, OneHostRegistersAtMostKMaxAgentsPerHost) {
  for (int i = 0; i < kMaxAgentsPerHost; ++i) {
    ASSERT_THAT(Register(static_cast<uint64_t>(i + 1), absl::StrCat("n", i), 1, "10.9.9.9"),
                IsOk());
  }
  EXPECT_THAT(Register(1000, "one-more", 1, "10.9.9.9"),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("64 agents are already registered from ipv4:10.9.9.9")));
  EXPECT_THAT(Register(1001, "other-host", 1, "10.9.9.10"), IsOk());
}

// Case 10: lost nodes were never forgotten (10,000 fake agents left 10,000
// LOST rows). They are now, after config.lost_node_retention.
TEST_F(RegistryLimitsTest, Case10LostNodesAreForgottenAfterTheRetention) {
  registry_->Start();
  ASSERT_THAT(Register(1, "gone"), IsOk());
  registry_->SessionClosed(1);
  ASSERT_NE(registry_->Find("gone"), nullptr);
  EXPECT_EQ(registry_->Find("gone")->state, v1::NODE_STATE_LOST);
  executor_.AdvanceTime(absl::Hours(1) - absl::Seconds(2));
  EXPECT_NE(registry_->Find("gone"), nullptr);  // just before the edge
  executor_.AdvanceTime(absl::Seconds(2));
  EXPECT_EQ(registry_->Find("gone"), nullptr);
  EXPECT_THAT(registry_->All(), SizeIs(0));
  // It may come back under its name.
  EXPECT_THAT(Register(2, "gone"), IsOk());
}

// Case 10: the set of known nodes is bounded; the longest-lost one makes
// room, and without a lost one the registration is refused.
TEST_F(RegistryLimitsTest, Case10KnownNodesAreBounded) {
  for (int i = 0; i < kMaxKnownNodes; ++i) {
    ASSERT_THAT(Register(static_cast<uint64_t>(i + 1), absl::StrCat("n", i)), IsOk());
  }
  const uint64_t next = kMaxKnownNodes + 1;
  EXPECT_THAT(Register(next, "full"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("at most 20000")));
  registry_->SessionClosed(5);  // n4
  clock_.Advance(absl::Seconds(1));
  registry_->SessionClosed(6);  // n5
  EXPECT_THAT(Register(next, "full"), IsOk());
  EXPECT_EQ(registry_->Find("n4"), nullptr);  // the longest lost
  EXPECT_NE(registry_->Find("n5"), nullptr);
}

// Case 13: RendezvousSet accepted 60 values of 3.9 MB each.
class RendezvousLimitsTest : public ::testing::Test {
 protected:
  RendezvousLimitsTest() { kv_.Open("t-1", spec::kMaxRanksPerTest); }
  eb::testing::FakeClock clock_;
  eb::testing::ManualExecutor executor_{clock_};
  RendezvousKv kv_{executor_};
};

TEST_F(RendezvousLimitsTest, Case13ValuesAreBounded) {
  EXPECT_THAT(kv_.Set("t-1", "k", std::string(spec::kMaxRendezvousValueBytes, 'v')), IsOk());
  EXPECT_THAT(kv_.Set("t-1", "k2", std::string(spec::kMaxRendezvousValueBytes + 1, 'v')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("value: 1048577 bytes, at most 1048576")));
  EXPECT_THAT(kv_.Set("t-1", "k3", std::string(3'900'000, 'v')),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("value: ")));
}

TEST_F(RendezvousLimitsTest, Case13KeysAreBounded) {
  EXPECT_THAT(kv_.Set("t-1", std::string(spec::kMaxRendezvousKeyLength, 'k'), "v"), IsOk());
  EXPECT_THAT(kv_.Set("t-1", std::string(spec::kMaxRendezvousKeyLength + 1, 'k'), "v"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("key: 257 characters")));
  EXPECT_THAT(kv_.Set("t-1", "a key", "v"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("key: ")));
}

TEST_F(RendezvousLimitsTest, Case13BytesPerTestAreBounded) {
  // 255 values of 1 MiB fit beside their keys; the 256th does not.
  const int fit =
      static_cast<int>(spec::kMaxRendezvousBytesPerTest / spec::kMaxRendezvousValueBytes) - 1;
  const std::string value(spec::kMaxRendezvousValueBytes, 'v');
  for (int i = 0; i < fit; ++i) ASSERT_THAT(kv_.Set("t-1", absl::StrCat("k", i), value), IsOk());
  EXPECT_THAT(kv_.Set("t-1", "last", value), StatusIs(absl::StatusCode::kResourceExhausted,
                                                      HasSubstr("bytes of rendezvous data")));
  // Replacing a value does not count it twice.
  EXPECT_THAT(kv_.Set("t-1", "k0", value), IsOk());
  // Another test is not affected.
  kv_.Open("t-2", spec::kMaxRanksPerTest);
  EXPECT_THAT(kv_.Set("t-2", "k", value), IsOk());
}

TEST_F(RendezvousLimitsTest, Case13KeysPerTestAreBounded) {
  for (int i = 0; i < spec::kMaxRendezvousKeysPerTest; ++i) {
    ASSERT_THAT(kv_.Set("t-1", absl::StrCat("k", i), "v"), IsOk());
  }
  EXPECT_THAT(kv_.Set("t-1", "one-more", "v"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("keys, at most")));
  EXPECT_THAT(kv_.Set("t-1", "k0", "replaced"), IsOk());
}

TEST_F(RendezvousLimitsTest, WaitsAreBounded) {
  std::optional<absl::StatusOr<std::vector<std::string>>> result;
  kv_.Wait("t-1", {}, absl::Seconds(1), [&](auto r) { result = std::move(r); });
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(result->status(),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("keys: 0")));
  result.reset();
  kv_.Wait("t-1", std::vector<std::string>(spec::kMaxRendezvousWaitKeys + 1, "k"), absl::Seconds(1),
           [&](auto r) { result = std::move(r); });
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->status().code(), absl::StatusCode::kInvalidArgument);
  // A huge unknown test id is not echoed back whole.
  result.reset();
  kv_.Wait(std::string(100'000, 't'), {"k"}, absl::Seconds(1),
           [&](auto r) { result = std::move(r); });
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->status().code(), absl::StatusCode::kNotFound);
  EXPECT_LT(result->status().message().size(), 200u);
}

// P2-4f2: a member of a 2-rank test sent waits of 32,768 absent keys; each
// cost ~1.4 s of the event loop (keys de-duplicated pairwise), 40 of them
// froze the coordinator 84 s. A wait now asks at most what the test's ranks
// need, and pending waits are bounded per rank.
TEST_F(RendezvousLimitsTest, P2_4f2_AWaitAsksOnlyWhatItsTestsRanksNeed) {
  kv_.Open("small", 2);
  std::optional<absl::StatusOr<std::vector<std::string>>> result;
  std::vector<std::string> keys;
  for (int i = 0; i < spec::RendezvousBoundsFor(2).wait_keys + 1; ++i)
    keys.push_back(absl::StrCat("k", i));
  kv_.Wait("small", keys, absl::Seconds(1), [&](auto r) { result = std::move(r); });
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(result->status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("keys: 69 keys; a wait of test small asks "
                                                   "at most 68 (twice its ranks, and 64)")));
  keys.pop_back();
  int answered = 0;
  for (int i = 0; i < spec::RendezvousBoundsFor(2).waiters; ++i) {
    kv_.Wait("small", keys, absl::Seconds(1), [&](auto) { ++answered; });
  }
  EXPECT_EQ(answered, 0);  // all pending
  result.reset();
  kv_.Wait("small", {"k0"}, absl::Seconds(1), [&](auto r) { result = std::move(r); });
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(result->status(), StatusIs(absl::StatusCode::kResourceExhausted,
                                         HasSubstr("at most 72 (four per rank")));
  // The others' tests are not affected; the budgets follow each test's size.
  EXPECT_EQ(spec::RendezvousBoundsFor(4096).wait_keys, 8256);
  EXPECT_EQ(spec::RendezvousBoundsFor(32768).wait_keys, spec::kMaxRendezvousWaitKeys);
}

// The work of one wait grows with its keys, not their square: distinct
// absent keys are taken in one pass, up to 32,768 (the largest wait a
// 32,768-rank test may ask). Pairwise, 32,768 keys cost ~1.4 s of the event
// loop at -O2. The bound is on growth, not on milliseconds, so it holds
// whatever the build (ASan at -O0 takes ~0.8 s for the one pass): sixteen
// times the keys cost ~22 times the CPU in one pass (caches, the map of
// waits), 190 to 290 times with the pairwise count put back.
TEST_F(RendezvousLimitsTest, P2_4f2_DistinctAbsentKeysAreCountedInOnePass) {
  const auto wait_cost = [](int key_count) {
    eb::testing::FakeClock clock;
    eb::testing::ManualExecutor executor{clock};
    RendezvousKv kv{executor};
    kv.Open("t", spec::kMaxRanksPerTest);
    std::vector<std::string> keys;
    for (int i = 0; i < key_count; ++i) keys.push_back(absl::StrCat("absent", i));
    return eb::testing::CpuTimeOf(
        [&] { kv.Wait("t", std::move(keys), absl::Seconds(1), [](auto) {}); });
  };
  EXPECT_LT(eb::testing::CpuCostGrowth(wait_cost, spec::kMaxRendezvousWaitKeys / 16,
                                       spec::kMaxRendezvousWaitKeys),
            64.0);

  // And the largest wait counts each key once, a repeat included.
  std::vector<std::string> keys;
  for (int i = 0; i < spec::kMaxRendezvousWaitKeys; ++i) keys.push_back(absl::StrCat("absent", i));
  keys.push_back("absent0");  // a repeat is one key
  keys.erase(keys.begin() + 1);
  std::optional<absl::StatusOr<std::vector<std::string>>> result;
  kv_.Wait("t-1", keys, absl::Seconds(1), [&](auto r) { result = std::move(r); });
  EXPECT_FALSE(result.has_value());
  EXPECT_EQ(kv_.pending_waiters(), 1u);
  for (int i = 1; i < spec::kMaxRendezvousWaitKeys; ++i) {
    ASSERT_THAT(kv_.Set("t-1", absl::StrCat("absent", i), "v"), IsOk());
  }
  EXPECT_FALSE(result.has_value());  // "absent0" is still missing, once
  ASSERT_THAT(kv_.Set("t-1", "absent0", "v"), IsOk());
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->ok()) << result->status();
}

// Case 7: one GetLog answer is one page; more is read with offsets.
TEST(LogRequestLimitsTest, Case7AFetchIsAtMostOnePage) {
  v1::GetLogRequest request;
  request.set_test_id("t-1");
  request.set_rank(0);
  request.set_max_bytes(6'000'000);
  absl::StatusOr<v1::FetchLog> fetch = MakeFetchLog(request, 9);
  ASSERT_THAT(fetch.status(), IsOk());
  EXPECT_EQ(fetch->max_bytes(), spec::kMaxLogPageBytes);
  EXPECT_EQ(fetch->request_id(), 9u);
  EXPECT_FALSE(fetch->has_offset());
  request.set_max_bytes(0);
  EXPECT_EQ(MakeFetchLog(request, 1)->max_bytes(), spec::kMaxLogPageBytes);
  request.set_max_bytes(100);
  request.set_offset(5'000'000);
  fetch = MakeFetchLog(request, 1);
  EXPECT_EQ(fetch->max_bytes(), 100);
  EXPECT_EQ(fetch->offset(), 5'000'000);
  request.set_offset(-1);
  EXPECT_THAT(MakeFetchLog(request, 1).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("offset: ")));
  request.clear_offset();
  request.set_max_bytes(-1);
  EXPECT_THAT(MakeFetchLog(request, 1).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("max_bytes: ")));
  // Case 14: a 100 KB test id is refused without being echoed.
  request.set_max_bytes(0);
  request.set_test_id(std::string(100'000, 'a'));
  const absl::Status status = MakeFetchLog(request, 1).status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("test_id: 100000")));
  EXPECT_LT(status.message().size(), 200u);
}

TEST(LogRequestLimitsTest, PendingRequestsAreBounded) {
  eb::testing::FakeClock clock;
  eb::testing::ManualExecutor executor{clock};
  LogRequests requests(executor, absl::Seconds(10));
  for (size_t i = 0; i < LogRequests::kMaxPending; ++i) {
    ASSERT_NE(requests.Add("node-a", [](absl::StatusOr<v1::LogContent>) {}), 0u);
  }
  std::optional<absl::Status> refused;
  EXPECT_EQ(requests.Add("node-a", [&](absl::StatusOr<v1::LogContent> c) { refused = c.status(); }),
            0u);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code(), absl::StatusCode::kResourceExhausted);
}

// P2-4e: a log request is answered only by the node it was sent to; another
// node's answer (request ids are sequential, easy to guess) is refused,
// counted and audited at powers of two, and the real answer still lands.
TEST(LogRequestLimitsTest, P2_4e_OnlyTheNodeAskedMayAnswer) {
  eb::testing::FakeClock clock;
  eb::testing::ManualExecutor executor{clock};
  LogRequests requests(executor, absl::Seconds(10));
  std::vector<std::string> audited;
  requests.set_refusal_hook(
      [&](const std::string& sender, const std::string& asked, uint64_t refused) {
        audited.push_back(absl::StrCat(sender, "->", asked, "#", refused));
      });
  std::optional<absl::StatusOr<v1::LogContent>> answer;
  const uint64_t id =
      requests.Add("node-a", [&](absl::StatusOr<v1::LogContent> c) { answer = std::move(c); });
  ASSERT_NE(id, 0u);
  v1::LogContent forged;
  forged.set_request_id(id);
  forged.set_content("forged");
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(requests.Complete("node-evil", forged));
  EXPECT_FALSE(answer.has_value());
  EXPECT_EQ(requests.refused(), 5u);
  EXPECT_THAT(audited,
              ElementsAre("node-evil->node-a#1", "node-evil->node-a#2", "node-evil->node-a#4"));
  v1::LogContent real;
  real.set_request_id(id);
  real.set_content("real");
  EXPECT_TRUE(requests.Complete("node-a", real));
  ASSERT_TRUE(answer.has_value() && answer->ok());
  EXPECT_EQ((*answer)->content(), "real");
}

// Cases 11 and 13: a request names at most kMaxNodeNamesInRequest nodes,
// each an identifier.
TEST(SpecLimitsTest, Case11And13NodeListsAreBounded) {
  v1::TestSpec spec = test::SmallSweepSpec();
  for (int i = 0; i < spec::kMaxNodeNamesInRequest; ++i) spec.add_node_names(absl::StrCat("n", i));
  EXPECT_THAT(ValidateAndNormalize(spec, CoordinatorConfig{}).status(), IsOk());
  spec.add_node_names("one-more");
  EXPECT_THAT(ValidateAndNormalize(spec, CoordinatorConfig{}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("node_names: 4097 names, at most 4096")));
  spec = test::SmallSweepSpec();
  spec.add_node_names(std::string(1 << 20, 'x'));
  const absl::Status status = ValidateAndNormalize(spec, CoordinatorConfig{}).status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("node_names: ")));
  EXPECT_LT(status.message().size(), 200u);
}

}  // namespace
}  // namespace eb::coordinator
