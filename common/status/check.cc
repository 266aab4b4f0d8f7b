#include <cstdio>
#include <cstdlib>

#include "common/status/status_macros.h"
#include "spdlog/spdlog.h"

namespace eb::internal {

void CheckFailed(const char* file, int line, const char* condition) {
  spdlog::critical("check failed at {}:{}: {}", file, line, condition);
  spdlog::default_logger()->flush();
  std::fprintf(stderr, "check failed at %s:%d: %s\n", file, line, condition);
  std::abort();
}

}  // namespace eb::internal
