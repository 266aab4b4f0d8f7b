#pragma once

// Silences what the code under test logs (spdlog) and protobuf's complaints
// about invalid UTF-8 in mutated strings: printing costs more than the input
// itself. Call from LLVMFuzzerInitialize.

#include "google/protobuf/stubs/logging.h"
#include "spdlog/spdlog.h"

namespace eb::fuzz {

inline void Quiet() {
  spdlog::set_level(spdlog::level::off);
  google::protobuf::SetLogHandler(nullptr);
}

}  // namespace eb::fuzz
