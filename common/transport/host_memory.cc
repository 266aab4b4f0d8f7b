#include "common/transport/host_memory.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eb::transport {

absl::StatusOr<HostMemory> HostMemory::Allocate(size_t bytes) {
  // calloc: zeroed, so that a benchmark never reads indeterminate bytes (even
  // in its untimed warm-up), and for large sizes the kernel supplies zero
  // pages lazily instead of us touching every page up front. glibc aligns
  // it to 16 bytes, more than any element type needs.
  void* p = std::calloc(bytes == 0 ? 1 : bytes, 1);
  if (p == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", bytes, " bytes of host memory"));
  }
  return HostMemory(static_cast<uint8_t*>(p), bytes);
}

}  // namespace eb::transport
