#include "tests/bench/load_generator/test_client.h"

#include "absl/time/clock.h"

namespace eb::bench {
namespace v1 = ebnccl::v1;

TestClient::TestClient(v1::Control::Stub& stub, const v1::TestSpec& spec) : start_(absl::Now()) {
  *request_.mutable_spec() = spec;
  stub.async()->RunTest(&context_, &request_, this);
  StartRead(&event_);
  order_.Constructed();
  StartCall();
}

void TestClient::OnReadDone(bool ok) {
  auto reaction = order_.ReadDone();
  if (!ok) return;
  const absl::Duration now = absl::Now() - start_;
  {
    absl::MutexLock lock(&mu_);
    switch (event_.event_case()) {
      case v1::RunTestEvent::kAccepted:
        outcome_.accepted = now;
        outcome_.test_id = event_.accepted().test_id();
        break;
      case v1::RunTestEvent::kStateChanged:
        if (event_.state_changed() == v1::TEST_STATE_RUNNING) outcome_.joined = now;
        break;
      case v1::RunTestEvent::kFinished:
        outcome_.verdict = now;
        outcome_.state = event_.finished().state();
        for (const v1::Failure& failure : event_.finished().failures()) {
          if (!failure.node_name().empty()) outcome_.failed_nodes.insert(failure.node_name());
          if (outcome_.first_failure.empty()) {
            outcome_.first_failure = failure.message();
            outcome_.first_failure_kind = failure.kind();
          }
        }
        break;
      default:
        break;
    }
  }
  order_.BeforeStartRead();
  StartRead(&event_);
}

void TestClient::OnDone(const grpc::Status& status) {
  order_.Done();
  absl::MutexLock lock(&mu_);
  if (!status.ok()) outcome_.error = status.error_message();
  done_ = true;
}

TestOutcome TestClient::Wait() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&done_));
  return outcome_;
}

std::string TestClient::AwaitTestId(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](TestClient* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
                             return self->done_ || !self->outcome_.test_id.empty();
                           },
                           this),
                       timeout);
  return outcome_.test_id;
}

}  // namespace eb::bench
