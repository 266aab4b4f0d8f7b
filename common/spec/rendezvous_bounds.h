#pragma once

// What one test's rendezvous may hold and ask, derived from what an honest
// test of that many ranks needs (issue 32 item 1: "work per message
// proportional to what the test needs, quotas per node"). Pure, header only;
// the coordinator's store (rendezvous_kv.h) enforces it, the load
// generator's compromised agent aims at it.
//
// What an honest test sets (a survey of every RendezvousStore user):
// - Gloo: each rank sets one address table for the test's communicator
//   (gloo_mesh.cc, key "mesh/<rank>", kMeshEntryBytes per rank of the
//   communicator) and one for its rail's (worker_runtime.cc, prefix
//   "rail<local rank>/", the rail's ranks): 2 keys a rank, each value at
//   most 48 bytes x the test's ranks;
// - NCCL: rank 0 of the test and of each rail sets the unique id (128
//   bytes): at most 1 + ranks keys;
// - nothing else: one communicator and at most one rail communicator per
//   rank for the whole test (no context per collective, no barrier keys).
// So a test of N ranks needs at most 2N keys, values of 48 x N bytes and
// 2N x 48N bytes in all; a node of r ranks sets at most 2r of them (a node
// may set only what its own ranks need). The margins (64 keys, values of
// 4 KiB) keep a small test clear of constant overheads.

#include <algorithm>
#include <cstdint>

#include "common/spec/limits.h"

namespace eb::spec {

// Bytes of a Gloo address table per rank (transport::kMeshEntryBytes, which
// mesh_table.cc checks against this at compile time).
inline constexpr int64_t kRendezvousValueBytesPerRank = 48;
// The smallest value bound: an NCCL unique id (128 bytes) and room.
inline constexpr int64_t kRendezvousSmallValueBytes = 4096;
// Keys over twice the ranks that a test or a node may hold or ask.
inline constexpr int kRendezvousKeyMargin = 64;

struct RendezvousBounds {
  // Keys held (distinct; a replaced value's key counts once).
  int keys = 0;
  // One value's bytes.
  int64_t value_bytes = 0;
  // Keys and values held.
  int64_t bytes = 0;
  // Keys one wait asks (a rank waits for every rank's table, and its rail's).
  int wait_keys = 0;
  // Waits pending at once (a rank has one; its agent's retries may overlap):
  // four per own rank.
  int waiters = 0;
};

// Pending waits of one test at most, whatever its size.
inline constexpr int kMaxRendezvousWaitersPerTest = 65536;

// The bounds of a test of `test_ranks` ranks; for one node's share of it,
// `own_ranks` is that node's ranks (values stay sized by the test: a node's
// table lists every rank of the test). Never above the absolute limits of
// limits.h, and never below one rank's need.
constexpr RendezvousBounds RendezvousBoundsFor(int test_ranks, int own_ranks) {
  const int64_t ranks = std::max(test_ranks, 1);
  const int64_t own = std::clamp(own_ranks, 1, static_cast<int>(ranks));
  RendezvousBounds bounds;
  bounds.keys = static_cast<int>(
      std::min<int64_t>(kMaxRendezvousKeysPerTest, 2 * own + kRendezvousKeyMargin));
  bounds.value_bytes =
      std::min(kMaxRendezvousValueBytes,
               std::max(kRendezvousSmallValueBytes, kRendezvousValueBytesPerRank * ranks));
  bounds.bytes = std::min(kMaxRendezvousBytesPerTest,
                          bounds.keys * (kMaxRendezvousKeyLength + bounds.value_bytes));
  bounds.wait_keys =
      static_cast<int>(std::min<int64_t>(kMaxRendezvousWaitKeys, 2 * ranks + kRendezvousKeyMargin));
  bounds.waiters = static_cast<int>(
      std::min<int64_t>(kMaxRendezvousWaitersPerTest, 4 * own + kRendezvousKeyMargin));
  return bounds;
}

// The whole test's bounds.
constexpr RendezvousBounds RendezvousBoundsFor(int test_ranks) {
  return RendezvousBoundsFor(test_ranks, test_ranks);
}

}  // namespace eb::spec
