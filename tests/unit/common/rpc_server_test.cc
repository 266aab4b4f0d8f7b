// RpcServer: port 0 resolves to the bound port, and a port that is already
// served cannot be taken a second time (gRPC's default SO_REUSEPORT would
// let two coordinators split the agents between them).

#include "common/rpc/server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "ebnccl/v1/worker.grpc.pb.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

// A server needs a service to serve (gRPC refuses to build one without any
// method); its methods are never called here.
ebnccl::v1::WorkerControl::CallbackService service;

RpcServerOptions On(const std::string& address) {
  RpcServerOptions options;
  options.listen_address = address;
  options.services = {&service};
  return options;
}

TEST(RpcServerTest, NoServiceIsAnInvalidArgument) {
  auto server = RpcServer::Start({"127.0.0.1:0", {}});
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(server.status().message().find("127.0.0.1:0"), absl::string_view::npos)
      << server.status();
}

TEST(RpcServerTest, PortZeroBindsAFreePort) {
  auto server = RpcServer::Start(On("127.0.0.1:0"));
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_GT((*server)->port(), 0);
}

TEST(RpcServerTest, APortInUseIsUnavailable) {
  auto first = RpcServer::Start(On("127.0.0.1:0"));
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string address = absl::StrCat("127.0.0.1:", (*first)->port());
  auto second = RpcServer::Start(On(address));
  ASSERT_FALSE(second.ok()) << "a second server bound " << address;
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find(address), absl::string_view::npos) << second.status();
}

TEST(RpcServerTest, ThePortIsFreeAgainAfterShutdown) {
  auto first = RpcServer::Start(On("127.0.0.1:0"));
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string address = absl::StrCat("127.0.0.1:", (*first)->port());
  (*first)->Shutdown(absl::ZeroDuration());
  first->reset();
  auto again = RpcServer::Start(On(address));
  EXPECT_TRUE(again.ok()) << again.status();
}

// Issue 32 item 7: a peer that connects and says nothing is closed at the
// handshake deadline (gRPC's default kept it 120 s).
TEST(RpcServerTest, AConnectionThatSaysNothingIsClosedAtTheHandshakeDeadline) {
  RpcServerOptions options = On("127.0.0.1:0");
  options.handshake_timeout = absl::Milliseconds(300);
  auto server = RpcServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>((*server)->port()));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof(to)), 0);
  const absl::Time start = absl::Now();
  pollfd p{fd, POLLIN, 0};
  char byte = 0;
  bool closed = false;
  while (!closed && absl::Now() - start < absl::Seconds(10)) {
    if (::poll(&p, 1, 100) > 0) closed = ::recv(fd, &byte, 1, 0) <= 0;
  }
  ::close(fd);
  EXPECT_TRUE(closed);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
}  // namespace eb::common
