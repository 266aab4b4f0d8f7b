#pragma once

// What a rank's NCCL really used (issue 29, item 4), from the INFO lines of
// its log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS with INIT, ENV and NET: the
// agent sets them, worker_spec.h): the network transport, the network
// devices NCCL listed, each channel connection's path and NIC, the channel
// count, GPUDirect RDMA, NCCL's version and the NCCL_* settings NCCL read.
// Pure, and the log is untrusted: lines are bounded, garbage is ignored,
// and what the log does not say stays unknown (docs/DESIGN.md, "What NCCL
// really used").

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace eb::agent {

struct NcclUseLimits {
  size_t max_lines = 200000;     // lines read from the head of the log
  size_t max_line_bytes = 2048;  // a longer line is ignored
  size_t max_channels = 512;     // channel connections kept
  size_t max_devices = 64;       // network devices kept
  size_t max_env = 64;           // NCCL_* settings kept
  size_t max_field_bytes = 128;  // a name, path or value is cut here
};

struct NcclChannelUse {
  int channel = 0;
  int peer_rank = -1;
  std::string path;  // after "via ": "NET/IB/1/GDRDMA", "P2P/CUMEM/read"
  std::string nic;   // the device's name for a NET path, else ""
  bool send = true;
};

struct NcclUse {
  // Any "NCCL INFO" line was seen: the other fields mean what they say.
  bool info_level = false;
  std::string nccl_version;              // "2.28.3+cuda13.0"
  std::string net_transport;             // "IB", "Socket", a plugin's name, or ""
  std::vector<std::string> net_devices;  // by NCCL's device index
  std::vector<NcclChannelUse> channels;
  int coll_channels = 0;              // 0: unknown
  std::optional<bool> gdr;            // unset: no network channel seen
  std::vector<std::string> nccl_env;  // "NAME=value", in log order, distinct
  bool truncated = false;             // a bound was reached
};

// Parses the head of rank `self_rank`'s log. Never fails: what it cannot
// read stays unknown.
NcclUse ParseNcclUse(absl::string_view log, int self_rank, const NcclUseLimits& limits = {});

}  // namespace eb::agent
