#include "common/config/tls_keys.h"

#include "common/spec/numbers.h"

namespace eb::common {

void AddTlsKeys(ConfigSchema& schema, TlsFiles* tls) {
  schema.String("tls.ca", &tls->ca).Flag("--tls-ca");
  schema.String("tls.cert", &tls->cert).Flag("--tls-cert");
  schema.String("tls.key", &tls->key).Flag("--tls-key");
  // gRPC's file watcher checks at most once a second.
  schema
      .Duration("tls.reload_period", &tls->reload_period, spec::kTlsReloadRange.min,
                spec::kTlsReloadRange.max)
      .Flag("--tls-reload-period-ms");
}

}  // namespace eb::common
