#pragma once

// Failed handshakes and refused sessions are audited (issue 32, item 10),
// but a flood of them must not fill the audit log: each key (a peer
// address) gets at most one record per interval, and that record says how
// many were left out since the last one. Pure: the caller passes the time;
// not thread-safe (callers on several threads hold a mutex).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace eb::coordinator {

class AuditRateLimit {
 public:
  // Keys tracked one by one; beyond, keys share one entry ("(other)"), so a
  // peer inventing addresses costs no memory and still at most one record
  // per interval.
  static constexpr size_t kMaxKeys = 4096;

  explicit AuditRateLimit(absl::Duration interval = absl::Minutes(1)) : interval_(interval) {}

  // One event of `key` at `now`. When it is to be recorded: the number of
  // events of that key left out since its last record (0 for the first);
  // nullopt when it is left out (and counted).
  std::optional<uint64_t> Admit(const std::string& key, absl::Time now);

  // Events seen and left out so far, all keys.
  uint64_t seen() const { return seen_; }
  uint64_t suppressed() const { return suppressed_total_; }

 private:
  struct Entry {
    absl::Time last_recorded;
    uint64_t suppressed = 0;
  };
  absl::Duration interval_;
  std::map<std::string, Entry> entries_;
  uint64_t seen_ = 0;
  uint64_t suppressed_total_ = 0;
};

// The one way a refused message of a node becomes a log line (its kind of
// refusal is `key`): `line` when `limit` admits it, with the count left out
// since ("... (12 more such refusals not logged since)"); nullopt when left
// out. A null `limit` admits every line.
std::optional<std::string> RateLimitedLine(AuditRateLimit* limit, const std::string& key,
                                           absl::Time now, const std::string& line);

// The one way a rate-limited audit record says what it left out: `status`
// with "; N <what>" after its message when `left_out` (Admit's answer) is
// N > 0 ("...; 63 more from 10.0.0.7 since the last record"); `status`
// itself for a key's first record.
absl::Status WithLeftOut(const absl::Status& status, uint64_t left_out, absl::string_view what);

}  // namespace eb::coordinator
