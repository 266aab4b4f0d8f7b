#include "common/rpc/tls.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/rpc/tls_mirror.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "spdlog/spdlog.h"

namespace eb::common {

namespace {

// gRPC's file watcher, pointed at the in-memory copies our bounded reader
// keeps fresh (tls_mirror.h): gRPC itself never opens the operator's
// files, which could be a FIFO or /dev/zero by the time it re-reads them.
// gRPC switches to a new key and certificate only when they match.
std::shared_ptr<grpc::experimental::CertificateProviderInterface> MakeProvider(
    const TlsFiles& files) {
  absl::StatusOr<TlsFiles> copies = MirroredTlsFiles(files, "--tls");
  if (!copies.ok()) {
    // Checked at start (CheckTlsFiles); gone or refused since: no handshake
    // will succeed, and the log says why (never the files read unbounded).
    spdlog::error("TLS files cannot be used: {}", std::string(copies.status().message()));
    return std::make_shared<grpc::experimental::StaticDataCertificateProvider>("");
  }
  const int64_t seconds = absl::ToInt64Seconds(copies->reload_period);
  return std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      copies->key, copies->cert, copies->ca, static_cast<unsigned int>(seconds < 1 ? 1 : seconds));
}

}  // namespace

absl::Status CheckTlsFiles(const TlsFiles& files, const std::string& prefix) {
  if (!files.enabled()) return absl::OkStatus();
  return ReadTlsMaterial(files, prefix).status();
}

std::shared_ptr<grpc::ServerCredentials> MakeServerCredentials(const TlsFiles& files) {
  grpc::experimental::TlsServerCredentialsOptions options(MakeProvider(files));
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  return grpc::experimental::TlsServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> MakeChannelCredentials(const TlsFiles& files) {
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(MakeProvider(files));
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  return grpc::experimental::TlsCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials> MakeStaticChannelCredentials(
    const TlsMaterial& material) {
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_certificate_provider(
      std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
          material.ca,
          std::vector<grpc::experimental::IdentityKeyCertPair>{{material.key, material.cert}}));
  options.watch_root_certs();
  options.watch_identity_key_cert_pairs();
  return grpc::experimental::TlsCredentials(options);
}

}  // namespace eb::common
