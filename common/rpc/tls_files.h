#pragma once

// Where a daemon or ebctl finds its TLS material ([tls] ca, cert, key in the
// TOML files; --tls-ca, --tls-cert, --tls-key). Plain data without gRPC, so
// that the config schemas (eb_config) can fill it.

#include <string>

#include "absl/time/time.h"

namespace eb::common {

struct TlsFiles {
  // PEM bundle of the fleet CA: the only issuer whose certificates are
  // accepted from the peer.
  std::string ca;
  // PEM certificate chain of this process and its private key (mode 0600).
  std::string cert;
  std::string key;
  // How often the files are re-read: replaced files take effect for new
  // connections within this period, without a restart.
  absl::Duration reload_period = absl::Seconds(10);

  // Whether any of the three files is named (CheckTlsFiles then wants all).
  bool enabled() const { return !ca.empty() || !cert.empty() || !key.empty(); }
};

}  // namespace eb::common
