#pragma once

// Vocabulary of the data plane, independent of protobuf and of CUDA so that
// pure code and .cu kernels can share it. Names follow nccl-tests.

#include <cstddef>

#include "common/transport/enums.h"

namespace eb::transport {

// Collective, DataType and ReduceOp are defined in enums.h (no Abseil, so
// that .cu files can include them).

// Bytes per element (1, 2, 4 or 8). Pure; thread-safe.
size_t DataTypeSize(DataType type);

// nccl-tests names: "all_reduce", ..., "sendrecv"; "float", "int8", "half",
// "bfloat16", "f8e4m3", ...; "sum", "prod", "max", "min", "avg". Returns a
// static string ("unknown" for a value outside the enum). Thread-safe.
// Text is parsed only on the wire side (spec::ParseCollective and friends in
// common/spec/names.h, to the proto enums); tests/unit/spec/proto_enums_test.cc
// checks that both sides print the same names.
const char* Name(Collective collective);
const char* Name(DataType type);
const char* Name(ReduceOp op);

// True for collectives that apply a reduction operator (all_reduce, reduce,
// reduce_scatter); the others print redop "none" like nccl-tests.
bool IsReducing(Collective collective);
// True for collectives with a root rank (broadcast, reduce); the others print
// root -1 like nccl-tests.
bool IsRooted(Collective collective);

}  // namespace eb::transport
