#pragma once

// The coordinator's `--nccl-env` policy is the one shared with the agents:
// common/spec/nccl_env.h holds the single definition.

#include "common/spec/nccl_env.h"

namespace eb::coordinator {

using spec::AllowedNcclEnv;
using spec::CheckNcclEnv;

}  // namespace eb::coordinator
