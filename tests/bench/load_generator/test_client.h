#pragma once

// One RunTest call on the Control service, as `ebctl run-test` makes it,
// recording when the test was accepted, when every rank had joined (the
// RUNNING state) and when the verdict came.

#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/rpc/reactor_order.h"
#include "ebnccl/v1/control.grpc.pb.h"

namespace eb::bench {

struct TestOutcome {
  std::string test_id;
  absl::Duration accepted = absl::InfiniteDuration();
  absl::Duration joined = absl::InfiniteDuration();   // RunTest -> RUNNING
  absl::Duration verdict = absl::InfiniteDuration();  // RunTest -> finished
  ebnccl::v1::TestState state = ebnccl::v1::TEST_STATE_UNSPECIFIED;
  std::set<std::string> failed_nodes;  // node_name of every failure
  std::string first_failure;
  ebnccl::v1::FailureKind first_failure_kind = ebnccl::v1::FAILURE_KIND_UNSPECIFIED;
  std::string error;  // the call's status when it failed
};

class TestClient final : public grpc::ClientReadReactor<ebnccl::v1::RunTestEvent> {
 public:
  // Starts the call at once.
  TestClient(ebnccl::v1::Control::Stub& stub, const ebnccl::v1::TestSpec& spec);
  // Blocks until the call is over.
  TestOutcome Wait();
  // The test's id once the coordinator accepted it ("" when the call ended
  // first or `timeout` passed).
  std::string AwaitTestId(absl::Duration timeout);

  void OnReadDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  const absl::Time start_;
  grpc::ClientContext context_;
  ebnccl::v1::RunTestRequest request_;
  ebnccl::v1::RunTestEvent event_;
  absl::Mutex mu_;
  TestOutcome outcome_ ABSL_GUARDED_BY(mu_);
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  common::ReactorOrder order_;
};

}  // namespace eb::bench
