#include "common/rpc/tls.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/io/bounded_file.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"

namespace eb::common {

namespace {

absl::Status CheckPemFile(const std::string& path, const std::string& option, const char* marker) {
  // Bounded and refusing FIFOs and devices: gRPC's own reader (the file
  // watcher below) would block on a FIFO or read /dev/zero until memory ends.
  absl::StatusOr<std::string> text = ReadBoundedFile(path, FileKind::kTlsPem);
  if (!text.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(option, ": ", text.status().message()));
  }
  if (text->find(marker) == std::string::npos) {
    return absl::FailedPreconditionError(
        absl::StrCat(option, ": ", path, " holds no PEM '", marker, "' block"));
  }
  return absl::OkStatus();
}

std::shared_ptr<grpc::experimental::FileWatcherCertificateProvider> MakeProvider(
    const TlsFiles& files) {
  // gRPC re-reads the three files every period and switches to a new key
  // and certificate only when they match each other.
  const int64_t seconds = absl::ToInt64Seconds(files.reload_period);
  return std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      files.key, files.cert, files.ca, static_cast<unsigned int>(seconds < 1 ? 1 : seconds));
}

}  // namespace

absl::Status CheckTlsFiles(const TlsFiles& files, const std::string& prefix) {
  if (!files.enabled()) return absl::OkStatus();
  for (const auto& [value, name] :
       {std::pair{&files.ca, "ca"}, std::pair{&files.cert, "cert"}, std::pair{&files.key, "key"}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "-", name, ": not set (TLS needs ca, cert and key; ", prefix,
                       "-ca, ", prefix, "-cert, ", prefix, "-key or [tls] ca, cert, key)"));
    }
  }
  if (absl::Status status = CheckPemFile(files.ca, prefix + "-ca", "BEGIN CERTIFICATE");
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckPemFile(files.cert, prefix + "-cert", "BEGIN CERTIFICATE");
      !status.ok()) {
    return status;
  }
  struct stat info;
  if (stat(files.key.c_str(), &info) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(prefix, "-key: cannot read ", files.key, ": ", std::strerror(errno)));
  }
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s-key: %s is readable by group or others (mode %04o); refusing to use it: "
        "chmod 600 %s",
        prefix, files.key, info.st_mode & 07777, files.key));
  }
  return CheckPemFile(files.key, prefix + "-key", "PRIVATE KEY");
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

}  // namespace eb::common
