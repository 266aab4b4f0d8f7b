// The coordinator's check of a TestSpec from a client (RunTest, validations):
// any bytes that parse as a TestSpec are validated without crashing, and a
// normalized spec is a fixed point (validating it again changes nothing).

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "coordinator/config.h"
#include "coordinator/core/collective_tests/spec_validator.h"
#include "ebnccl/v1/common.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_quiet.h"

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  eb::fuzz::Quiet();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ebnccl::v1::TestSpec spec;
  if (!spec.ParseFromArray(data, static_cast<int>(size))) return 0;
  const eb::coordinator::CoordinatorConfig config;
  const absl::StatusOr<ebnccl::v1::TestSpec> normalized =
      eb::coordinator::ValidateAndNormalize(spec, config);
  if (!normalized.ok()) {
    FUZZ_CHECK(normalized.status().code() == absl::StatusCode::kInvalidArgument);
    return 0;
  }
  const absl::StatusOr<ebnccl::v1::TestSpec> again =
      eb::coordinator::ValidateAndNormalize(*normalized, config);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(google::protobuf::util::MessageDifferencer::Equals(*again, *normalized));
  return 0;
}
