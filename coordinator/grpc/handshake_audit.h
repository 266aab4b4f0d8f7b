#pragma once

// Failed TLS handshakes in the audit log (issue 32, item 10; P2-6.2), as far
// as gRPC 1.51 (Debian 12) lets the coordinator see them. gRPC refuses a
// failed handshake inside its core: no call is made, so no handler, no
// interceptor and no Authorizer of ours runs; the certificate verifier its
// TLS options offer runs only after OpenSSL has accepted the chain (so
// never for a wrong CA, an expired certificate or a plaintext client); and
// its handshaker keeps the peer's address to itself. Its one trace is the
// log line "Handshake failed with fatal error SSL_ERROR_SSL: error:...:
// <reason>." (GPR_ERROR, src/core/tsi/ssl_transport_security.cc), without
// the peer. HandshakeAudit installs a gRPC log function that writes every
// gRPC line to stderr as gRPC did and turns those lines into audit records:
// at most one a minute per reason (AuditRateLimit), each with the count
// left out since the last one, so a flood of bad handshakes cannot fill the
// audit log. The coordinator makes no gRPC calls of its own, so such a line
// is always a refused client.

#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/time/clock.h"
#include "coordinator/core/budget/audit_rate_limit.h"
#include "coordinator/grpc/audit_log.h"

namespace eb::coordinator {

class HandshakeAudit {
 public:
  // The method of its audit records.
  static constexpr char kMethod[] = "TlsHandshake";

  // Installs the hook (process-wide; the latest HandshakeAudit gets the
  // lines). `audit` and `clock` must outlive this object.
  HandshakeAudit(AuditLog& audit, common::Clock& clock);
  // Stops auditing; gRPC's lines still go to stderr.
  ~HandshakeAudit();
  HandshakeAudit(const HandshakeAudit&) = delete;
  HandshakeAudit& operator=(const HandshakeAudit&) = delete;

  // One gRPC log line, as the hook handles it: audited (rate-limited) when
  // it reports a failed handshake; true then. Thread-safe: gRPC logs from
  // any of its threads.
  bool OnGrpcLog(absl::string_view message);

 private:
  AuditLog& audit_;
  common::Clock& clock_;
  absl::Mutex mu_;
  AuditRateLimit limit_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::coordinator
