#pragma once

// Mutual TLS for every network connection (docs/SECURITY.md, "Transport
// security and roles"): gRPC's TLS credentials fed by a file-watcher
// certificate provider, so that certificates replaced on disk are used by
// new connections without a restart. gRPC negotiates TLS 1.2 or 1.3 (1.3
// when both ends have it; 1.51 offers no older version).

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "common/rpc/tls_files.h"
#include "common/rpc/tls_mirror.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"

namespace eb::common {

// Checks the files before anything listens or dials: all three are named
// (INVALID_ARGUMENT naming the missing flag), each is a readable PEM file
// (FAILED_PRECONDITION naming it), and the key is not readable by group or
// others (FAILED_PRECONDITION naming the file and its mode). `prefix` names
// the options in messages, e.g. "--tls" gives "--tls-key".
absl::Status CheckTlsFiles(const TlsFiles& files, const std::string& prefix = "--tls");

// Server credentials that require a client certificate issued by `files.ca`
// and verify it.
std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(const TlsFiles& files);

// Channel credentials presenting `files.cert` and verifying the server's
// certificate (issuer `files.ca`, and the target host among its names).
std::shared_ptr<grpc::ChannelCredentials> MakeChannelCredentials(const TlsFiles& files);

// Channel credentials from material read once (ReadTlsMaterial) that does
// not change during the process's life: the load generator's thousands of
// simulated agents, each with a certificate of its own, hold no copies
// and no reload.
std::shared_ptr<grpc::ChannelCredentials> MakeStaticChannelCredentials(const TlsMaterial& material);

}  // namespace eb::common
