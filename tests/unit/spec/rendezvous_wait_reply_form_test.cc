// Both wire forms of a rendezvous wait's reply, from the asking through the
// store's gathering to the worker's reading (common/spec/
// rendezvous_wait_reply.h): what the coordinator builds is what the worker
// reads back, one value per key.

#include <string>
#include <vector>

#include "common/spec/rendezvous_wait_reply.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

namespace v1 = ebnccl::v1;
using ::testing::ElementsAre;

// The coordinator's side of a wait for `request` over `values` (already
// cut to the slice), then the worker's reading of the reply.
absl::StatusOr<std::vector<std::string>> RoundTrip(const v1::RendezvousWaitRequest& request,
                                                   const std::vector<std::string>& values,
                                                   const transport::ValueSlice* slice,
                                                   v1::RendezvousWaitReply* reply) {
  const bool concatenated = WantsConcatenatedReply(request);
  WaitReplyWriter writer(concatenated, values.size(),
                         slice != nullptr ? static_cast<size_t>(slice->length) : 0);
  for (const std::string& value : values) writer.Add(value);
  SetWaitReplyValues(std::move(writer).Take(), concatenated, reply);
  return WaitReplyValues(*reply, values.size(), slice);
}

TEST(RendezvousWaitReplyFormTest, ASlicedWaitIsAnsweredConcatenated) {
  const transport::ValueSlice slice{8, 2};
  v1::RendezvousWaitRequest request;
  SetWaitSlice(slice, &request);
  EXPECT_EQ(request.slice().offset(), 8);
  EXPECT_EQ(request.slice().length(), 2);
  EXPECT_TRUE(WantsConcatenatedReply(request));
  v1::RendezvousWaitReply reply;
  auto values = RoundTrip(request, {"aa", "BB", "aa"}, &slice, &reply);
  EXPECT_EQ(reply.values_size(), 0);
  EXPECT_EQ(reply.concatenated_values(), "aaBBaa");
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("aa", "BB", "aa"));
}

TEST(RendezvousWaitReplyFormTest, OtherWaitsAreAnsweredOneValuePerKey) {
  v1::RendezvousWaitRequest unsliced;
  EXPECT_FALSE(WantsConcatenatedReply(unsliced));
  v1::RendezvousWaitReply reply;
  auto values = RoundTrip(unsliced, {"id-bytes", ""}, nullptr, &reply);
  EXPECT_THAT(reply.values(), ElementsAre("id-bytes", ""));
  EXPECT_TRUE(reply.concatenated_values().empty());
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("id-bytes", ""));

  // Sliced without asking for the concatenation (an older worker).
  const transport::ValueSlice slice{0, 2};
  v1::RendezvousWaitRequest older;
  older.mutable_slice()->set_length(2);
  EXPECT_FALSE(WantsConcatenatedReply(older));
  v1::RendezvousWaitReply older_reply;
  values = RoundTrip(older, {"aa", "BB"}, &slice, &older_reply);
  EXPECT_THAT(older_reply.values(), ElementsAre("aa", "BB"));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ElementsAre("aa", "BB"));
}

}  // namespace
}  // namespace eb::spec
