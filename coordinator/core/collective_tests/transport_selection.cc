#include "coordinator/core/collective_tests/transport_selection.h"

#include <algorithm>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/proto_enums.h"
#include "common/transport/types.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

bool Offers(const v1::NodeInventory& inventory, v1::Transport transport) {
  return std::find(inventory.transports().begin(), inventory.transports().end(), transport) !=
         inventory.transports().end();
}

// The test's collectives: the list, or the one collective of a
// single-collective spec.
std::vector<int> CollectivesOf(const v1::TestSpec& spec) {
  if (!spec.collectives().empty()) return {spec.collectives().begin(), spec.collectives().end()};
  return {spec.collective()};
}

// "int8, uint8, ... or double": the names of the rows `keep` accepts, in
// table order.
template <typename Value, size_t N, typename Keep>
std::string NamesOn(const Value (&values)[N], Keep keep) {
  std::vector<std::string> names;
  for (Value value : values) {
    if (keep(transport::Row(value))) names.emplace_back(transport::Row(value).name);
  }
  if (names.size() < 2) return absl::StrJoin(names, "");
  const std::string last = names.back();
  names.pop_back();
  return absl::StrCat(absl::StrJoin(names, ", "), " or ", last);
}

}  // namespace

absl::StatusOr<v1::Transport> SelectTransport(v1::Transport requested,
                                              const std::vector<std::string>& node_names,
                                              const std::vector<v1::NodeInventory>& inventories) {
  v1::Transport chosen = requested;
  if (requested == v1::TRANSPORT_AUTO || requested == v1::TRANSPORT_UNSPECIFIED) {
    const bool all_nccl = std::all_of(inventories.begin(), inventories.end(), [](const auto& inv) {
      return Offers(inv, v1::TRANSPORT_NCCL) && inv.gpus_size() > 0;
    });
    chosen = all_nccl ? v1::TRANSPORT_NCCL : v1::TRANSPORT_GLOO;
  }
  for (size_t i = 0; i < inventories.size(); ++i) {
    if (!Offers(inventories[i], chosen)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "transport: node ", node_names[i], " does not offer ", spec::DisplayName(chosen),
          chosen == v1::TRANSPORT_NCCL ? " (no GPUs, or the agent was built without NCCL)" : ""));
    }
  }
  if (chosen == v1::TRANSPORT_NCCL) {
    for (size_t i = 1; i < inventories.size(); ++i) {
      if (inventories[i].nccl_version() != inventories[0].nccl_version()) {
        return absl::FailedPreconditionError(
            absl::StrCat("transport: NCCL versions differ: node ", node_names[0], " has ",
                         inventories[0].nccl_version(), ", node ", node_names[i], " has ",
                         inventories[i].nccl_version(), " (NCCL refuses to init across versions)"));
      }
    }
  }
  return chosen;
}

absl::Status CheckSupported(v1::Transport transport, const v1::TestSpec& spec) {
  if (transport != v1::TRANSPORT_NCCL && transport != v1::TRANSPORT_GLOO) return absl::OkStatus();
  const unsigned plane =
      transport == v1::TRANSPORT_NCCL ? transport::kNcclTransport : transport::kGlooTransport;
  if (transport == v1::TRANSPORT_GLOO && spec.cuda_graph_launches() > 0) {
    return absl::InvalidArgumentError("cuda_graph: needs the nccl transport (GPU nodes)");
  }
  if (transport == v1::TRANSPORT_GLOO && !spec.nccl_env().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("nccl_env: ", spec.nccl_env().begin()->first,
                     " has no effect on the gloo transport (GPU nodes run nccl)"));
  }
  // What each value can run on is its row's (common/transport/*.h); values
  // the spec validator refuses (unset, unknown) have no row to ask.
  std::vector<transport::Collective> collectives;
  for (int wire : CollectivesOf(spec)) {
    auto collective = spec::ToTransport(static_cast<v1::Collective>(wire));
    if (!collective.ok()) continue;
    if ((transport::Row(*collective).transports & plane) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("collective: ", transport::Name(*collective),
                                                     " is not supported by the ",
                                                     spec::DisplayName(transport), " transport"));
    }
    collectives.push_back(*collective);
  }
  const auto type = spec::ToTransport(spec.data_type());
  const auto op = spec::ToTransport(spec.reduce_op());
  if (type.ok() && transport == v1::TRANSPORT_GLOO && !transport::Row(*type).host_arithmetic) {
    return absl::InvalidArgumentError(absl::StrCat(
        "data_type: ", transport::Name(*type), " is not supported by the gloo transport (use ",
        NamesOn(transport::kAllDataTypes, [](const auto& row) { return row.host_arithmetic; }),
        ")"));
  }
  const bool reducing =
      std::any_of(collectives.begin(), collectives.end(),
                  [](transport::Collective c) { return transport::IsReducing(c); });
  if (type.ok() && op.ok() && transport == v1::TRANSPORT_NCCL && reducing &&
      *op == transport::ReduceOp::kAvg && !transport::Row(*type).nccl_avg) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce_op: NCCL has no avg for ", transport::Name(*type)));
  }
  if (op.ok() && (transport::Row(*op).transports & plane) == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reduce_op: ", transport::Name(*op), " is not supported by the ",
                     spec::DisplayName(transport), " transport (use ",
                     NamesOn(transport::kAllReduceOps,
                             [plane](const auto& row) { return (row.transports & plane) != 0; }),
                     ")"));
  }
  return absl::OkStatus();
}

}  // namespace eb::coordinator
