#pragma once

// What gRPC's TLS file watcher reads (issue 32, item 4): only material our
// bounded reader approved. gRPC's FileWatcherCertificateProvider re-reads
// its three files every period with its own reader, which would block its
// thread on a FIFO put in a file's place and read /dev/zero until memory
// ends (the startup check, CheckTlsFiles, saw the files only once). So the
// watcher is pointed at in-memory copies instead: one memfd per file
// (/proc/self/fd/N; nothing written to disk, gone with the process), which
// a refresher fills from the real files through ReadTlsMaterial every
// period. A refresh that finds anything wrong (a FIFO, a device, a file
// over its limit, no PEM block, a key readable by others) keeps the last
// good set, all three files together, and says why once per distinct
// reason. A good new set replaces a copy by dup2 of a new memfd onto the
// same descriptor, so gRPC opens either the old file or the new one, never
// a half-written one.

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/rpc/tls_files.h"

namespace eb::common {

// The three files' content, each checked as CheckTlsFiles checks it.
struct TlsMaterial {
  std::string ca;
  std::string cert;
  std::string key;
};

// Reads and checks `files` (all three named, regular files within the TLS
// file limit, PEM blocks, the key not readable by group or others); errors
// name the option (`prefix` + "-ca"...) as CheckTlsFiles documents.
absl::StatusOr<TlsMaterial> ReadTlsMaterial(const TlsFiles& files, const std::string& prefix);

// The in-memory copies of one set of TLS files (no thread of its own:
// TlsMirrors refreshes it).
class TlsFileMirror {
 public:
  // Reads the files once (errors as ReadTlsMaterial) and holds them.
  static absl::StatusOr<std::unique_ptr<TlsFileMirror>> Start(const TlsFiles& files,
                                                              const std::string& prefix);
  ~TlsFileMirror();
  TlsFileMirror(const TlsFileMirror&) = delete;
  TlsFileMirror& operator=(const TlsFileMirror&) = delete;

  // The copies' paths (/proc/self/fd/N) and the same reload period: what
  // gRPC's file watcher is given.
  const TlsFiles& copies() const { return copies_; }

  // Re-reads the real files now: OK when the copies now hold them; else
  // the error (logged once per distinct reason), and the copies keep the
  // last good set.
  absl::Status Refresh();

  // Refreshes that found something wrong, since the start.
  int refused() const;

 private:
  TlsFileMirror(TlsFiles files, std::string prefix);
  absl::Status Write(const TlsMaterial& material) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const TlsFiles files_;
  const std::string prefix_;
  TlsFiles copies_;  // set once by Start
  mutable absl::Mutex mu_;
  int fds_[3] ABSL_GUARDED_BY(mu_) = {-1, -1, -1};  // ca, cert, key
  int refused_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_error_ ABSL_GUARDED_BY(mu_);
};

// The process's mirrors, one per set of files, never destroyed, refreshed
// by one thread (started with the first) each at its files' reload period.
// Every gRPC credential of ours is made from these copies.
// Thread-safe.
absl::StatusOr<TlsFiles> MirroredTlsFiles(const TlsFiles& files, const std::string& prefix);

}  // namespace eb::common
