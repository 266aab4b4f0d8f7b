#pragma once

// The [tls] section every daemon's TOML file shares: ca, cert, key (flags
// --tls-ca, --tls-cert, --tls-key) and reload_period. docs/CONFIG.md.

#include "common/config/toml_file.h"
#include "common/rpc/tls_files.h"

namespace eb::common {

// Declares tls.ca, tls.cert, tls.key and tls.reload_period bound to `tls`,
// which must outlive the schema.
void AddTlsKeys(ConfigSchema& schema, TlsFiles* tls);

}  // namespace eb::common
