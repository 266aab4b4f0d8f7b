#pragma once

// Ranks as threads: N Gloo communicators on 127.0.0.1 in one process,
// bootstrapped through one InMemoryRendezvousStore (the c10d/Gloo test
// style). Communicators are destroyed only after every rank's thread has
// finished, so that no rank closes its sockets under a peer's last call.

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/transport/communicator.h"
#include "common/transport/gloo/gloo_communicator.h"
#include "tests/fakes/in_memory_rendezvous_store.h"
#include "tests/testutil/test_slowdown.h"

namespace eb::transport::testing {

inline GlooOptions LoopbackOptions(int rank, int world_size) {
  GlooOptions options;
  options.rank = rank;
  options.world_size = world_size;
  options.hostname = "127.0.0.1";
  // An op's deadline also covers the peers' work before they call (ranks
  // are threads of one process: under ASan on a loaded machine a peer's
  // check of 8 MiB took long enough for a 5 s deadline to pass, issue 33
  // item 19), so it scales with the sanitizer's slowdown.
  options.connect_timeout = absl::Seconds(5) * eb::testing::TestSlowdown();
  options.op_timeout = absl::Seconds(5) * eb::testing::TestSlowdown();
  return options;
}

// Creates `world_size` communicators on as many threads and runs
// fn(comm) on each. Returns each rank's status: the creation error, or fn's.
inline std::vector<absl::Status> RunRanks(
    int world_size, const std::function<absl::Status(Communicator&)>& fn,
    const std::function<void(GlooOptions&)>& tweak = nullptr) {
  eb::testing::InMemoryRendezvousStore store;
  std::vector<absl::Status> results(world_size);
  std::vector<std::unique_ptr<Communicator>> comms(world_size);
  std::vector<std::thread> threads;
  threads.reserve(world_size);
  for (int rank = 0; rank < world_size; ++rank) {
    threads.emplace_back([&, rank] {
      GlooOptions options = LoopbackOptions(rank, world_size);
      if (tweak) tweak(options);
      auto comm = CreateGlooCommunicator(options, store);
      if (!comm.ok()) {
        results[rank] = comm.status();
        return;
      }
      comms[rank] = std::move(comm).value();
      results[rank] = fn(*comms[rank]);
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace eb::transport::testing
