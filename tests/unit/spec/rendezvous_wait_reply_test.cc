// The worker's reading of a rendezvous wait reply: the concatenated slices
// of a sliced wait (issue 15), the value-per-key form of a coordinator that
// predates them, and every other shape refused naming the field.
#include "common/spec/rendezvous_wait_reply.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {
namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

MATCHER_P2(StatusIs, code, message_matcher, "") {
  return arg.status().code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(arg.status().message()),
                                       result_listener);
}

TEST(WaitReplyValuesTest, ConcatenatedSlicesAreSplitOnePerKey) {
  v1::RendezvousWaitReply reply;
  reply.set_concatenated_values("aaBBcc");
  const transport::ValueSlice slice{4, 2};
  absl::StatusOr<std::vector<std::string>> values = WaitReplyValues(reply, 3, &slice);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("aa", "BB", "cc"));
}

TEST(WaitReplyValuesTest, AnOlderCoordinatorsValuePerKeyIsTaken) {
  v1::RendezvousWaitReply reply;
  reply.add_values("aa");
  reply.add_values("BB");
  const transport::ValueSlice slice{0, 2};
  absl::StatusOr<std::vector<std::string>> values = WaitReplyValues(reply, 2, &slice);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("aa", "BB"));
  values = WaitReplyValues(reply, 2, nullptr);
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("aa", "BB"));
}

TEST(WaitReplyValuesTest, OtherShapesAreRefusedNamingTheField) {
  const transport::ValueSlice slice{0, 2};
  v1::RendezvousWaitReply short_concatenation;
  short_concatenation.set_concatenated_values("aaB");
  EXPECT_THAT(WaitReplyValues(short_concatenation, 2, &slice),
              StatusIs(absl::StatusCode::kInternal,
                       HasSubstr("concatenated_values has 3 bytes for 2 keys of 2 bytes")));
  v1::RendezvousWaitReply empty;
  EXPECT_THAT(WaitReplyValues(empty, 2, &slice),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("concatenated_values has 0 bytes")));
  EXPECT_THAT(WaitReplyValues(empty, 2, nullptr),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("0 values for 2 keys")));
  v1::RendezvousWaitReply both;
  both.add_values("aa");
  both.add_values("BB");
  both.set_concatenated_values("aaBB");
  EXPECT_THAT(WaitReplyValues(both, 2, &slice),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("concatenated_values besides")));
  v1::RendezvousWaitReply long_value;
  long_value.add_values("aa");
  long_value.add_values("BBB");
  EXPECT_THAT(WaitReplyValues(long_value, 2, &slice),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("values[1] has 3 bytes")));
}

}  // namespace
}  // namespace eb::spec
