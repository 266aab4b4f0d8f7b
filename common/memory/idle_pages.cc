#include "common/memory/idle_pages.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/io/bounded_file.h"
#include "common/memory/smaps.h"

namespace eb::common {
namespace {

absl::StatusOr<std::string> ReadProcFile(const char* path) {
  return ReadBoundedFile(path, FileKind::kProcTable);
}

// The "Rss:" of /proc/self/smaps_rollup, in kB; -1 when it cannot be read.
int64_t ResidentKb() {
  absl::StatusOr<std::string> rollup = ReadProcFile("/proc/self/smaps_rollup");
  if (!rollup.ok()) return -1;
  for (absl::string_view line : absl::StrSplit(*rollup, '\n')) {
    if (!absl::ConsumePrefix(&line, "Rss:")) continue;
    line = absl::StripAsciiWhitespace(line);
    int64_t kb = -1;
    if (absl::ConsumeSuffix(&line, " kB") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &kb)) {
      return kb;
    }
  }
  return -1;
}

}  // namespace

absl::StatusOr<ReturnedPages> ReturnIdlePages() {
  ReturnedPages returned;
  returned.rss_before_kb = ResidentKb();
  malloc_trim(0);
  absl::StatusOr<std::string> text = ReadProcFile("/proc/self/smaps");
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<Mapping>> mappings = ParseSmaps(*text);
  if (!mappings.ok()) return mappings.status();
  for (const Mapping& mapping : *mappings) {
    if (!PagesAreFileCopies(mapping)) continue;
    // The mapping's own pages were checked just above, and a read-only
    // mapping gets none without an mprotect that only the dynamic loader
    // does, to libraries it is loading (not in this list).
    if (madvise(reinterpret_cast<void*>(mapping.start), mapping.end - mapping.start,
                MADV_DONTNEED) != 0) {
      return absl::InternalError(
          absl::StrCat("madvise(MADV_DONTNEED) of ", mapping.path, ": ", std::strerror(errno)));
    }
    ++returned.mappings;
  }
  returned.rss_after_kb = ResidentKb();
  return returned;
}

}  // namespace eb::common
