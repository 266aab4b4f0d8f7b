#pragma once

// The per-test key/value rendezvous the coordinator relays between ranks
// (Gloo pair addresses, the NCCL unique ID). The coordinator stores bytes and
// never interprets them. Waiters are long-polls that complete when their keys
// exist, when their timeout passes, or when the test's namespace closes.
// Owned by the coordinator's executor: every method runs on it.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/exec/executor.h"

namespace eb::coordinator {

class RendezvousKv {
 public:
  // Pending waits in one test: every rank waits for a few keys at a time.
  static constexpr int kMaxWaitersPerTest = 65536;

  // Receives the values in key order, or DEADLINE_EXCEEDED (naming the
  // missing keys), or ABORTED/NOT_FOUND when the namespace closes or does not
  // exist. Runs on the executor, exactly once.
  using WaitCallback = std::function<void(absl::StatusOr<std::vector<std::string>>)>;

  // A wait's values cut to bytes [offset, offset + length) each
  // (RendezvousWaitRequest.slice): a Gloo rank reads its own entry of every
  // peer's address table in one call instead of one call per peer.
  struct Slice {
    int64_t offset = 0;
    int64_t length = 0;
    // The wait's reply is one value: the slices one after another
    // (spec::WantsConcatenatedReply; common/spec/rendezvous_wait_reply.h
    // owns the form).
    bool concatenated = false;
  };

  explicit RendezvousKv(common::Executor& executor);
  ~RendezvousKv();

  // Opens an empty namespace for a test of `ranks` ranks. The work one
  // member may ask of it is proportional to that (issue 32 item 1; P2-4f2):
  // a wait asks at most WaitKeysFor(ranks) keys, and at most
  // WaitersFor(ranks) waits are pending at once.
  void Open(const std::string& test_id, int ranks);
  // A rank waits for at most every rank's key and one of each rail
  // communicator's: 2 x ranks, and a margin.
  static int WaitKeysFor(int ranks);
  // A rank has one wait pending at a time; its agent's retries may overlap.
  static int WaitersFor(int ranks);
  // Closes it: pending waiters get ABORTED with `reason`; later calls get
  // NOT_FOUND.
  void Close(const std::string& test_id, const std::string& reason);

  // NOT_FOUND for an unknown namespace; INVALID_ARGUMENT for an empty or
  // bad key (spec::CheckRendezvousKey) or a value over
  // kMaxRendezvousValueBytes; RESOURCE_EXHAUSTED beyond
  // kMaxRendezvousKeysPerTest keys or kMaxRendezvousBytesPerTest bytes in
  // the test (SECURITY_FINDINGS case 13; docs/SECURITY.md, "Limits").
  absl::Status Set(const std::string& test_id, const std::string& key, std::string value);
  // Completes `done` as described above. Keys may repeat. INVALID_ARGUMENT
  // for no key, more than kMaxRendezvousWaitKeys or a bad key, or a bad
  // `slice` (offset < 0 or >= kMaxRendezvousValueBytes, length outside 1 to
  // kMaxRendezvousSliceBytes, keys x length over kMaxRendezvousReplyBytes;
  // the message names slice.offset or slice.length); RESOURCE_EXHAUSTED
  // beyond kMaxWaitersPerTest pending waits in the test. With `slice`, each
  // value is cut to it, and a value shorter than its end completes the wait
  // with FAILED_PRECONDITION naming the key. The values are in the form
  // the wait asked for, as spec::WaitReplyWriter gathers them: with
  // slice->concatenated a single value, every key's slice in the order of
  // the keys, for spec::SetWaitReplyValues to put in the reply.
  void Wait(const std::string& test_id, std::vector<std::string> keys, absl::Duration timeout,
            WaitCallback done, std::optional<Slice> slice = std::nullopt);

  // Number of pending waiters (for tests).
  size_t pending_waiters() const;

  // The calls a test's rendezvous took (accepted ones): what the agents'
  // merging of identical waits saves, per test, in the log at Close
  // (issue 32 item 11), and for tests. Nothing for a test not open.
  struct Calls {
    int64_t waits = 0;
    int64_t sets = 0;
  };
  std::optional<Calls> calls(const std::string& test_id) const;

 private:
  struct Waiter {
    uint64_t id;
    std::vector<std::string> keys;
    WaitCallback done;
    std::optional<Slice> slice;
    common::TimerId timer;
    // Distinct keys still absent.
    int missing = 0;
  };
  struct Namespace {
    int max_wait_keys = 0;
    int max_waiters = 0;
    std::map<std::string, std::string> values;
    int64_t bytes = 0;  // keys and values held
    std::map<uint64_t, Waiter> waiters;
    // Absent key -> the waiters that wait for it, so that a set looks only
    // at those (not at every waiter of the test), and a wait only at its
    // own keys (issue 15).
    std::map<std::string, std::vector<uint64_t>> waiting_on;
    Calls calls;
  };

  // Completes the waiters `ids` of `ns` (in id order, as they were made).
  void Complete(Namespace& ns, std::vector<uint64_t> ids);
  void ExpireWaiter(const std::string& test_id, uint64_t waiter_id);

  common::Executor& executor_;
  std::map<std::string, Namespace> namespaces_;
  uint64_t next_waiter_id_ = 1;
};

}  // namespace eb::coordinator
