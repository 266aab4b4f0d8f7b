#include "tests/bench/load_generator/compromised_fleet.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace eb::bench {
namespace v1 = ebnccl::v1;

CompromisedFleet::CompromisedFleet(std::vector<std::string> names, int first_index,
                                   const CompromisedBehaviour& behaviour,
                                   const AgentChannelFactory& channel)
    : names_(std::move(names)) {
  for (size_t i = 0; i < names_.size(); ++i) {
    const int index = first_index + static_cast<int>(i);
    // The silent sessions on a connection of their own (gRPC's per-connection
    // stream cap is the coordinator's; the rendezvous calls keep theirs).
    agents_.push_back(std::make_unique<CompromisedAgent>(
        names_[i], index, channel(names_[i], index), channel(names_[i], index), behaviour));
  }
}

absl::Status CompromisedFleet::Start(v1::Control::Stub& control, v1::TestSpec side_spec,
                                     absl::Duration warm_up) {
  for (auto& agent : agents_) {
    if (!agent->Register(absl::Seconds(60))) {
      return absl::DeadlineExceededError(
          absl::StrCat("compromised agent ", agent->name(), " did not register within 60 s"));
    }
  }
  side_spec.clear_node_names();
  for (const std::string& name : names_) side_spec.add_node_names(name);
  side_test_ = std::make_unique<TestClient>(control, side_spec);
  for (auto& agent : agents_) {
    if (!agent->AwaitLaunch(absl::Seconds(60))) {
      return absl::DeadlineExceededError(
          absl::StrCat("compromised agent ", agent->name(), " got no launch of its side test"));
    }
  }
  for (auto& agent : agents_) agent->StartAttack();
  absl::SleepFor(warm_up);
  return absl::OkStatus();
}

void CompromisedFleet::Target(const std::string& test_id, int world_size) {
  for (auto& agent : agents_) agent->SetTarget(test_id, world_size);
}

nlohmann::json CompromisedFleet::Finish() {
  nlohmann::json out;
  out["agents"] = names_;
  bool all_cut_off = true;
  for (auto& agent : agents_) {
    const grpc::Status end = agent->OverTheEdge(absl::Seconds(30));
    const bool cut_off = end.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
                         end.error_message().find("session budget") != std::string::npos;
    all_cut_off = all_cut_off && cut_off;
    out["session_end"][agent->name()] = {{"code", static_cast<int>(end.error_code())},
                                         {"message", end.error_message().substr(0, 400)},
                                         {"cut_off", cut_off}};
  }
  out["all_cut_off"] = all_cut_off;
  bool side_ok = false;
  if (side_test_ != nullptr) {
    const TestOutcome side = side_test_->Wait();
    const std::set<std::string> expected(names_.begin(), names_.end());
    side_ok = side.state == v1::TEST_STATE_FAILED && side.failed_nodes == expected;
    out["side_test"] = {{"test_id", side.test_id},
                        {"state", v1::TestState_Name(side.state)},
                        {"failed_nodes", side.failed_nodes},
                        {"first_failure", side.first_failure.substr(0, 400)},
                        {"first_failure_bytes", side.first_failure.size()},
                        {"error", side.error.substr(0, 400)},
                        {"fails_naming_exactly_the_compromised", side_ok}};
  }
  for (auto& agent : agents_) agent->Stop();
  for (auto& agent : agents_) out["agent"].push_back(agent->Report());
  cut_off_as_documented_ = all_cut_off && side_ok;
  out["cut_off_as_documented"] = cut_off_as_documented_;
  return out;
}

}  // namespace eb::bench
