#include "coordinator/ebctl/output/log_json.h"

#include <string>

namespace eb::ebctl {
namespace v1 = ebnccl::v1;
using nlohmann::json;

json LogToJson(absl::string_view test_id, int rank, const v1::GetLogReply& reply) {
  return json{{"test_id", std::string(test_id)}, {"rank", rank},
              {"node", reply.node_name()},       {"path", reply.path()},
              {"truncated", reply.truncated()},  {"content", reply.content()}};
}

}  // namespace eb::ebctl
