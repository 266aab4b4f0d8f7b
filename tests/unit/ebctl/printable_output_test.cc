// Every text renderer of ebctl shows every string a reply carries through
// the one output sanitizer (coordinator/ebctl/output/printable.h). The
// replies are filled by reflection, every string field of every nested
// message with a hostile text, so a new column of any field is covered
// without this test naming it (SECURITY_FINDINGS P2-2.18, P2-6.3).

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "coordinator/ebctl/output/audit_output.h"
#include "coordinator/ebctl/output/nodes_table.h"
#include "coordinator/ebctl/output/report_table.h"
#include "coordinator/ebctl/output/tests_table.h"
#include "coordinator/ebctl/output/topology_output.h"
#include "coordinator/ebctl/output/validation_progress.h"
#include "coordinator/ebctl/output/validation_table.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"

namespace eb::ebctl {
namespace {

namespace v1 = ebnccl::v1;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Clears the screen, starts a line that fakes a verdict, and a C1 CSI.
const std::string kHostile =
    "x\x1b[2J\r\n# Result: PASSED\x1b[32m\xc2\x9b"
    "1m\x07";

// Every string field set to kHostile, every message field (and one element
// of every repeated one) filled the same way, to `depth` levels.
void FillHostile(Message& message, int depth) {
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const google::protobuf::Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->containing_oneof() != nullptr && field->index_in_oneof() > 0) continue;
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      if (field->is_repeated()) {
        reflection->AddString(&message, field, kHostile);
      } else {
        reflection->SetString(&message, field, kHostile);
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && depth > 0) {
      Message* child = field->is_repeated() ? reflection->AddMessage(&message, field)
                                            : reflection->MutableMessage(&message, field);
      FillHostile(*child, depth - 1);
    }
  }
}

template <typename M>
M Hostile() {
  M message;
  FillHostile(message, 6);
  return message;
}

// Nothing a terminal acts on: no ESC, no C1 control, no BEL, no carriage
// return, and no line of the output is the hostile text's forged one.
void ExpectPrintable(const std::string& shown) {
  ASSERT_FALSE(shown.empty());
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\x07'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\r'), std::string::npos) << shown;
  EXPECT_EQ(shown.find("\xc2\x9b"), std::string::npos) << shown;
  for (absl::string_view line : absl::StrSplit(shown, '\n')) {
    EXPECT_FALSE(absl::StartsWith(line, "# Result: PASSED")) << shown;
  }
  EXPECT_THAT(shown, ::testing::HasSubstr("x\\x1b[2J\\r\\n# Result: PASSED"));
}

TEST(PrintableOutputTest, P2_2_18_NodesAndGpusTables) {
  const auto reply = Hostile<v1::ListNodesReply>();
  ExpectPrintable(NodesTable(reply));
  ExpectPrintable(GpusTable(reply));
}

TEST(PrintableOutputTest, P2_2_18_ShowAndRunTestTable) {
  const auto report = Hostile<v1::TestReport>();
  ExpectPrintable(TableHeader(report));
  TablePrinter table(report.spec());
  for (const v1::SizeResult& row : report.results()) {
    const std::string shown = table.Row(row);
    EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
  }
  ExpectPrintable(table.Finish(report));
}

TEST(PrintableOutputTest, P2_6_3_AuditTable) {
  ExpectPrintable(AuditTable(Hostile<v1::ListAuditReply>()));
}

TEST(PrintableOutputTest, TopologyText) {
  auto reply = Hostile<v1::GetTopologyReply>();
  reply.set_loaded(true);  // else only "no topology loaded" is shown
  ExpectPrintable(TopologyText(reply));
}

TEST(PrintableOutputTest, P2_2_18_TestsAndValidationTables) {
  ExpectPrintable(TestListTable(Hostile<v1::ListTestsReply>()));
  ExpectPrintable(ValidationTable(Hostile<v1::ValidationReport>()));
  ExpectPrintable(ValidationListTable(Hostile<v1::ListValidationsReply>()));
}

TEST(PrintableOutputTest, P2_2_18_ValidateProgress) {
  eb::testing::FakeClock fake(absl::FromUnixSeconds(1'800'000'000));
  ValidationProgress progress(ProgressStyle::kLog, fake);
  v1::ValidationEvent accepted;
  FillHostile(*accepted.mutable_accepted(), 6);
  ExpectPrintable(progress.OnEvent(accepted));
  v1::ValidationEvent finished;
  FillHostile(*finished.mutable_finished(), 6);
  ExpectPrintable(progress.OnEvent(finished));
}

}  // namespace
}  // namespace eb::ebctl
