#pragma once

// Refusals are audited too (issue 32, item 10), but a peer that repeats a
// refused call thousands of times must not fill the audit log: each key (a
// caller and what it asked) is audited at its 1st, 2nd, 4th, 8th...
// refusal, and every refusal is counted. Pure; one thread (the executor).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace eb::coordinator {

class RefusalCounter {
 public:
  // Keys tracked one by one; beyond, refusals share one key (still counted
  // and audited at powers of two), so a peer inventing keys costs no memory.
  static constexpr size_t kMaxKeys = 4096;

  // Counts one refusal of `key`; true when it is to be audited.
  bool Count(const std::string& key);

  // Refusals counted so far, all keys.
  uint64_t total() const { return total_; }

 private:
  std::map<std::string, uint64_t> counts_;
  uint64_t total_ = 0;
};

}  // namespace eb::coordinator
