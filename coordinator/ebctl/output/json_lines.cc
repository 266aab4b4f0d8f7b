#include "coordinator/ebctl/output/json_lines.h"

#include "common/spec/names.h"
#include "coordinator/ebctl/output/labels.h"
#include "coordinator/ebctl/output/report_json.h"

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;

json RowJsonLine(const v1::SizeResult& row, const v1::TestReport& accepted) {
  json line = {
      {"schema", kTestRowSchema},
      {"schema_version", kJsonSchemaVersion},
      {"test_id", accepted.test_id()},
      {"collective", spec::DisplayName(accepted.spec().collective())},
      {"transport", spec::DisplayName(accepted.transport())},
      {"nodes", TestNodeNames(accepted)},
      {"ranks", accepted.ranks_size()},
  };
  // The row's own fields beside the identity; the row's `collective` replaces
  // the test's first one (with several collectives, each row names its own).
  line.update(SizeResultToJson(row, accepted.spec()));
  return line;
}

json FinishedJsonLine(const v1::TestReport& finished, absl::string_view version) {
  json line = ReportToJson(finished, version);
  line.erase("results");
  return line;
}

std::string ToJsonLine(const json& line) { return line.dump() + "\n"; }

}  // namespace eb::ebctl
