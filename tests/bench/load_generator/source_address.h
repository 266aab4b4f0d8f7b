#pragma once

// Dials from a chosen loopback source address (127.x.y.z), so that each
// simulated agent looks like its own host to the coordinator: its
// per-host registration bound (kMaxAgentsPerHost) and its peer strings see
// what a fleet would show. gRPC has no channel argument for a source
// address; its socket mutator runs on the socket before connect(), where a
// bind() picks the address. Linux routes all of 127/8 to the loopback
// interface, so any such address works without configuration.

#include <string>

#include "grpcpp/support/channel_arguments.h"

namespace eb::bench {

// Makes `args` bind every client socket to `ipv4` (port 0) before connecting.
// Also gives the channel its own subchannel pool, so that channels to one
// target are never shared (one TCP connection per simulated agent).
void BindSourceAddress(grpc::ChannelArguments& args, const std::string& ipv4);

// The source address of simulated agent `index`: 127.1.0.1, 127.1.0.2, ...
// (one host per agent; 250 per third octet).
std::string AgentSourceAddress(int index);

}  // namespace eb::bench
