#pragma once

// NCCL's RAS service (NCCL >= 2.24), queried when an NCCL test fails or
// times out (issue 12, part 5): which port each test's workers listen on,
// what the agent sends, and what it keeps of the reply. Pure: the socket is
// agent/host/nccl_ras_client.h.
//
// The protocol, from NCCL's src/ras/client.cc (the ncclras client) and
// src/ras/client_support.cc (the RAS thread's side), 2.24 to 2.29, protocol
// version 2: text lines. The client sends "CLIENT PROTOCOL 2"; the server
// answers "SERVER PROTOCOL <n>". "TIMEOUT <s>" (how long the RAS thread
// waits for the other processes' data) is answered "OK" (or "ERROR: ...").
// "VERBOSE STATUS" is answered by the status report, after which the server
// closes the connection. The server handles every complete line it has
// received, so the three commands go in one write. "SET FORMAT json" exists
// only from 2.28.7 (our GPU machine has 2.28.3, which answers "ERROR:
// Unknown command"); the text form is kept everywhere, as it is shown to
// people and a bounded cut of it stays readable.

#include <cstddef>
#include <set>
#include <string>

#include "absl/time/time.h"
#include "ebnccl/v1/common.pb.h"

namespace eb::agent {

inline constexpr int kNcclRasClientProtocol = 2;

struct NcclRasLimits {
  // What the RAS thread may wait for another process's data (its TIMEOUT
  // command; NCCL's default is 5 s per leg, 10 s in all, too long for a
  // stop). An unresponsive process then shows as a timeout in the reply.
  int collective_timeout_s = 1;
  // The whole exchange, connect to close: past it, what came is kept.
  absl::Duration deadline = absl::Seconds(3);
  // Bytes of the status text kept (its head: the summary and the errors
  // come first); the reader stops reading a little past this.
  size_t max_text_bytes = 16 * 1024;
};

// The bytes the agent sends once connected.
std::string NcclRasRequest(const NcclRasLimits& limits);

// What the socket side saw (agent/host/nccl_ras_client.h).
struct NcclRasExchange {
  // Why no connection was made ("connection refused", ...); "" when it was.
  std::string connect_error;
  // Bytes received, at most max_text_bytes + kNcclRasReadSlack.
  std::string received;
  // The server closed the connection (the reply is complete).
  bool closed = false;
  // The reader stopped at its byte limit before the server closed.
  bool cut = false;
  // The deadline passed before the server closed.
  bool timed_out = false;
};

// Room for the handshake lines above max_text_bytes, so that a reply of
// exactly max_text_bytes is not reported as cut.
inline constexpr size_t kNcclRasReadSlack = 256;

// The report's record of one exchange: the status text without the
// handshake, its head kept within limits.max_text_bytes (cut at a line end,
// with a last line saying how much was cut), and an error for what went
// wrong: not reachable, not an NCCL RAS reply, or incomplete (no close
// before the deadline). `node_name` and `port` are copied.
ebnccl::v1::NcclRasStatus SummarizeNcclRas(const std::string& node_name, int port,
                                           const NcclRasExchange& exchange,
                                           const NcclRasLimits& limits);

// The RAS port for a new test: the lowest of [base, base + count) that no
// running test of this agent uses; 0 when base is 0 (RAS queries off) or all
// are taken.
int PickNcclRasPort(int base, int count, const std::set<int>& in_use);

// "127.0.0.1:<port>", the NCCL_RAS_ADDR the agent gives a test's NCCL
// workers: a literal address, so that NCCL's bind and the agent's connect
// cannot resolve "localhost" to different families.
std::string NcclRasAddress(int port);

}  // namespace eb::agent
