#include "common/rpc/channel.h"

#include <chrono>

#include "common/rpc/tls.h"
#include "common/spec/limits.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace eb::common {

grpc::ChannelArguments ClientChannelArguments(absl::Duration keepalive_time) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS,
              static_cast<int>(absl::ToInt64Milliseconds(keepalive_time)));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Reconnect quickly after the peer comes back; our own backoff sits above.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  // The same message bound as RpcServer (docs/SECURITY.md, "Limits").
  args.SetMaxReceiveMessageSize(spec::kMaxRpcMessageBytes);
  args.SetMaxSendMessageSize(spec::kMaxRpcMessageBytes);
  return args;
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target,
                                           absl::Duration keepalive_time) {
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   ClientChannelArguments(keepalive_time));
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, const TlsFiles& tls,
                                           absl::Duration keepalive_time) {
  if (!tls.enabled()) return MakeChannel(target, keepalive_time);
  return grpc::CreateCustomChannel(target, MakeChannelCredentials(tls),
                                   ClientChannelArguments(keepalive_time));
}

void SetTimeout(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)));
}

}  // namespace eb::common
