#include "agent/worker/nccl_version.h"

#include "absl/strings/str_cat.h"
#ifdef EB_HAVE_NCCL
#include "common/transport/nccl/nccl_communicator.h"
#endif

namespace eb::worker {

std::string FormatNcclVersionCode(int code) {
  const int major_unit = code >= 10000 ? 10000 : 1000;
  return absl::StrCat(code / major_unit, ".", (code % major_unit) / 100, ".", code % 100);
}

absl::StatusOr<std::string> LoadedNcclVersion() {
#ifdef EB_HAVE_NCCL
  absl::StatusOr<int> code = transport::NcclRuntimeVersion();
  if (!code.ok()) return code.status();
  return FormatNcclVersionCode(*code);
#else
  return std::string("none");
#endif
}

}  // namespace eb::worker
