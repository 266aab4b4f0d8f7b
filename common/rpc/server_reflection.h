#pragma once

// gRPC server reflection (what grpcurl lists and describes), for servers an
// operator inspects: the coordinator's. A library of its own so that a
// program that does not call this (the agent) does not load
// libgrpc++_reflection at all.

namespace eb::common {

// Every gRPC server built in this process from now on serves reflection
// (gRPC's plugin is process-wide). Idempotent.
void EnableServerReflection();

}  // namespace eb::common
