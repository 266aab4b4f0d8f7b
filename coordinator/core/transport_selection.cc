#include "coordinator/core/transport_selection.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/spec/proto_enums.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

bool Offers(const v1::NodeInventory& inventory, v1::Transport transport) {
  return std::find(inventory.transports().begin(), inventory.transports().end(), transport) !=
         inventory.transports().end();
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
  if (transport == v1::TRANSPORT_NCCL) {
    const bool fp8 =
        spec.data_type() == v1::DATA_TYPE_FP8_E4M3 || spec.data_type() == v1::DATA_TYPE_FP8_E5M2;
    auto is_reducing = [](int c) {
      return c == v1::COLLECTIVE_ALL_REDUCE || c == v1::COLLECTIVE_REDUCE ||
             c == v1::COLLECTIVE_REDUCE_SCATTER;
    };
    bool reducing = is_reducing(spec.collective());
    for (int c : spec.collectives()) reducing = reducing || is_reducing(c);
    if (fp8 && reducing && spec.reduce_op() == v1::REDUCE_OP_AVG) {
      return absl::InvalidArgumentError(
          absl::StrCat("reduce_op: NCCL has no avg for ", spec::DisplayName(spec.data_type())));
    }
    return absl::OkStatus();
  }
  if (transport != v1::TRANSPORT_GLOO) return absl::OkStatus();
  if (spec.cuda_graph_launches() > 0) {
    return absl::InvalidArgumentError("cuda_graph: needs the nccl transport (GPU nodes)");
  }
  if (!spec.nccl_env().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("nccl_env: ", spec.nccl_env().begin()->first,
                     " has no effect on the gloo transport (GPU nodes run nccl)"));
  }
  switch (spec.data_type()) {
    case v1::DATA_TYPE_HALF:
    case v1::DATA_TYPE_BFLOAT16:
    case v1::DATA_TYPE_FP8_E4M3:
    case v1::DATA_TYPE_FP8_E5M2:
      return absl::InvalidArgumentError(absl::StrCat(
          "data_type: ", spec::DisplayName(spec.data_type()),
          " is not supported by the gloo transport (use int8, uint8, int32, uint32, int64, "
          "uint64, float or double)"));
    default:
      break;
  }
  if (spec.reduce_op() == v1::REDUCE_OP_AVG) {
    return absl::InvalidArgumentError(
        "reduce_op: avg is not supported by the gloo transport (use sum, prod, max or min)");
  }
  return absl::OkStatus();
}

}  // namespace eb::coordinator
