// RpcServer: port 0 resolves to the bound port, and a port that is already
// served cannot be taken a second time (gRPC's default SO_REUSEPORT would
// let two coordinators split the agents between them).

#include "common/rpc/server.h"

#include "absl/strings/str_cat.h"
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

}  // namespace
}  // namespace eb::common
