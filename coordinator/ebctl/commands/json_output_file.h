#pragma once

// nccl-tests -J FILE for `ebctl run-test`: the file that receives the JSON
// report. Created as nccl-tests' jsonOutputInit does: exclusively, with
// ".0", ".1", ... appended while the name is taken (nccl-tests 2.19); before the test runs,
// so that a path that cannot be written fails before anything starts.

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace eb::ebctl {

// Owns the open file. One that is never written (no report came back:
// refused, unreachable, interrupted) is closed and removed on destruction,
// so that no empty file is left. Move-only; not thread-safe.
class JsonOutputFile {
 public:
  // Creates `path`, or the first of path.0 to path.998 that does not exist.
  // INVALID_ARGUMENT naming -J/--output-file when it cannot be created or
  // every name is taken.
  static absl::StatusOr<JsonOutputFile> Create(const std::string& path);

  // No file: is_open() is false.
  JsonOutputFile() = default;
  JsonOutputFile(JsonOutputFile&& other) noexcept;
  JsonOutputFile& operator=(JsonOutputFile&& other) noexcept;
  JsonOutputFile(const JsonOutputFile&) = delete;
  JsonOutputFile& operator=(const JsonOutputFile&) = delete;
  ~JsonOutputFile();

  // Created and neither written nor removed yet.
  bool is_open() const { return fd_ >= 0; }
  // The name created: the path given or path.N.
  const std::string& name() const { return name_; }

  // Writes `text` and closes the file, which stays (even half-written, as
  // nccl-tests leaves what it wrote). INTERNAL naming the file and the
  // system's error when writing or closing fails.
  absl::Status WriteAndClose(const std::string& text);

 private:
  JsonOutputFile(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  // Closes and removes the file if it is still open.
  void Discard();

  int fd_ = -1;
  std::string name_;
};

}  // namespace eb::ebctl
