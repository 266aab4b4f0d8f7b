#include "agent/worker/slow_communicator.h"

#include <utility>

namespace eb::worker {

namespace {

class SlowCommunicator final : public transport::Communicator {
 public:
  SlowCommunicator(std::unique_ptr<transport::Communicator> inner, absl::Duration delay)
      : inner_(std::move(inner)), delay_(delay) {}

  int Rank() const override { return inner_->Rank(); }
  int WorldSize() const override { return inner_->WorldSize(); }
  const char* TransportName() const override { return inner_->TransportName(); }
  absl::StatusOr<std::unique_ptr<transport::Buffer>> Allocate(size_t bytes) override {
    return inner_->Allocate(bytes);
  }
  absl::Status FillInput(const transport::DataPattern& pattern) override {
    return inner_->FillInput(pattern);
  }
  absl::StatusOr<int64_t> CountWrong(const transport::DataPattern& pattern) override {
    return inner_->CountWrong(pattern);
  }
  absl::StatusOr<absl::Duration> Run(const transport::CollectiveCall& call,
                                     int iterations) override {
    return inner_->Run(call, iterations);
  }
  // One call at a time, each after the delay; the batch's time is the
  // wall time of it all, delays included.
  absl::StatusOr<absl::Duration> RunTimedBatch(const transport::CollectiveCall& call,
                                               int iterations) override {
    const absl::Time start = absl::Now();
    for (int i = 0; i < iterations; ++i) {
      absl::SleepFor(delay_);
      // The i-th call of a batch works on the i-th slice (communicator.h).
      absl::StatusOr<absl::Duration> one =
          inner_->RunTimedBatch(transport::AtIteration(call, i), 1);
      if (!one.ok()) return one.status();
    }
    return absl::Now() - start;
  }
  absl::Status Barrier() override { return inner_->Barrier(); }
  void Abort(absl::string_view reason) override { inner_->Abort(reason); }

 private:
  std::unique_ptr<transport::Communicator> inner_;
  const absl::Duration delay_;
};

}  // namespace

std::unique_ptr<transport::Communicator> WithSlowdown(
    std::unique_ptr<transport::Communicator> inner, absl::Duration delay_per_call) {
  return std::make_unique<SlowCommunicator>(std::move(inner), delay_per_call);
}

}  // namespace eb::worker
