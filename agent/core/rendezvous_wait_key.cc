#include "agent/core/rendezvous_wait_key.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace eb::agent {

std::string RendezvousWaitKey(const ebnccl::v1::RendezvousWaitRequest& request) {
  ebnccl::v1::RendezvousWaitRequest asked = request;
  asked.clear_timeout_ms();
  // Deterministic: the same fields give the same bytes in every call.
  std::string key;
  {
    google::protobuf::io::StringOutputStream stream(&key);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    asked.SerializeToCodedStream(&coded);
  }
  return key;
}

}  // namespace eb::agent
