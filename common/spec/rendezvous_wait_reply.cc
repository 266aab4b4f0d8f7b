#include "common/spec/rendezvous_wait_reply.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace eb::spec {
namespace v1 = ebnccl::v1;

void SetWaitSlice(const transport::ValueSlice& slice, v1::RendezvousWaitRequest* request) {
  v1::RendezvousSlice& wanted = *request->mutable_slice();
  wanted.set_offset(slice.offset);
  wanted.set_length(slice.length);
  wanted.set_concatenated(true);
}

bool WantsConcatenatedReply(const v1::RendezvousWaitRequest& request) {
  return request.has_slice() && request.slice().concatenated();
}

WaitReplyWriter::WaitReplyWriter(bool concatenated, size_t keys, size_t value_bytes)
    : concatenated_(concatenated) {
  if (concatenated_) {
    values_.emplace_back().reserve(keys * value_bytes);
  } else {
    values_.reserve(keys);
  }
}

void WaitReplyWriter::Add(absl::string_view value) {
  if (concatenated_) {
    values_.front().append(value.data(), value.size());
  } else {
    values_.emplace_back(value);
  }
}

std::vector<std::string> WaitReplyWriter::Take() && { return std::move(values_); }

void SetWaitReplyValues(std::vector<std::string> values, bool concatenated,
                        v1::RendezvousWaitReply* reply) {
  if (concatenated) {
    reply->set_concatenated_values(std::move(values.front()));
    return;
  }
  for (std::string& value : values) reply->add_values(std::move(value));
}

namespace {

absl::StatusOr<std::vector<std::string>> SplitConcatenated(const v1::RendezvousWaitReply& reply,
                                                           size_t keys, size_t length) {
  const std::string& all = reply.concatenated_values();
  if (all.size() != keys * length) {
    return absl::InternalError(absl::StrCat("rendezvous wait: concatenated_values has ", all.size(),
                                            " bytes for ", keys, " keys of ", length, " bytes"));
  }
  std::vector<std::string> values;
  values.reserve(keys);
  for (size_t i = 0; i < keys; ++i) values.push_back(all.substr(i * length, length));
  return values;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> WaitReplyValues(const v1::RendezvousWaitReply& reply,
                                                         size_t keys,
                                                         const transport::ValueSlice* slice) {
  if (slice != nullptr && reply.values_size() == 0) {
    return SplitConcatenated(reply, keys, static_cast<size_t>(slice->length));
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

}  // namespace eb::spec
