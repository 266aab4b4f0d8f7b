#pragma once

// The data plane's vocabulary, independent of protobuf and of Abseil so that
// pure code and .cu kernels can share it: one table per vocabulary, each the
// one place that says what its values are (collectives.h, data_types.h,
// reduce_ops.h). Names follow nccl-tests. Text is parsed only on the wire
// side (spec::ParseCollective and friends in common/spec/names.h, to the
// proto enums), from the same rows.

#include "common/transport/collectives.h"
#include "common/transport/data_types.h"
#include "common/transport/reduce_ops.h"
