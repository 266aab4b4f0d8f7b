#include "agent/worker/rendezvous_reply.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eb::worker {

absl::StatusOr<std::vector<std::string>> WaitReplyValues(
    const ebnccl::v1::RendezvousWaitReply& reply, size_t keys, const transport::ValueSlice* slice) {
  if (slice != nullptr && reply.values_size() == 0) {
    const std::string& all = reply.concatenated_values();
    const size_t length = static_cast<size_t>(slice->length);
    if (all.size() != keys * length) {
      return absl::InternalError(absl::StrCat("rendezvous wait: concatenated_values has ",
                                              all.size(), " bytes for ", keys, " keys of ", length,
                                              " bytes"));
    }
    std::vector<std::string> values;
    values.reserve(keys);
    for (size_t i = 0; i < keys; ++i) values.push_back(all.substr(i * length, length));
    return values;
  }
  if (static_cast<size_t>(reply.values_size()) != keys || !reply.concatenated_values().empty()) {
    return absl::InternalError(absl::StrCat(
        "rendezvous wait: ", reply.values_size(), " values for ", keys, " keys",
        reply.concatenated_values().empty() ? "" : ", and concatenated_values besides"));
  }
  if (slice != nullptr) {
    for (int i = 0; i < reply.values_size(); ++i) {
      if (reply.values(i).size() != static_cast<size_t>(slice->length)) {
        return absl::InternalError(absl::StrCat("rendezvous wait: values[", i, "] has ",
                                                reply.values(i).size(), " bytes, the slice ",
                                                slice->length));
      }
    }
  }
  return std::vector<std::string>(reply.values().begin(), reply.values().end());
}

}  // namespace eb::worker
