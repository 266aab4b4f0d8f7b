#pragma once

// A scripted Communicator for tests of code that drives one (the benchmark
// runner, the worker): it moves no data, records every call, reports a
// fixed time per collective call and a fixed wrong count per check, and can
// fail the N-th Run. Single-threaded, except Abort.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/transport/communicator.h"

namespace eb::testing {

class FakeCommunicator final : public transport::Communicator {
 public:
  // One recorded call. kind: "fill", "run", "timed" (RunTimedBatch),
  // "barrier", "check".
  struct Event {
    std::string kind;
    transport::CollectiveCall call;
    int iterations = 0;  // run, timed
    uint32_t seed = 0;   // fill, check
  };

  FakeCommunicator(int rank, int world_size) : rank_(rank), world_size_(world_size) {}

  // Every collective call "takes" this long.
  void set_time_per_call(absl::Duration d) { time_per_call_ = d; }
  // CountWrong returns this.
  void set_wrong_per_check(int64_t wrong) { wrong_per_check_ = wrong; }
  // The `n`-th Run (0-based) returns `status`.
  void FailRun(int n, absl::Status status) {
    fail_run_ = n;
    fail_status_ = std::move(status);
  }

  const std::vector<Event>& events() const { return events_; }
  const std::vector<size_t>& allocations() const { return allocations_; }
  // Start of the i-th allocated buffer (to check call pointers; only an
  // address, the buffer may be gone).
  const uint8_t* buffer(size_t i) const { return buffer_addresses_[i]; }
  std::string abort_reason() const {
    absl::MutexLock lock(&mu_);
    return abort_reason_;
  }

  int Rank() const override { return rank_; }
  int WorldSize() const override { return world_size_; }
  const char* TransportName() const override { return "fake"; }

  absl::StatusOr<std::unique_ptr<transport::Buffer>> Allocate(size_t bytes) override {
    allocations_.push_back(bytes);
    auto buffer = std::make_unique<VectorBuffer>(bytes == 0 ? 1 : bytes);
    buffer_addresses_.push_back(buffer->bytes.data());
    return std::unique_ptr<transport::Buffer>(std::move(buffer));
  }

  absl::Status FillInput(const transport::DataPattern& pattern) override {
    events_.push_back({"fill", pattern.call, 0, pattern.seed});
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> CountWrong(const transport::DataPattern& pattern) override {
    events_.push_back({"check", pattern.call, 0, pattern.seed});
    return wrong_per_check_;
  }

  absl::StatusOr<absl::Duration> Run(const transport::CollectiveCall& call,
                                     int iterations) override {
    events_.push_back({"run", call, iterations, 0});
    if (runs_++ == fail_run_) return fail_status_;
    if (call.iteration_times != nullptr) {
      for (int i = 0; i < iterations; ++i) call.iteration_times->push_back(time_per_call_);
    }
    return time_per_call_ * iterations;
  }

  // Recorded as "timed"; otherwise as Run.
  absl::StatusOr<absl::Duration> RunTimedBatch(const transport::CollectiveCall& call,
                                               int iterations) override {
    absl::StatusOr<absl::Duration> result = Run(call, iterations);
    events_.back().kind = "timed";
    return result;
  }

  absl::Status Barrier() override {
    events_.push_back({"barrier", {}, 0, 0});
    return absl::OkStatus();
  }

  void Abort(absl::string_view reason) override {
    absl::MutexLock lock(&mu_);
    if (abort_reason_.empty()) abort_reason_ = std::string(reason);
  }

 private:
  struct VectorBuffer final : transport::Buffer {
    explicit VectorBuffer(size_t n) : bytes(n) {}
    void* data() override { return bytes.data(); }
    size_t size_bytes() const override { return bytes.size(); }
    std::vector<uint8_t> bytes;
  };

  const int rank_;
  const int world_size_;
  absl::Duration time_per_call_ = absl::Microseconds(10);
  int64_t wrong_per_check_ = 0;
  int fail_run_ = -1;
  absl::Status fail_status_;
  int runs_ = 0;
  std::vector<Event> events_;
  std::vector<size_t> allocations_;
  std::vector<const uint8_t*> buffer_addresses_;
  mutable absl::Mutex mu_;
  std::string abort_reason_;
};

}  // namespace eb::testing
