#include "common/transport/tcp_link/ring_frame.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace eb::transport {
namespace {

constexpr absl::string_view kHelloMagic = "EBRH";
constexpr absl::string_view kFrameMagic = "EBRF";

// Hello layout.
constexpr size_t kHelloVersionAt = 4;
constexpr size_t kHelloFromAt = 8;
constexpr size_t kHelloToAt = 12;
constexpr size_t kHelloWorldAt = 16;
constexpr size_t kHelloPaddingAt = 20;
constexpr size_t kHelloTokenAt = 24;
// Frame layout.
constexpr size_t kFramePaddingAt = 4;
constexpr size_t kFrameSeqAt = 8;
constexpr size_t kFrameBytesAt = 16;

template <size_t N>
void Put(std::array<char, N>& out, size_t at, uint64_t value, size_t bytes) {
  for (size_t i = bytes; i > 0; --i) {
    out[at + i - 1] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
}

uint64_t Get(absl::string_view in, size_t at, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(in[at + i]);
  return value;
}

template <size_t N>
void PutMagic(std::array<char, N>& out, absl::string_view magic) {
  for (size_t i = 0; i < magic.size(); ++i) out[i] = magic[i];
}

}  // namespace

std::array<char, kRingHelloBytes> EncodeRingHello(const RingHello& hello) {
  std::array<char, kRingHelloBytes> out{};
  PutMagic(out, kHelloMagic);
  Put(out, kHelloVersionAt, kRingLinkVersion, 4);
  Put(out, kHelloFromAt, static_cast<uint32_t>(hello.from_rank), 4);
  Put(out, kHelloToAt, static_cast<uint32_t>(hello.to_rank), 4);
  Put(out, kHelloWorldAt, static_cast<uint32_t>(hello.world_size), 4);
  Put(out, kHelloTokenAt, hello.token, 8);
  return out;
}

absl::Status CheckRingHello(absl::string_view bytes, const RingHello& expected) {
  const std::string where = absl::StrCat("ring link from rank ", expected.from_rank, ": hello ");
  if (bytes.size() != kRingHelloBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "size: ", bytes.size(), " bytes, expected ", kRingHelloBytes));
  }
  if (bytes.substr(0, kHelloMagic.size()) != kHelloMagic) {
    return absl::InvalidArgumentError(absl::StrCat(where, "magic: not \"", kHelloMagic, "\""));
  }
  struct Field {
    const char* name;
    size_t at;
    uint64_t want;
  };
  const Field fields[] = {
      {"version", kHelloVersionAt, kRingLinkVersion},
      {"from_rank", kHelloFromAt, static_cast<uint32_t>(expected.from_rank)},
      {"to_rank", kHelloToAt, static_cast<uint32_t>(expected.to_rank)},
      {"world_size", kHelloWorldAt, static_cast<uint32_t>(expected.world_size)},
      {"padding", kHelloPaddingAt, 0},
  };
  for (const Field& field : fields) {
    const uint64_t got = Get(bytes, field.at, 4);
    if (got != field.want) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, field.name, ": ", got, ", expected ", field.want));
    }
  }
  if (Get(bytes, kHelloTokenAt, 8) != expected.token) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "token: not the one published for rank ", expected.from_rank));
  }
  return absl::OkStatus();
}

std::array<char, kRingFrameBytes> EncodeRingFrame(const RingFrame& frame) {
  std::array<char, kRingFrameBytes> out{};
  PutMagic(out, kFrameMagic);
  Put(out, kFrameSeqAt, frame.seq, 8);
  Put(out, kFrameBytesAt, frame.bytes, 8);
  return out;
}

absl::Status CheckRingFrame(absl::string_view bytes, const RingFrame& expected, int peer_rank) {
  const std::string where = absl::StrCat("ring link from rank ", peer_rank, ": frame ");
  if (bytes.size() != kRingFrameBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "size: ", bytes.size(), " bytes, expected ", kRingFrameBytes));
  }
  if (bytes.substr(0, kFrameMagic.size()) != kFrameMagic) {
    return absl::InvalidArgumentError(absl::StrCat(where, "magic: not \"", kFrameMagic, "\""));
  }
  if (const uint64_t padding = Get(bytes, kFramePaddingAt, 4); padding != 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, "padding: ", padding, ", expected 0"));
  }
  if (const uint64_t seq = Get(bytes, kFrameSeqAt, 8); seq != expected.seq) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "seq: ", seq, ", expected ", expected.seq));
  }
  if (const uint64_t length = Get(bytes, kFrameBytesAt, 8); length != expected.bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, "bytes: ", length, ", expected ", expected.bytes));
  }
  return absl::OkStatus();
}

}  // namespace eb::transport
