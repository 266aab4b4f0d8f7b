#pragma once

// Client channels with keepalive matching RpcServer's settings, and the
// deadline helper every client call uses (STYLE.md rule 9).

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/rpc/tls_files.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/channel_arguments.h"

namespace eb::common {

// The arguments every channel below gets (keepalive, reconnect backoff,
// message bounds); public so that tests/bench/load_generator dials with
// exactly the agent's settings.
grpc::ChannelArguments ClientChannelArguments(absl::Duration keepalive_time);

// Insecure channel to "host:port" or "unix:/path" with keepalive pings every
// `keepalive_time`, also without active calls, so a dead peer is noticed.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target,
                                           absl::Duration keepalive_time = absl::Seconds(10));

// The same over mutual TLS when `tls` names files (common/rpc/tls.h; check
// them first with CheckTlsFiles), else the insecure channel above.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target, const TlsFiles& tls,
                                           absl::Duration keepalive_time = absl::Seconds(10));

// Sets `context`'s deadline to now + timeout.
void SetTimeout(grpc::ClientContext& context, absl::Duration timeout);

}  // namespace eb::common
