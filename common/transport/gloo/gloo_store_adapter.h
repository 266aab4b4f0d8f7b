#pragma once

// gloo::rendezvous::Store over our RendezvousStore (STYLE.md rule 18), so
// that Gloo's connectFullMesh exchanges its pair addresses through the
// coordinator's per-test KV.

#include <chrono>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/transport/rendezvous_store.h"
#include "gloo/rendezvous/store.h"

namespace eb::transport {

// Gloo's Store interface reports failure only by exception, so this is the
// one place where our code throws: every non-OK status from the
// RendezvousStore becomes a gloo::IoException carrying the status text, and
// is also recorded so that the caller (which catches the exception around
// connectFullMesh) can return the original status code instead of
// re-deriving it from the message.
//
// Thread-safe. The RendezvousStore must outlive the adapter.
class GlooStoreAdapter final : public gloo::rendezvous::Store {
 public:
  // Every key is stored as `key_prefix` + key. Blocking calls wait at most
  // their own timeout (`default_timeout` for get() and the timeout-less
  // wait()) and never past `deadline`, which bounds a whole rendezvous.
  GlooStoreAdapter(RendezvousStore& store, std::string key_prefix, absl::Duration default_timeout,
                   absl::Time deadline = absl::InfiniteFuture());

  // RendezvousStore::Set; throws gloo::IoException on error.
  void set(const std::string& key, const std::vector<char>& data) override;
  // RendezvousStore::Wait({key}) then its value; throws gloo::IoException on
  // error (DEADLINE_EXCEEDED after the default timeout).
  std::vector<char> get(const std::string& key) override;
  // RendezvousStore::Wait(keys); throws gloo::IoException on error.
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

  // The first error any call hit (OK if none).
  absl::Status first_error() const;

 private:
  absl::Duration Budget(absl::Duration timeout) const;
  std::vector<std::string> Prefixed(const std::vector<std::string>& keys) const;
  // Records `status` (if it is the first error) and throws it.
  [[noreturn]] void Throw(const absl::Status& status);

  RendezvousStore& store_;
  const std::string key_prefix_;
  const absl::Duration default_timeout_;
  const absl::Time deadline_;

  mutable absl::Mutex mu_;
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace eb::transport
