#pragma once

// Which machine an agent runs on, so that the coordinator can tell agents
// that share a host (several agents splitting one host's GPUs to simulate
// nodes) from agents on different hosts. Pure apart from reading the given
// files.

#include <string>

#include "absl/strings/string_view.h"

namespace eb::agent {

struct HostIdentitySources {
  // Random per boot of the kernel: shared by every process and container on
  // the host (containers share the kernel), and different on every other
  // machine even when they were cloned from one image.
  std::string boot_id_file = "/proc/sys/kernel/random/boot_id";
  // Per installation: may be copied along with an image, or be absent in a
  // container, hence only the fallback.
  std::string machine_id_file = "/etc/machine-id";
};

// "boot_id:<id>", else "machine_id:<id>", else "hostname:<hostname>": the
// first source that is readable and not empty (the prefix keeps ids of
// different kinds from ever comparing equal).
std::string HostIdentity(absl::string_view hostname, const HostIdentitySources& sources = {});

}  // namespace eb::agent
