#include "agent/worker/worker_communicators.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/spec/proto_enums.h"
#include "common/transport/gloo/gloo_communicator.h"
#ifdef EB_HAVE_NCCL
#include "common/transport/nccl/nccl_communicator.h"
#endif

namespace eb::worker {
namespace v1 = ebnccl::v1;

#ifdef EB_HAVE_NCCL
namespace {

// Where the agent forced NCCL's IB transport (its HCAs are configured; see
// agent/core/worker_spec.h), a failed init may be NCCL unable to use them:
// it is not allowed to fall back to TCP sockets, so say what to check. Not
// for deadlines and aborts, which a missing peer explains.
absl::Status WithIbTransportHint(absl::Status status) {
  const char* net = std::getenv("NCCL_NET");
  const char* hcas = std::getenv("NCCL_IB_HCA");
  if (status.ok() || net == nullptr || hcas == nullptr || !absl::EqualsIgnoreCase(net, "IB") ||
      status.code() == absl::StatusCode::kDeadlineExceeded ||
      status.code() == absl::StatusCode::kAborted) {
    return status;
  }
  return absl::Status(
      status.code(),
      absl::StrCat(status.message(), " (NCCL_NET=IB, NCCL_IB_HCA=", hcas,
                   ": this node's HCAs are configured, so NCCL may not fall back to TCP sockets; "
                   "if it could not use them, check rdma-core (libibverbs), "
                   "/dev/infiniband/uverbs* for this process, and the ports' state)"));
}

}  // namespace
#endif

absl::StatusOr<std::unique_ptr<transport::Communicator>> CreateCommunicator(
    const Membership& member, const v1::RegisterWorkerReply& registration,
    transport::RendezvousStore& store) {
  const v1::TestSpec& spec = registration.spec();
  const absl::Duration init_timeout = absl::Milliseconds(registration.init_timeout_ms());
  const absl::Duration op_timeout = absl::Milliseconds(registration.op_timeout_ms());
  if (spec.transport() == v1::TRANSPORT_NCCL) {
#ifdef EB_HAVE_NCCL
    const v1::RankAssignment& assignment = registration.assignment();
    transport::NcclOptions nccl;
    nccl.rank = member.rank;
    nccl.world_size = member.world_size;
    nccl.cuda_device = assignment.device_index();
    nccl.gpu_pci_bus_id = assignment.gpu_pci_bus_id();
    nccl.comm_name = member.comm_name;
    nccl.init_timeout = init_timeout;
    nccl.op_timeout = op_timeout;
    nccl.cuda_graph_launches = spec.cuda_graph_launches();
    absl::StatusOr<std::unique_ptr<transport::Communicator>> comm =
        transport::CreateNcclCommunicator(nccl, store);
    if (!comm.ok()) return WithIbTransportHint(comm.status());
    return comm;
#else
    return absl::UnimplementedError("this eb-worker was built without NCCL");
#endif
  }
  if (spec.transport() != v1::TRANSPORT_GLOO) {
    return absl::InvalidArgumentError(
        absl::StrCat("transport: ", spec::DisplayName(spec.transport()), " is not runnable"));
  }
  transport::GlooOptions gloo;
  gloo.rank = member.rank;
  gloo.world_size = member.world_size;
  gloo.interface_name = registration.bootstrap_interface();
  gloo.hostname = registration.bootstrap_address();
  if (gloo.interface_name.empty() && gloo.hostname.empty()) {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    gloo.hostname = host;
  }
  gloo.connect_timeout = init_timeout;
  gloo.op_timeout = op_timeout;
  return transport::CreateGlooCommunicator(gloo, store);
}

absl::StatusOr<Membership> RailMembership(const v1::RegisterWorkerReply& registration,
                                          const std::string& test_id) {
  const v1::RankAssignment& a = registration.assignment();
  const v1::TestSpec& spec = registration.spec();
  // The node count is the world over the ranks per node: the coordinator
  // sends the spec without its node list (one list per node made launching
  // N nodes cost N^2 names, issue 15).
  const int per_node = spec.workers_per_node();
  const int nodes = per_node > 0 ? a.world_size() / per_node : 0;
  if (nodes < 1 || per_node < 1 || nodes * per_node != a.world_size() || a.node_index() < 0 ||
      a.node_index() >= nodes || a.local_rank() < 0 || a.local_rank() >= per_node) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split_rails: rank ", a.rank(), " (node index ", a.node_index(), ", slot ", a.local_rank(),
        ") does not fit ", nodes, " node(s) x ", per_node, " worker(s) = world ", a.world_size()));
  }
  return Membership{a.node_index(), nodes, absl::StrCat(test_id, "/rail", a.local_rank())};
}

std::string RailKeyPrefix(int rail) { return absl::StrCat("rail", rail, "/"); }

}  // namespace eb::worker
