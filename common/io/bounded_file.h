#pragma once

// The one way ebnccl's programs read a file (configs, TLS files, baselines,
// sysfs and /proc values, host facts). Every such file is input that may not
// be what it seems: a FIFO someone put in its place, a device (/dev/zero), a
// directory, a symlink loop, a file of gigabytes. A read here never hangs and
// never aborts: it opens with O_NONBLOCK, refuses anything that is not a
// regular file with an error naming what it is, reads at most the limit of
// its kind of file (kFileLimits), and gives up after a deadline. Raw reads
// elsewhere are refused by tests/style/raw_file_read_check.sh.

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace eb::common {

// What a file is for; each kind has its own size limit (docs/SECURITY.md,
// "Limits").
enum class FileKind {
  kConfig,      // eb-agent / eb-coordinator TOML config
  kTlsPem,      // a CA bundle, certificate chain or private key (PEM)
  kBaselines,   // baselines.toml (validation expectations)
  kSysfsValue,  // one sysfs or /proc attribute (a line)
  kProcTable,   // a /proc or driver table of many lines (/proc/stat, driver info)
  kTopology,    // the coordinator's fabric map ([topology] file: ibnetdiscover or TOML)
};

// The most bytes a file of `kind` may hold.
size_t MaxFileBytes(FileKind kind);
// Its name in error messages ("config file", "TLS file", ...).
const char* FileKindName(FileKind kind);

inline constexpr size_t kMaxConfigFileBytes = size_t{1} << 20;     // 1 MiB
inline constexpr size_t kMaxTlsPemFileBytes = size_t{1} << 20;     // 1 MiB
inline constexpr size_t kMaxBaselinesFileBytes = size_t{4} << 20;  // 4 MiB
inline constexpr size_t kMaxSysfsValueFileBytes = 4096;            // a page
inline constexpr size_t kMaxProcTableFileBytes = size_t{1} << 20;  // 1 MiB
// ibnetdiscover of 8,192 nodes x 8 rails lists each cable from both ends:
// ~150k lines of ~100 bytes; 64 MiB leaves room for long descriptions.
inline constexpr size_t kMaxTopologyFileBytes = size_t{64} << 20;  // 64 MiB
// A read that has not finished after this gives up (a file on a hung network
// file system; checked between reads, so one read the kernel blocks in is
// not cut short).
inline constexpr absl::Duration kFileReadDeadline = absl::Seconds(10);

// The whole content of the file at `path`, at most MaxFileBytes(kind) bytes.
// Errors, each naming the file and, where it is the cause, what it is:
//   NOT_FOUND            it does not exist (or a parent is not a directory)
//   FAILED_PRECONDITION  not a regular file: a FIFO, a character or block
//                        device, a directory, a socket; a symlink loop
//   PERMISSION_DENIED    not readable by this process
//   OUT_OF_RANGE         larger than the limit (read no further than it)
//   DEADLINE_EXCEEDED    not read within `deadline`
//   INTERNAL             another read error
// /dev/null reads as empty: it is the conventional "no file" and never blocks.
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, FileKind kind,
                                            absl::Duration deadline = kFileReadDeadline);

// As above with an explicit byte limit (for a caller's own smaller bound).
absl::StatusOr<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes,
                                            const char* what,
                                            absl::Duration deadline = kFileReadDeadline);

// The first line of a one-value file (sysfs, /proc), without surrounding
// whitespace; errors as ReadBoundedFile with FileKind::kSysfsValue.
absl::StatusOr<std::string> ReadFirstLine(const std::string& path,
                                          size_t max_bytes = kMaxSysfsValueFileBytes);

}  // namespace eb::common
