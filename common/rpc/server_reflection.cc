#include "common/rpc/server_reflection.h"

#include "grpcpp/ext/proto_server_reflection_plugin.h"

namespace eb::common {

void EnableServerReflection() { grpc::reflection::InitProtoReflectionServerBuilderPlugin(); }

}  // namespace eb::common
