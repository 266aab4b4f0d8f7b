#pragma once

// Reading /proc/PID/smaps (pure): the mappings of a process, and which of
// their pages an idle process can give back to the kernel without losing
// anything (idle_pages.h does the giving).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace eb::common {

// One mapping of smaps, with the sizes this file uses (kB, as smaps gives
// them).
struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;         // exclusive
  std::string permissions;  // "r-xp", "rw-p", ...
  std::string path;         // "" for anonymous memory; "[heap]", "/usr/lib/..."
  int64_t rss_kb = 0;
  int64_t anonymous_kb = 0;  // private pages of its own (copied on write)
  int64_t swap_kb = 0;
  int64_t locked_kb = 0;
  std::vector<std::string> vm_flags;  // "rd", "ex", "mr", ...
};

// At most this much smaps text is parsed (a process with tens of thousands
// of mappings has no business here).
inline constexpr size_t kMaxSmapsBytes = 16 << 20;

// Parses the text of /proc/PID/smaps. INVALID_ARGUMENT names the line that
// is not smaps, or the size above kMaxSmapsBytes.
absl::StatusOr<std::vector<Mapping>> ParseSmaps(absl::string_view text);

// Whether the resident pages of `mapping` are all clean copies of a file
// that it still maps: a file's read-only mapping (no 'w') with no page of
// its own (anonymous), none swapped (a page of its own may be there), none
// locked, not special (I/O or PFN ranges), and the file not deleted.
// Dropping such pages (MADV_DONTNEED) loses nothing: a later access reads
// them again from the page cache. Relocated pages (RELRO) are the process's
// own and keep their mapping out.
bool PagesAreFileCopies(const Mapping& mapping);

}  // namespace eb::common
