#pragma once

// The inputs of a fleet validation (issue 11): what each node is, as its
// agent reports it, which suites run, how pair tests are scheduled and how
// far below its baseline a result may fall. Plain data, no I/O: the runner
// fills these from the node registry and `ebctl validate`'s flags.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/topology/fabric.h"
#include "coordinator/validation/baselines.h"
#include "coordinator/validation/graded_size.h"
#include "ebnccl/v1/common.pb.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::validation {

// One RDMA port configured for NCCL (common.proto HcaInfo).
struct Hca {
  std::string name;        // "mlx5_0"
  int port = 1;            // port number
  std::string state;       // sysfs text, "ACTIVE" when usable
  std::string link_layer;  // "InfiniBand" or "Ethernet" (RoCE)
  int64_t rate_gbps = 0;   // Gbit/s, e.g. 400
};

// One node of the fleet.
struct Node {
  std::string name;  // unique; as `ebctl nodes` shows it
  // What its agent reported. Preflight compares it as it is
  // (inventory_facts.h); the fields below are read from it
  // (NodeFromInventory) for the grader and the planner.
  ebnccl::v1::NodeInventory inventory;
  std::string gpu_model;  // "NVIDIA H200" (the first GPU's); "" on a CPU-only node
  int gpu_count = 0;      // GPUs (= ranks, = rails of a pair test)
  std::vector<Hca> hcas;  // in any order
  // Switch (leaf) the node hangs off, when topology is known; "" = unknown.
  // Round 1 then pairs nodes across leaves, so that it also crosses uplinks.
  std::string leaf;
  // False when the agent is lost at the start: the node is `untestable`.
  bool reachable = true;
};

// A reachable node named `name` with `inventory` and the fields read from it.
Node NodeFromInventory(std::string name, ebnccl::v1::NodeInventory inventory);

// The suites of `ebctl validate --suite`. Preflight needs no data plane;
// intra tests each node alone; pairs tests 2 nodes at a time with
// NCCL_ALGO=Ring; fleet is one test over every healthy node (off by default).
// Defined as their wire values, as plan.h's enums are.
enum class Suite {
  kPreflight = ebnccl::v1::SUITE_PREFLIGHT,
  kIntra = ebnccl::v1::SUITE_INTRA,
  kPairs = ebnccl::v1::SUITE_PAIRS,
  kFleet = ebnccl::v1::SUITE_FLEET,
};
static_assert(static_cast<int>(Suite::kFleet) == ebnccl::v1::Suite_MAX);
constexpr ebnccl::v1::Suite ToWire(Suite suite) { return static_cast<ebnccl::v1::Suite>(suite); }

// `--strategy`: adaptive localization (the default) or SuperBench's
// round-robin tournament of every pair (N-1 rounds), for comparison.
enum class Strategy { kAdaptive, kAllPairs };

struct Options {
  std::vector<Suite> suites = {Suite::kPreflight, Suite::kIntra, Suite::kPairs};
  Strategy strategy = Strategy::kAdaptive;
  // A result is slow below (1 - tolerance) x its baseline; (0, 0.5].
  double tolerance = 0.10;
  // Expected figures by hardware (deploy/config/baselines.toml); may be
  // empty: verdicts then rest on the fleet's own median.
  BaselineTable baselines;
  // The collective of intra, pair and fleet tests.
  ebnccl::v1::Collective collective = ebnccl::v1::COLLECTIVE_ALL_REDUCE;
  // Pair tests are split into one sub-communicator per local rank (one
  // result per rail, nccl-tests' NCCL_TESTS_SPLIT="MOD <gpus>").
  bool split_rails = true;
  // Adaptive strategy: pair rounds after which it stops and reports what
  // it has (verdicts say "suspect" where evidence is short). >= 1.
  int max_pair_rounds = 8;
  // Intra tests of one node at most (the first plus re-tests). >= 1.
  int max_intra_tests = 3;
  // At which size each test is graded and how much it moves (graded_size.h).
  SizePolicy sizes;
  // After the pairs, repeat pair tests of the healthy nodes (partners
  // rotating) while the runner says there is time (Validation::KeepSoaking).
  bool soak = false;
  // The tests run Gloo (CPU/TCP): pair tests are judged by the baselines'
  // gloo_pairs figures, by the speed of the nodes' bootstrap interfaces
  // (BootstrapLinkMbps); the NCCL figures (intra, pairs) are for NCCL only.
  bool gloo = false;
  // The fabric of the coordinator's [topology] file (issue 31); null: none.
  // With it (and split rails), a slow pair of healthy nodes is followed up
  // by link rounds (link_rounds.h) and the report names links.
  std::shared_ptr<const topology::Fabric> fabric;
  // Link rounds after the pair rounds, at most. Group testing halves the
  // candidates of a slow pair each round or better (a d-mod-k path has at
  // most 4 uplinks and 2 cables: 3 rounds isolate one of 6, a 4th confirms).
  int max_link_rounds = 4;
};

bool HasSuite(const Options& options, Suite suite);

std::string SuiteName(Suite suite);
const char* StrategyName(Strategy strategy);
// "preflight,intra,pairs" -> suites; INVALID_ARGUMENT names the bad one.
absl::StatusOr<std::vector<Suite>> ParseSuites(const std::string& text);
absl::StatusOr<Strategy> ParseStrategy(const std::string& text);

// Input errors name the field: no nodes, an empty or duplicate node name,
// a negative count or size, tolerance outside (0, 0.5], no suite, limits < 1.
absl::Status ValidateInputs(const std::vector<Node>& nodes, const Options& options);

// The speed the kernel reports for the node's bootstrap interface (the one
// Gloo's traffic takes), Mb/s; 0 when the agent names none or reports no
// speed. A key for a site's figure, not a figure: a veth says 10000 Mb/s
// while a tc shaper holds it to 100.
int64_t BootstrapLinkMbps(const Node& node);

// HCAs whose state is ACTIVE (sysfs may write "4: ACTIVE").
int ActiveHcaCount(const Node& node);
// The most common rate of the node's active HCAs (ties: the lower); 0 if none.
int64_t ActiveHcaRate(const Node& node);

}  // namespace eb::validation
