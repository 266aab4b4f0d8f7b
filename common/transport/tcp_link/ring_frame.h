#pragma once

// The wire format of a ring link (ring_links.h), apart from any socket so
// that it is tested on its own. Two records, both fixed-size, big-endian:
//
//   hello (32 bytes), sent once by the connecting rank right after connect:
//     magic "EBRH", version, from_rank, to_rank, world_size, 4 zero bytes,
//     token (the one the listening rank published for it in the rendezvous
//     table, so that a connection from anyone else is refused);
//   frame header (24 bytes), before every message:
//     magic "EBRF", 4 zero bytes, sequence number, byte count.
//
// Everything a peer sends is untrusted: the receiver checks every field
// against what it expects before it reads a single payload byte, so a
// header that disagrees (another call's message, another size, a stream out
// of step) fails the op naming the peer and the field, and never makes a
// receive write past the caller's buffer. Pure: no I/O.

#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace eb::transport {

inline constexpr size_t kRingHelloBytes = 32;
inline constexpr size_t kRingFrameBytes = 24;
// Bumped on any change of either record.
inline constexpr uint32_t kRingLinkVersion = 1;

// Who connects to whom: `from_rank` sends its ring traffic to `to_rank`.
struct RingHello {
  int from_rank = 0;
  int to_rank = 0;
  int world_size = 0;
  uint64_t token = 0;
};

// One message: its sequence number on the link (0, 1, ... per direction)
// and its length.
struct RingFrame {
  uint64_t seq = 0;
  uint64_t bytes = 0;
};

std::array<char, kRingHelloBytes> EncodeRingHello(const RingHello& hello);

// OK when `bytes` is exactly the hello `expected` encodes. Otherwise
// INVALID_ARGUMENT "ring link from rank <expected.from_rank>: hello
// <field>: ..." naming the first field that differs (size, magic, version,
// from_rank, to_rank, world_size, padding, token; the token's value is not
// printed).
absl::Status CheckRingHello(absl::string_view bytes, const RingHello& expected);

std::array<char, kRingFrameBytes> EncodeRingFrame(const RingFrame& frame);

// OK when `bytes` is exactly the header `expected` encodes. Otherwise
// INVALID_ARGUMENT "ring link from rank <peer_rank>: frame <field>: <got>,
// expected <want>" for the first field that differs (size, magic, padding,
// seq, bytes).
absl::Status CheckRingFrame(absl::string_view bytes, const RingFrame& expected, int peer_rank);

}  // namespace eb::transport
