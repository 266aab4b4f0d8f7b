#pragma once

// An idle daemon gives back the memory it touched only to start or to run
// a test: the free pages of its heap (malloc_trim), and its resident pages
// that are clean copies of files (smaps.h: PagesAreFileCopies), such as the
// code and tables of libgrpc, libcrypto and libprotobuf that ran once at
// start-up. Those stay in the page cache, shared and reclaimable: nothing
// is lost, a page used again is mapped again on its next access (a minor
// fault), and the resident set is left with what the idle process really
// uses. The kernel maps a file's pages 16 at a time around each one
// touched, so that set is much smaller than what start-up mapped.

#include <cstdint>

#include "absl/status/statusor.h"

namespace eb::common {

struct ReturnedPages {
  int64_t rss_before_kb = 0;
  int64_t rss_after_kb = 0;
  int mappings = 0;  // file mappings whose pages were dropped
};

// Does the above for this process. Any thread; takes a few milliseconds.
// An error says which step failed (reading smaps, madvise); nothing is lost
// either way.
absl::StatusOr<ReturnedPages> ReturnIdlePages();

}  // namespace eb::common
