#pragma once

// Every bound ebnccl puts on what crosses a process boundary, in one place
// so that the side that sends and the side that receives agree, and so that
// docs/SECURITY.md ("Limits") has one source. Each constant says where it
// is enforced; the tests check each at its edge. Header only, no
// dependencies: the agent, the coordinator, ebctl and common/rpc include it.

#include <cstddef>
#include <cstdint>

namespace eb::spec {

// Identifiers (identifiers.h): test ids and node names are names, never path
// fragments. Test ids name a folder on every node (run_dir/logs/<test_id>).
inline constexpr int kMaxTestIdLength = 128;
// A DNS name's length: node names are usually host names.
inline constexpr int kMaxNodeNameLength = 253;
// Rendezvous keys (Gloo's per-rank keys, the NCCL unique id's key).
inline constexpr int kMaxRendezvousKeyLength = 256;

// Sizes of a test. A node with more slots than this is refused at
// registration (a fake agent with 2^31 slots crashed the placement, case 6).
inline constexpr int kMaxWorkerSlots = 1024;
inline constexpr int kMaxNodesPerTest = 4096;
inline constexpr int kMaxRanksPerTest = 32768;
// A request's --nodes list: names as typed, before deduplication.
inline constexpr int kMaxNodeNamesInRequest = kMaxNodesPerTest;

// Rendezvous store (coordinator/core/collective_tests/rendezvous_kv.h). A Gloo full-mesh
// value holds one entry per rank (48 bytes each, both lanes, mesh_table.h):
// 1 MiB is ~21,800 ranks; the bytes per test bound a Gloo test to ~2,300
// ranks (N^2 entries of 48 bytes).
inline constexpr int64_t kMaxRendezvousValueBytes = int64_t{1} << 20;
inline constexpr int kMaxRendezvousKeysPerTest = 2 * kMaxRanksPerTest + 64;
inline constexpr int64_t kMaxRendezvousBytesPerTest = int64_t{256} << 20;
// Keys one RendezvousWait may ask for.
inline constexpr int kMaxRendezvousWaitKeys = kMaxRanksPerTest;
// A sliced RendezvousWait (RendezvousWaitRequest.slice: each rank of a Gloo
// full mesh reads its own entry of every peer's address table): bytes per
// slice, and slices x keys in one reply (well below kMaxRpcMessageBytes).
inline constexpr int64_t kMaxRendezvousSliceBytes = 4096;
inline constexpr int64_t kMaxRendezvousReplyBytes = int64_t{8} << 20;

// Worker events in one session message (WorkerEventBatch): the agent
// coalesces its workers' events up to this many, and up to
// kMaxWorkerEventBatchBytes of them, per message; the coordinator ends a
// session that sends more.
inline constexpr int kMaxWorkerEventsPerBatch = 1024;
inline constexpr int64_t kMaxWorkerEventBatchBytes = int64_t{4} << 20;

// Log reads (FetchLog / GetLog): one page at most, so that one answer always
// fits in a gRPC message; `ebctl logs` reads larger logs page by page.
inline constexpr int64_t kMaxLogPageBytes = int64_t{1} << 20;
// Log pages an agent holds for a coordinator that does not read its stream
// (P2-P13): beyond this, a page is answered with an error instead (the
// request is still answered; the coordinator may ask again). The rest of the
// agent's outbox is bounded by what its own workers and heartbeats produce.
inline constexpr int64_t kMaxQueuedLogPageBytes = int64_t{16} << 20;
// Messages of any kind the agent's session holds for a coordinator that does
// not read its stream (issue 32 item 8): heartbeats replace each other, so
// only worker events and answers fill it; at this many the session ends and
// the agent reconnects (agent/core/session_outbox.h).
inline constexpr size_t kMaxQueuedSessionMessages = 65536;

// gRPC messages on every channel and server (common/rpc). A log page, an
// inventory and a listing page fit well below this.
inline constexpr int kMaxRpcMessageBytes = 16 << 20;
// Calls open at once on one connection (HTTP/2 streams): an agent relays
// its workers' rendezvous waits, at most one per slot, beside its session.
inline constexpr int kMaxCallsPerConnection = 2 * kMaxWorkerSlots + 64;

// Agent sessions open at once without having registered (P2-4f3): a real
// agent registers as soon as its session opens, so only a fleet of this
// many agents reconnecting in the same instant comes near it (they retry
// with backoff); each such session also ends at its register deadline
// (heartbeat period x miss limit).
inline constexpr int kMaxUnregisteredSessions = 4096;
// Of those, from one peer host (coordinator/core/budget/unregistered_sessions.h):
// the agents of one host, or behind one NAT address, are at most 64
// (NodeRegistry's kMaxAgentsPerHost), each with one session at a time.
inline constexpr int kMaxUnregisteredSessionsPerHost = 64;

// Listings: at most this many rows in one ListNodes / ListTests reply.
inline constexpr int kMaxListedNodes = 10000;
inline constexpr int kMaxListedTests = 1000;

// Deadlines and periods the coordinator sends to agents (launch_check.h):
// each must be > 0 and at most this.
inline constexpr int64_t kMaxTimeoutMs = int64_t{7} * 24 * 3600 * 1000;  // a week
// The longest time a rank may report for one timed batch or a part of it
// (schedules, GPU throttle), microseconds: no batch outlasts the longest
// test deadline.
inline constexpr double kMaxReportedBatchUs = static_cast<double>(kMaxTimeoutMs) * 1e3;
// RegisterReply.heartbeat_period_ms: 0 made the agent spin (case 5).
inline constexpr int64_t kMinHeartbeatPeriodMs = 100;
inline constexpr int64_t kMaxHeartbeatPeriodMs = 10 * 60 * 1000;

// Lost nodes are forgotten after this long (node_registry.h), so that a
// flood of registrations cannot grow the coordinator forever (case 10).
inline constexpr int64_t kDefaultLostNodeRetentionS = 24 * 3600;

// WorkerEvent.pid (REGISTERED): Linux's PID_MAX_LIMIT (1 << 22); the
// coordinator keeps a pid in 1..this and ignores another (TestRun).
inline constexpr int32_t kMaxWorkerPid = 4194304;

// A status message sent to a peer (common/status/grpc_status.h): gRPC
// carries it percent-encoded in the grpc-message trailer, and a trailer over
// the receiver's metadata limit (8 KiB by default in gRPC 1.51) ends the
// receiver's whole connection, not only the call: a rendezvous timeout that
// named 80 missing keys of 256 characters cut an agent's session off
// (issue 32, the compromised-agent benchmark). 2 KiB of text stays under
// 8 KiB even when every byte is percent-encoded (3 bytes each).
inline constexpr size_t kMaxStatusMessageBytes = 2048;

// Failures a test's report takes from one rank's own events (its FAILED,
// its agent's EXITED, with room): a repeated FAILED grew the report by a
// failure each time, as fast as the node's budget allowed.
inline constexpr int kMaxFailuresPerRank = 4;

// How much of a refused input an error message quotes (Quote() in
// identifiers.h): a 4 MB name must not come back in the error (case 14).
inline constexpr int kMaxQuotedInput = 64;

}  // namespace eb::spec
