#include "common/transport/cpu_pattern.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/transport/host_type_dispatch.h"
#include "common/transport/types.h"

namespace eb::transport {
namespace {

constexpr absl::string_view kWho = "the host data pattern";

absl::Status Validate(const DataPattern& data, int rank) {
  const CollectiveCall& call = data.call;
  if (data.world_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("world_size: must be >= 1, got ", data.world_size));
  }
  if (rank < 0 || rank >= data.world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank: ", rank, " is outside [0, ", data.world_size, ")"));
  }
  if (IsRooted(call.collective) && (call.root < 0 || call.root >= data.world_size)) {
    return absl::InvalidArgumentError(
        absl::StrCat("root: ", call.root, " is outside [0, ", data.world_size, ")"));
  }
  if (call.count > 0 && (call.send == nullptr || call.recv == nullptr)) {
    return absl::InvalidArgumentError("call: send and recv must not be null");
  }
  return absl::OkStatus();
}

template <typename T>
void FillTyped(const pattern::PatternSpec& spec, int rank, const CollectiveCall& call) {
  // const_cast: the send pointer is const in CollectiveCall because the
  // collective only reads it; filling is the one writer.
  T* send = static_cast<T*>(const_cast<void*>(call.send));
  const uint64_t n = pattern::SendElements(spec);
  for (uint64_t i = 0; i < n; ++i) send[i] = pattern::Input<T>(spec, rank, i);
}

template <typename T>
int64_t CountWrongTyped(const pattern::PatternSpec& spec, int rank, const CollectiveCall& call) {
  const T* recv = static_cast<const T*>(call.recv);
  const uint64_t n = pattern::RecvElements(spec, rank);
  int64_t wrong = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (!pattern::ElementTraits<T>::Equal(recv[i], pattern::Expected<T>(spec, rank, i))) ++wrong;
  }
  return wrong;
}

}  // namespace

pattern::PatternSpec ToPatternSpec(const DataPattern& data) {
  pattern::PatternSpec spec;
  spec.collective = data.call.collective;
  spec.op = data.call.op;
  spec.nranks = data.world_size;
  spec.root = data.call.root;
  spec.seed = data.seed;
  spec.count = data.call.count;
  return spec;
}

absl::Status CpuFillInput(const DataPattern& data, int rank) {
  if (absl::Status s = Validate(data, rank); !s.ok()) return s;
  if (data.call.count == 0) return absl::OkStatus();
  const pattern::PatternSpec spec = ToPatternSpec(data);
  return DispatchHostType(data.call.type, kWho, [&]<typename T>() {
    std::memset(data.call.recv, 0xFF, pattern::RecvElements(spec, rank) * sizeof(T));
    FillTyped<T>(spec, rank, data.call);
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> CpuCountWrong(const DataPattern& data, int rank) {
  if (absl::Status s = Validate(data, rank); !s.ok()) return s;
  if (data.call.count == 0) return 0;
  const pattern::PatternSpec spec = ToPatternSpec(data);
  int64_t wrong = 0;
  absl::Status status = DispatchHostType(data.call.type, kWho, [&]<typename T>() {
    wrong = CountWrongTyped<T>(spec, rank, data.call);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return wrong;
}

}  // namespace eb::transport
