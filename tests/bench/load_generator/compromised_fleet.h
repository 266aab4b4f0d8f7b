#pragma once

// The compromised nodes of a run (--compromised-agents K): K extra agents,
// registered after the honest ones, that first start a test of their own
// (the side test, whose ranks never join: it keeps them members of a
// running test) and then flood the coordinator at the edge of its limits
// (compromised_agent.h) while the honest test runs. At the end each goes
// over its budget, and the run reports whether the coordinator cut it off
// as docs/SECURITY.md says: its session ended RESOURCE_EXHAUSTED, its side
// test failed naming it.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ebnccl/v1/control.grpc.pb.h"
#include "grpcpp/channel.h"
#include "nlohmann/json.hpp"
#include "tests/bench/load_generator/compromised_agent.h"
#include "tests/bench/load_generator/test_client.h"

namespace eb::bench {

// A channel for the agent `name` with source address `index`.
using AgentChannelFactory =
    std::function<std::shared_ptr<grpc::Channel>(const std::string& name, int index)>;

class CompromisedFleet {
 public:
  // `names` and `indexes` are the compromised agents'; `side_spec` the test
  // they run among themselves (its node_names are filled here).
  CompromisedFleet(std::vector<std::string> names, int first_index,
                   const CompromisedBehaviour& behaviour, const AgentChannelFactory& channel);

  // Registers them, runs their side test up to its rendezvous, starts the
  // flood and lets it run `warm_up` (the budgets' bursts are spent first).
  absl::Status Start(ebnccl::v1::Control::Stub& control, ebnccl::v1::TestSpec side_spec,
                     absl::Duration warm_up);
  // The honest test they aim their foreign-rank events at.
  void Target(const std::string& test_id, int world_size);
  // Over the edge, then the side test's verdict and everything counted.
  nlohmann::json Finish();
  // Whether Finish saw the coordinator cut every one off as documented.
  bool cut_off_as_documented() const { return cut_off_as_documented_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<CompromisedAgent>> agents_;
  std::unique_ptr<TestClient> side_test_;
  bool cut_off_as_documented_ = false;
};

}  // namespace eb::bench
