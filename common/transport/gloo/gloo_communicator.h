#pragma once

// The Gloo backend of Communicator (STYLE.md rule 18): host buffers, TCP,
// always built; what CI runs. Bootstraps through the per-test rendezvous KV
// with one Set and one WaitSlice per rank (gloo_mesh.h).

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/transport/communicator.h"
#include "common/transport/rendezvous_store.h"

namespace eb::transport {

struct GlooOptions {
  int rank = 0;
  int world_size = 1;
  // Bind the TCP device to this NIC's address (e.g. "eth0"). Takes
  // precedence over `hostname` when both are set.
  std::string interface_name;
  // An address or name to bind (e.g. "127.0.0.1"); with both fields empty,
  // this machine's hostname is resolved, as Gloo does.
  std::string hostname;
  // Bounds the whole rendezvous: store look-ups and TCP connects.
  absl::Duration connect_timeout = absl::Seconds(60);
  // Bounds each collective call and barrier (at least 1 ms).
  absl::Duration op_timeout = absl::Seconds(60);
  // Prefix of Gloo's keys in the rendezvous store, so that they cannot
  // collide with other users of the same per-test KV.
  std::string key_prefix = "gloo/";
};

// Creates the Gloo TCP device, joins its full mesh of `options.world_size`
// ranks and connects the ring links (the two lanes, gloo_mesh.h) through
// `store`, and returns the communicator. Blocks up to connect_timeout. Returns:
//   INVALID_ARGUMENT  bad options, or the interface/hostname cannot be
//                     resolved to an address (the message names the field);
//   DEADLINE_EXCEEDED a rank did not publish its address table (the store
//                     names the missing keys), or a connection was not made,
//                     within connect_timeout (Gloo's message);
//   UNAVAILABLE       a peer refused or dropped the connection, or the store
//                     could not be reached;
//   ABORTED           the store reports that the test has ended;
//   INVALID_ARGUMENT  also for a peer's malformed address entry (names the
//                     rank and field).
// `store` is used only during this call. Thread-safe (each call builds its
// own devices; ranks-as-threads in one process work).
//
// Side effect: sets SIGPIPE to SIG_IGN process-wide if it still has its
// default action, because Gloo's TCP writes would otherwise kill the
// process when a peer resets its connection (the worker's main should
// ignore SIGPIPE anyway).
absl::StatusOr<std::unique_ptr<Communicator>> CreateGlooCommunicator(const GlooOptions& options,
                                                                     RendezvousStore& store);

}  // namespace eb::transport
