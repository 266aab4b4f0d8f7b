// The validation states' one table (common/spec/validation_states.h): every
// value the proto declares has its own row; `preempted` and `interrupted`
// are end states whose node verdicts are never evidence.

#include "common/spec/validation_states.h"

#include "common/spec/wire_names.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

namespace v1 = ebnccl::v1;

TEST(ValidationStatesTest, PreemptedEndsWithoutEvidenceAndExitsInterrupted) {
  const ValidationStateRow& preempted = RowOf(v1::VALIDATION_STATE_PREEMPTED);
  EXPECT_TRUE(preempted.terminal);
  EXPECT_FALSE(preempted.records_verdicts);
  EXPECT_EQ(preempted.exit, ValidationExit::kInterrupted);
  EXPECT_EQ(WireName(v1::VALIDATION_STATE_PREEMPTED), "preempted");
  EXPECT_FALSE(RowOf(v1::VALIDATION_STATE_INTERRUPTED).records_verdicts);
  EXPECT_TRUE(RowOf(v1::VALIDATION_STATE_DONE).records_verdicts);
  EXPECT_TRUE(RowOf(v1::VALIDATION_STATE_CANCELLED).records_verdicts);
  EXPECT_FALSE(RowOf(v1::VALIDATION_STATE_RUNNING).terminal);
}

TEST(ValidationStatesTest, EveryDeclaredStateHasItsOwnRowAndAnUnknownOneReadsAsFailed) {
  const google::protobuf::EnumDescriptor& states = *v1::ValidationState_descriptor();
  for (int i = 0; i < states.value_count(); ++i) {
    const auto state = static_cast<v1::ValidationState>(states.value(i)->number());
    if (state == v1::VALIDATION_STATE_FAILED) continue;
    EXPECT_NE(&RowOf(state), &RowOf(v1::VALIDATION_STATE_FAILED)) << states.value(i)->name();
  }
  EXPECT_EQ(&RowOf(static_cast<v1::ValidationState>(99)), &RowOf(v1::VALIDATION_STATE_FAILED));
}

}  // namespace
}  // namespace eb::spec
