#include "common/rpc/tls_mirror.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/io/bounded_file.h"
#include "common/io/write_all.h"
#include "spdlog/spdlog.h"

namespace eb::common {

namespace {

absl::StatusOr<std::string> ReadPemFile(const std::string& path, const std::string& option,
                                        const char* marker) {
  // Bounded and refusing FIFOs and devices (common/io/bounded_file.h).
  absl::StatusOr<std::string> text = ReadBoundedFile(path, FileKind::kTlsPem);
  if (!text.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(option, ": ", text.status().message()));
  }
  if (text->find(marker) == std::string::npos) {
    return absl::FailedPreconditionError(
        absl::StrCat(option, ": ", path, " holds no PEM '", marker, "' block"));
  }
  return text;
}

absl::Status CheckKeyIsPrivate(const std::string& path, const std::string& option) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(option, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s: %s is readable by group or others (mode %04o); refusing to use it: chmod 600 %s",
        option, path, info.st_mode & 07777, path));
  }
  return absl::OkStatus();
}

// A new in-memory file holding `content`, or -1 with errno set.
int MemoryFileWith(const std::string& content, const char* name) {
  const int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (!WriteAll(fd, content)) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

}  // namespace

absl::StatusOr<TlsMaterial> ReadTlsMaterial(const TlsFiles& files, const std::string& prefix) {
  for (const auto& [value, name] :
       {std::pair{&files.ca, "ca"}, std::pair{&files.cert, "cert"}, std::pair{&files.key, "key"}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "-", name, ": not set (TLS needs ca, cert and key; ", prefix,
                       "-ca, ", prefix, "-cert, ", prefix, "-key or [tls] ca, cert, key)"));
    }
  }
  TlsMaterial material;
  absl::StatusOr<std::string> ca = ReadPemFile(files.ca, prefix + "-ca", "BEGIN CERTIFICATE");
  if (!ca.ok()) return ca.status();
  absl::StatusOr<std::string> cert = ReadPemFile(files.cert, prefix + "-cert", "BEGIN CERTIFICATE");
  if (!cert.ok()) return cert.status();
  if (absl::Status key_mode = CheckKeyIsPrivate(files.key, prefix + "-key"); !key_mode.ok()) {
    return key_mode;
  }
  absl::StatusOr<std::string> key = ReadPemFile(files.key, prefix + "-key", "PRIVATE KEY");
  if (!key.ok()) return key.status();
  material.ca = *std::move(ca);
  material.cert = *std::move(cert);
  material.key = *std::move(key);
  return material;
}

TlsFileMirror::TlsFileMirror(TlsFiles files, std::string prefix)
    : files_(std::move(files)), prefix_(std::move(prefix)) {
  copies_.reload_period = files_.reload_period;
}

absl::StatusOr<std::unique_ptr<TlsFileMirror>> TlsFileMirror::Start(const TlsFiles& files,
                                                                    const std::string& prefix) {
  std::unique_ptr<TlsFileMirror> mirror(new TlsFileMirror(files, prefix));
  absl::StatusOr<TlsMaterial> material = ReadTlsMaterial(files, prefix);
  if (!material.ok()) return material.status();
  absl::MutexLock lock(&mirror->mu_);
  if (absl::Status written = mirror->Write(*material); !written.ok()) return written;
  std::string* paths[] = {&mirror->copies_.ca, &mirror->copies_.cert, &mirror->copies_.key};
  for (size_t i = 0; i < 3; ++i) *paths[i] = absl::StrCat("/proc/self/fd/", mirror->fds_[i]);
  return mirror;
}

TlsFileMirror::~TlsFileMirror() {
  absl::MutexLock lock(&mu_);
  for (const int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

absl::Status TlsFileMirror::Write(const TlsMaterial& material) {
  const std::pair<const std::string*, const char*> parts[] = {{&material.ca, "ebnccl-tls-ca"},
                                                              {&material.cert, "ebnccl-tls-cert"},
                                                              {&material.key, "ebnccl-tls-key"}};
  // All three new copies first: a set is replaced whole or not at all.
  int fresh[3] = {-1, -1, -1};
  for (size_t i = 0; i < 3; ++i) {
    fresh[i] = MemoryFileWith(*parts[i].first, parts[i].second);
    if (fresh[i] < 0) {
      const int saved = errno;
      for (const int fd : fresh) {
        if (fd >= 0) close(fd);
      }
      return absl::InternalError(
          absl::StrCat(prefix_, ": cannot hold the TLS files in memory: ", std::strerror(saved)));
    }
  }
  for (size_t i = 0; i < 3; ++i) {
    if (fds_[i] < 0) {
      // The first copy keeps its descriptor for the mirror's life: the
      // path gRPC is given.
      fds_[i] = fresh[i];
      continue;
    }
    // Atomic for anyone opening the path: the old file or the new one.
    const int moved = dup3(fresh[i], fds_[i], O_CLOEXEC);
    const int saved = errno;
    close(fresh[i]);
    if (moved < 0) {
      return absl::InternalError(
          absl::StrCat(prefix_, ": cannot replace a TLS file's copy: ", std::strerror(saved)));
    }
  }
  return absl::OkStatus();
}

absl::Status TlsFileMirror::Refresh() {
  // Read outside the lock: a slow file system delays only this refresh.
  absl::StatusOr<TlsMaterial> material = ReadTlsMaterial(files_, prefix_);
  absl::MutexLock lock(&mu_);
  absl::Status status = material.ok() ? Write(*material) : material.status();
  if (status.ok()) {
    last_error_.clear();
    return status;
  }
  ++refused_;
  if (status.message() != last_error_) {
    last_error_ = std::string(status.message());
    spdlog::warn("TLS files not reloaded, the last good ones stay in use: {}", last_error_);
  }
  return status;
}

int TlsFileMirror::refused() const {
  absl::MutexLock lock(&mu_);
  return refused_;
}

namespace {

class TlsMirrors {
 public:
  absl::StatusOr<TlsFiles> CopiesOf(const TlsFiles& files, const std::string& prefix) {
    const std::string key = absl::StrCat(files.ca, "\n", files.cert, "\n", files.key, "\n",
                                         absl::FormatDuration(files.reload_period));
    absl::MutexLock lock(&mu_);
    if (auto it = mirrors_.find(key); it != mirrors_.end()) return it->second.mirror->copies();
    absl::StatusOr<std::unique_ptr<TlsFileMirror>> mirror = TlsFileMirror::Start(files, prefix);
    if (!mirror.ok()) return mirror.status();
    const TlsFiles copies = (*mirror)->copies();
    mirrors_.emplace(key, Entry{*std::move(mirror), absl::Now() + Period(files)});
    if (!started_) {
      started_ = true;
      std::thread([this] { RefreshForever(); }).detach();
    }
    return copies;
  }

 private:
  struct Entry {
    std::unique_ptr<TlsFileMirror> mirror;
    absl::Time due;
  };
  static absl::Duration Period(const TlsFiles& files) {
    return std::max(files.reload_period, absl::Seconds(1));
  }
  // Mirrors are never removed, so a pointer taken under the lock stays
  // valid while the refresh reads files without it.
  void RefreshForever() {
    while (true) {
      absl::SleepFor(absl::Seconds(1));
      std::vector<TlsFileMirror*> due;
      {
        absl::MutexLock lock(&mu_);
        const absl::Time now = absl::Now();
        for (auto& [key, entry] : mirrors_) {
          if (entry.due > now) continue;
          entry.due = now + Period(entry.mirror->copies());
          due.push_back(entry.mirror.get());
        }
      }
      for (TlsFileMirror* mirror : due) (void)mirror->Refresh();
    }
  }

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> mirrors_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

absl::StatusOr<TlsFiles> MirroredTlsFiles(const TlsFiles& files, const std::string& prefix) {
  static TlsMirrors* const mirrors = new TlsMirrors();  // never destroyed: its thread runs on
  return mirrors->CopiesOf(files, prefix);
}

}  // namespace eb::common
