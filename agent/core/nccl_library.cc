#include "agent/core/nccl_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace eb::agent {

std::string ProbeNcclVersion() {
  void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return "";
  using GetVersion = int (*)(int*);
  auto get_version = reinterpret_cast<GetVersion>(dlsym(library, "ncclGetVersion"));
  std::string version;
  int code = 0;
  if (get_version != nullptr && get_version(&code) == 0 && code > 0) {
    // NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9.
    version = absl::StrCat(code / 10000, ".", (code / 100) % 100, ".", code % 100);
  }
  dlclose(library);
  return version;
}

}  // namespace eb::agent
