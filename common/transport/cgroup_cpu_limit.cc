#include "common/transport/cgroup_cpu_limit.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/io/bounded_file.h"

namespace eb::transport {
namespace {

// mountinfo escapes a space, tab, newline and backslash in a path as octal
// ("\040"); anything else after a backslash is kept as it is.
std::string UnescapeMountPath(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const bool octal = text[i] == '\\' && i + 3 < text.size();
    if (octal && absl::ascii_isdigit(text[i + 1]) && absl::ascii_isdigit(text[i + 2]) &&
        absl::ascii_isdigit(text[i + 3])) {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// `path` with its last component removed ("/a/b" -> "/a", "/a" -> "/").
std::string Parent(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// The levels of `cgroup` from itself up to `root`, as files under `mount`.
void AddLevels(const CpuCgroupMount& mount, std::string cgroup, std::vector<CpuStatFile>& out) {
  if (cgroup.empty() || cgroup.front() != '/' || absl::StrContains(cgroup, "..")) return;
  const std::string& root = mount.root;
  const bool inside = root == "/" || cgroup == root || absl::StartsWith(cgroup, root + "/");
  if (!inside) return;
  for (int level = 0; level < kMaxCgroupLevels; ++level) {
    const std::string below_root = root == "/" ? cgroup : cgroup.substr(root.size());
    std::string dir = mount.mount_point;
    if (below_root != "/") dir += below_root;
    out.push_back({absl::StrCat(dir, "/cpu.stat"), mount.v2});
    if (cgroup == root || cgroup == "/") return;
    cgroup = Parent(cgroup);
  }
}

}  // namespace

std::vector<CpuCgroupMount> ParseCpuCgroupMounts(absl::string_view mountinfo) {
  std::vector<CpuCgroupMount> mounts;
  for (absl::string_view line : absl::StrSplit(mountinfo, '\n', absl::SkipEmpty())) {
    // "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS"
    const std::vector<absl::string_view> halves = absl::StrSplit(line, " - ");
    if (halves.size() != 2) continue;
    const std::vector<absl::string_view> head = absl::StrSplit(halves[0], ' ', absl::SkipEmpty());
    const std::vector<absl::string_view> tail = absl::StrSplit(halves[1], ' ', absl::SkipEmpty());
    if (head.size() < 6 || tail.size() < 3) continue;
    CpuCgroupMount mount;
    mount.root = UnescapeMountPath(head[3]);
    mount.mount_point = UnescapeMountPath(head[4]);
    if (tail[0] == "cgroup2") {
      mount.v2 = true;
    } else if (tail[0] == "cgroup") {
      const std::vector<absl::string_view> options = absl::StrSplit(tail[2], ',');
      if (std::find(options.begin(), options.end(), "cpu") == options.end()) continue;
    } else {
      continue;
    }
    if (mount.root.empty() || mount.root.front() != '/' || mount.mount_point.empty()) continue;
    if (mount.root.size() > 1 && mount.root.back() == '/') mount.root.pop_back();
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

std::vector<CpuStatFile> CpuStatFilesOf(absl::string_view thread_cgroup,
                                        const std::vector<CpuCgroupMount>& mounts) {
  std::vector<CpuStatFile> files;
  for (absl::string_view line : absl::StrSplit(thread_cgroup, '\n', absl::SkipEmpty())) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    const bool v2 = fields[0] == "0" && fields[1].empty();
    const std::vector<absl::string_view> controllers = absl::StrSplit(fields[1], ',');
    const bool v1_cpu =
        std::find(controllers.begin(), controllers.end(), "cpu") != controllers.end();
    if (!v2 && !v1_cpu) continue;
    for (const CpuCgroupMount& mount : mounts) {
      if (mount.v2 == v2) AddLevels(mount, std::string(fields[2]), files);
    }
  }
  return files;
}

absl::StatusOr<double> ParseThrottledUs(absl::string_view cpu_stat, bool v2) {
  const absl::string_view key = v2 ? "throttled_usec" : "throttled_time";
  for (absl::string_view line : absl::StrSplit(cpu_stat, '\n', absl::SkipEmpty())) {
    absl::string_view value = line;
    if (!absl::ConsumePrefix(&value, key) || !absl::ConsumePrefix(&value, " ")) continue;
    uint64_t number = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &number)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cpu.stat: '", line.substr(0, 80), "' is not '", key, " <a whole number>'"));
    }
    return v2 ? static_cast<double>(number) : static_cast<double>(number) / 1e3;
  }
  return 0.0;
}

CpuLimitReader::CpuLimitReader(std::vector<CpuCgroupMount> mounts, std::string thread_cgroup_file)
    : mounts_(std::move(mounts)), thread_cgroup_file_(std::move(thread_cgroup_file)) {}

CpuLimitReader CpuLimitReader::ForThisProcess() {
  absl::StatusOr<std::string> mountinfo =
      common::ReadBoundedFile("/proc/self/mountinfo", common::FileKind::kProcTable);
  return CpuLimitReader(
      mountinfo.ok() ? ParseCpuCgroupMounts(*mountinfo) : std::vector<CpuCgroupMount>{},
      "/proc/thread-self/cgroup");
}

CpuLimitMark CpuLimitReader::Mark() const {
  if (mounts_.empty()) return {};
  absl::StatusOr<std::string> membership =
      common::ReadBoundedFile(thread_cgroup_file_, common::FileKind::kProcTable);
  if (!membership.ok()) return {};
  return Read(CpuStatFilesOf(*membership, mounts_));
}

CpuLimitMark CpuLimitReader::MarkAgain(const CpuLimitMark& begin) const {
  return Read(begin.files);
}

CpuLimitMark CpuLimitReader::Read(std::vector<CpuStatFile> files) {
  CpuLimitMark mark;
  mark.files = std::move(files);
  for (const CpuStatFile& file : mark.files) {
    double us = -1;
    absl::StatusOr<std::string> text =
        common::ReadBoundedFile(file.path, common::FileKind::kProcTable);
    if (text.ok()) {
      if (absl::StatusOr<double> parsed = ParseThrottledUs(*text, file.v2); parsed.ok()) {
        us = *parsed;
      }
    }
    mark.throttled_us.push_back(us);
  }
  return mark;
}

double ThrottledBetween(const CpuLimitMark& begin, const CpuLimitMark& end) {
  double most = 0;
  const size_t n = std::min(
      {begin.files.size(), end.files.size(), begin.throttled_us.size(), end.throttled_us.size()});
  for (size_t i = 0; i < n; ++i) {
    if (begin.files[i].path != end.files[i].path) continue;
    if (begin.throttled_us[i] < 0 || end.throttled_us[i] < 0) continue;
    most = std::max(most, end.throttled_us[i] - begin.throttled_us[i]);
  }
  return most;
}

}  // namespace eb::transport
