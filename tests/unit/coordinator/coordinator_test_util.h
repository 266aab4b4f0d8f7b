#pragma once

// Matchers and builders shared by the coordinator unit tests.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ebnccl/v1/common.pb.h"
#include "gmock/gmock.h"

namespace eb::coordinator::test {

inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches an absl::Status or absl::StatusOr<T> with `code` whose message
// matches `message_matcher` (absl::string_view is not std::string_view here,
// so the message is handed to the matcher as a std::string).
MATCHER_P2(StatusIs, code, message_matcher,
           std::string(negation ? "isn't" : "is") + " a status with code " +
               absl::StatusCodeToString(code) + " and a message that " +
               ::testing::DescribeMatcher<std::string>(message_matcher)) {
  const absl::Status& status = StatusOf(arg);
  *result_listener << "status is " << status.ToString();
  if (status.code() != code) return false;
  return ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = StatusOf(arg);
  *result_listener << "status is " << status.ToString();
  return status.ok();
}

// A valid all_reduce spec sweeping 1 KiB, 2 KiB, 4 KiB (factor 2).
inline ebnccl::v1::TestSpec SmallSweepSpec() {
  ebnccl::v1::TestSpec spec;
  spec.set_collective(ebnccl::v1::COLLECTIVE_ALL_REDUCE);
  spec.set_min_bytes(1024);
  spec.set_max_bytes(4096);
  spec.set_step_factor(2);
  spec.set_iterations(5);
  spec.set_warmup_iterations(1);
  spec.set_check_iterations(1);
  return spec;
}

// One rank's measurement of one size: both variants take `time_us`.
inline ebnccl::v1::RankSizeResult RankResult(int64_t size_bytes, int64_t count, double time_us,
                                             int64_t wrong_out = 0, int64_t wrong_in = 0) {
  ebnccl::v1::RankSizeResult result;
  result.set_size_bytes(size_bytes);
  result.set_count(count);
  result.mutable_out_of_place()->set_time_us(time_us);
  result.mutable_out_of_place()->set_wrong_elements(wrong_out);
  result.mutable_in_place()->set_time_us(time_us);
  result.mutable_in_place()->set_wrong_elements(wrong_in);
  return result;
}

}  // namespace eb::coordinator::test
