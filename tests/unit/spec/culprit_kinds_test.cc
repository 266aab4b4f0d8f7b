// The culprit kinds' table (common/spec/culprit_kinds.h): every wire value
// has its row, ebctl's word is the wire name but where a reader is better
// told otherwise ("cannot tell"), and the part each kind names.

#include "common/spec/culprit_kinds.h"

#include <string>

#include "common/spec/wire_names.h"
#include "gtest/gtest.h"

namespace eb::spec {
namespace {

namespace v1 = ebnccl::v1;

TEST(CulpritKindsTest, EveryKindHasItsRowAndItsWord) {
  const google::protobuf::EnumDescriptor* kinds = v1::Culprit_descriptor();
  for (int i = 0; i < kinds->value_count(); ++i) {
    const auto kind = static_cast<v1::Culprit>(kinds->value(i)->number());
    if (kind == v1::CULPRIT_UNSPECIFIED) continue;
    SCOPED_TRACE(kinds->value(i)->name());
    const CulpritKindRow& row = RowOf(kind);
    if (kind == v1::CULPRIT_UNKNOWN) {
      EXPECT_EQ(std::string(row.word), "cannot tell");
    } else {
      EXPECT_EQ(std::string(row.word), WireName(kind));  // a row of its own, not unknown's
    }
  }
}

TEST(CulpritKindsTest, ThePartEachKindNames) {
  EXPECT_EQ(RowOf(v1::CULPRIT_LINK_ERRORS).part, CulpritPart::kPort);
  EXPECT_TRUE(RowOf(v1::CULPRIT_LINK_ERRORS).part_in_line);
  EXPECT_EQ(RowOf(v1::CULPRIT_PATH).part, CulpritPart::kNothing);
  EXPECT_EQ(RowOf(v1::CULPRIT_LATE_RANK).part, CulpritPart::kRank);
  EXPECT_EQ(RowOf(v1::CULPRIT_DESCHEDULED_HOST).part, CulpritPart::kNode);
  EXPECT_EQ(RowOf(v1::CULPRIT_FAILURE).part, CulpritPart::kFailure);
  EXPECT_EQ(RowOf(v1::CULPRIT_GPU_THROTTLED).part, CulpritPart::kGpu);
  EXPECT_TRUE(RowOf(v1::CULPRIT_GPU_THROTTLED).part_in_line);
  // A value from a newer peer reads as "cannot tell".
  EXPECT_EQ(std::string(RowOf(static_cast<v1::Culprit>(99)).word), "cannot tell");
}

}  // namespace
}  // namespace eb::spec
