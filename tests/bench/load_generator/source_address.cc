#include "tests/bench/load_generator/source_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "grpc/support/sync.h"

// gRPC 1.51's socket mutator (src/core/lib/iomgr/socket_mutator.h, not an
// installed header): the layout and the one function used, as exported by
// libgrpc. grpc_socket_mutator itself is declared in grpc_types.h.
typedef enum {
  GRPC_FD_CLIENT_CONNECTION_USAGE,
  GRPC_FD_SERVER_LISTENER_USAGE,
  GRPC_FD_SERVER_CONNECTION_USAGE,
} grpc_fd_usage;
typedef struct {
  int fd;
  grpc_fd_usage usage;
} grpc_mutate_socket_info;
typedef struct {
  bool (*mutate_fd)(int fd, grpc_socket_mutator* mutator);
  int (*compare)(grpc_socket_mutator* a, grpc_socket_mutator* b);
  void (*destroy)(grpc_socket_mutator* mutator);
  bool (*mutate_fd_2)(const grpc_mutate_socket_info* info, grpc_socket_mutator* mutator);
} grpc_socket_mutator_vtable;
struct grpc_socket_mutator {
  const grpc_socket_mutator_vtable* vtable;
  gpr_refcount refcount;
};
void grpc_socket_mutator_init(grpc_socket_mutator* mutator,
                              const grpc_socket_mutator_vtable* vtable);

namespace eb::bench {
namespace {

struct BindMutator {
  grpc_socket_mutator base;  // first: gRPC passes &base
  in_addr address;
};

bool MutateFd(int fd, grpc_socket_mutator* mutator) {
  const auto* self = reinterpret_cast<BindMutator*>(mutator);
  sockaddr_storage probe{};
  socklen_t length = sizeof(probe);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&probe), &length) != 0) return false;
  if (probe.ss_family == AF_INET) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_addr = self->address;
    return bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) == 0;
  }
  if (probe.ss_family == AF_INET6) {
    // gRPC dials IPv4 from a dual-stack socket: the v4-mapped address.
    sockaddr_in6 local{};
    local.sin6_family = AF_INET6;
    local.sin6_addr.s6_addr[10] = 0xff;
    local.sin6_addr.s6_addr[11] = 0xff;
    std::memcpy(&local.sin6_addr.s6_addr[12], &self->address, 4);
    return bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) == 0;
  }
  // A socket of another family (unix:) has no IPv4 source: leave it.
  return true;
}

int Compare(grpc_socket_mutator* a, grpc_socket_mutator* b) {
  const uint32_t x = reinterpret_cast<BindMutator*>(a)->address.s_addr;
  const uint32_t y = reinterpret_cast<BindMutator*>(b)->address.s_addr;
  return x < y ? -1 : (x > y ? 1 : 0);
}

void Destroy(grpc_socket_mutator* mutator) { delete reinterpret_cast<BindMutator*>(mutator); }

const grpc_socket_mutator_vtable kVtable = {MutateFd, Compare, Destroy, nullptr};

}  // namespace

void BindSourceAddress(grpc::ChannelArguments& args, const std::string& ipv4) {
  auto* mutator = new BindMutator{};
  grpc_socket_mutator_init(&mutator->base, &kVtable);
  inet_pton(AF_INET, ipv4.c_str(), &mutator->address);
  args.SetSocketMutator(&mutator->base);
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
}

std::string AgentSourceAddress(int index) {
  return absl::StrCat("127.1.", index / 250, ".", index % 250 + 1);
}

}  // namespace eb::bench
