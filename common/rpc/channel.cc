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
  // No bandwidth-delay probes, as on the server (common/rpc/server.cc): a
  // probe may follow each message read, with its PING, ACK and timer; every
  // message we exchange is small, and the default windows suffice.
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  // Reconnect quickly after the peer comes back; our own backoff sits above.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  // gRPC uses the minimum reconnect backoff as the timeout of one
  // connection attempt (TCP connect, TLS handshake and the server's
  // SETTINGS frame). At 100 ms, 1,024 agents dialling a busy coordinator at
  // once abandoned thousands of handshakes half done and retried them,
  // taking 3.7-9.8 s (and ebctl calls failed with "connection attempt timed
  // out before receiving SETTINGS frame"). gRPC's default, 20 s, lets a slow
  // handshake finish; a dead address still fails at once (refused), and a
  // silent one after 20 s, then the backoffs above apply (issue 15).
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 20000);
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
