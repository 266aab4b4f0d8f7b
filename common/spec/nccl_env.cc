#include "common/spec/nccl_env.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/spec/identifiers.h"

namespace eb::spec {
namespace {

// The name as typed when it is short and printable; quoted and cut
// otherwise, so that a refusal never echoes a huge or binary input.
std::string Shown(const std::string& key) {
  const bool plain = key.size() <= 64 && std::all_of(key.begin(), key.end(), [](char c) {
                       return c > ' ' && c < 127 && c != '\'';
                     });
  return plain ? key : Quote(key);
}

}  // namespace

const std::vector<std::string>& AllowedNcclEnv() {
  // Not NCCL_RUNTIME_CONNECT: the worker sets it to 0 so that peers connect
  // during the nonblocking init, which has a deadline and can be aborted;
  // 1 would defer the connects into the first collectives on the blocking
  // data communicator, without a deadline, and break CUDA-graph capture
  // (NCCL cannot connect peers while a stream is capturing).
  static const std::vector<std::string> kAllowed = {"NCCL_ALGO",
                                                    "NCCL_BUFFSIZE",
                                                    "NCCL_CROSS_NIC",
                                                    "NCCL_DEBUG",
                                                    "NCCL_DEBUG_SUBSYS",
                                                    "NCCL_IB_DISABLE",
                                                    "NCCL_IB_QPS_PER_CONNECTION",
                                                    "NCCL_IB_RETRY_CNT",
                                                    "NCCL_IB_TIMEOUT",
                                                    "NCCL_MAX_NCHANNELS",
                                                    "NCCL_MIN_NCHANNELS",
                                                    "NCCL_NET_GDR_LEVEL",
                                                    "NCCL_NTHREADS",
                                                    "NCCL_NVLS_ENABLE",
                                                    "NCCL_P2P_DISABLE",
                                                    "NCCL_P2P_LEVEL",
                                                    "NCCL_PROTO",
                                                    "NCCL_SHM_DISABLE"};
  return kAllowed;
}

absl::Status CheckNcclEnv(const std::map<std::string, std::string>& env) {
  const std::vector<std::string>& allowed = AllowedNcclEnv();
  if (env.size() > static_cast<size_t>(kMaxNcclEnvEntries)) {
    return absl::InvalidArgumentError(
        absl::StrCat("nccl_env: ", env.size(), " variables, at most ", kMaxNcclEnvEntries));
  }
  for (const auto& [key, value] : env) {
    if (key == "NCCL_RUNTIME_CONNECT") {
      return absl::InvalidArgumentError(
          "nccl_env: NCCL_RUNTIME_CONNECT may not be set by a test: the workers connect every "
          "peer during the deadline-guarded init (NCCL_RUNTIME_CONNECT=0), and lazy connects "
          "would happen in the timed collectives without a deadline and break --cudagraph");
    }
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("nccl_env: ", Shown(key),
                       " may not be set by a test (fabric settings such as NCCL_IB_HCA and "
                       "NCCL_SOCKET_IFNAME come from each agent's configuration); allowed: ",
                       absl::StrJoin(allowed, ", ")));
    }
    if (value.size() > static_cast<size_t>(kMaxNcclEnvValueLength)) {
      return absl::InvalidArgumentError(absl::StrCat("nccl_env: ", key, " has a value of ",
                                                     value.size(), " bytes, at most ",
                                                     kMaxNcclEnvValueLength));
    }
    if (value.empty() || value.find_first_of(std::string("\n\r\0", 3)) != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("nccl_env: ", key, " needs a non-empty, single-line value"));
    }
  }
  return absl::OkStatus();
}

}  // namespace eb::spec
