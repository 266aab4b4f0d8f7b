#include "common/transport/value_slice.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eb::transport {

absl::StatusOr<absl::string_view> CutSlice(absl::string_view key, absl::string_view value,
                                           ValueSlice slice) {
  const int64_t end = slice.offset + slice.length;
  if (slice.offset < 0 || slice.length < 0 || static_cast<int64_t>(value.size()) < end) {
    return absl::FailedPreconditionError(
        absl::StrCat("rendezvous value of key '", key, "' has ", value.size(),
                     " bytes; the slice [", slice.offset, ", ", end, ") is past its end"));
  }
  return value.substr(static_cast<size_t>(slice.offset), static_cast<size_t>(slice.length));
}

}  // namespace eb::transport
