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
#include "common/spec/rendezvous_bounds.h"

namespace eb::coordinator {

class RendezvousKv {
 public:
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

  // Opens an empty namespace for a test of `ranks` ranks, `ranks_per_node`
  // of them on each node. What the test and each of its nodes may hold and
  // ask of it is what an honest test of that size needs
  // (spec::RendezvousBoundsFor; issue 32 item 1, P2-4f2): keys, bytes and
  // one value's size per test and per node, keys per wait, pending waits
  // per test and per node. A node's ranks are its quota; calls that name
  // no node (a plaintext coordinator cannot tell its callers apart) are
  // bounded by the test's.
  void Open(const std::string& test_id, int ranks,
            const std::map<std::string, int>& ranks_per_node = {});
  // Closes it: pending waiters get ABORTED with `reason`; later calls get
  // NOT_FOUND.
  void Close(const std::string& test_id, const std::string& reason);

  // `node`: the node whose agent relays the call, "" when unknown.
  // NOT_FOUND for an unknown namespace; INVALID_ARGUMENT for an empty or
  // bad key (spec::CheckRendezvousKey) or a value over the test's value
  // bound; PERMISSION_DENIED for a key another node set (a value is its
  // setter's: a rank's address table cannot be replaced by another node);
  // RESOURCE_EXHAUSTED beyond the node's or the test's keys or bytes
  // (SECURITY_FINDINGS case 13; docs/SECURITY.md, "Limits"). A node that
  // went over its quota is refused every later call of the test
  // (NodeOverQuota).
  absl::Status Set(const std::string& test_id, const std::string& key, std::string value,
                   const std::string& node = "");
  // Whether `node` went over its quota in test `test_id`: its agent asked
  // more than its ranks can need, which an honest agent never does.
  bool NodeOverQuota(const std::string& test_id, const std::string& node) const;
  // Completes `done` as described above. Keys may repeat. INVALID_ARGUMENT
  // for no key, more than kMaxRendezvousWaitKeys or a bad key, or a bad
  // `slice` (offset < 0 or >= kMaxRendezvousValueBytes, length outside 1 to
  // kMaxRendezvousSliceBytes, keys x length over kMaxRendezvousReplyBytes;
  // the message names slice.offset or slice.length); RESOURCE_EXHAUSTED
  // beyond the test's or `node`'s pending waits. With `slice`, each
  // value is cut to it, and a value shorter than its end completes the wait
  // with FAILED_PRECONDITION naming the key. The values are in the form
  // the wait asked for, as spec::WaitReplyWriter gathers them: with
  // slice->concatenated a single value, every key's slice in the order of
  // the keys, for spec::SetWaitReplyValues to put in the reply.
  void Wait(const std::string& test_id, std::vector<std::string> keys, absl::Duration timeout,
            WaitCallback done, std::optional<Slice> slice = std::nullopt,
            const std::string& node = "");

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
    // The node that asked ("" unknown), whose pending waits it counts in.
    std::string node;
  };
  // What one node of a test holds and has pending, against its quota.
  struct NodeUsage {
    spec::RendezvousBounds bounds;
    int keys = 0;
    int waiters = 0;
    bool over_quota = false;
  };
  struct Namespace {
    int ranks = 0;
    spec::RendezvousBounds bounds;
    std::map<std::string, NodeUsage> nodes;
    std::map<std::string, std::string> values;
    // Key -> the node that set it (keys set by a named node only).
    std::map<std::string, std::string> owners;
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
  // The node's usage in `ns`, made on first use (a node outside the test's
  // placement gets one rank's quota); nullptr for "" (no node named).
  NodeUsage* UsageOf(Namespace& ns, const std::string& node);
  // The checks of Set against the test's and the node's bounds.
  absl::Status CheckSet(const std::string& test_id, Namespace& ns, NodeUsage* usage,
                        const std::string& key, const std::string& value, const std::string& node);
  // What setting `key` to `value` adds to the bytes `ns` holds.
  static int64_t Growth(const Namespace& ns, const std::string& key, const std::string& value);
  // A wait of `node` ended (completed or expired).
  static void ReleaseWait(Namespace& ns, const std::string& node);
  // Marks `usage` over its quota and returns `refused`.
  static absl::Status OverQuota(NodeUsage& usage, absl::Status refused);
  void ExpireWaiter(const std::string& test_id, uint64_t waiter_id);

  common::Executor& executor_;
  std::map<std::string, Namespace> namespaces_;
  uint64_t next_waiter_id_ = 1;
};

}  // namespace eb::coordinator
