#pragma once

// Zero-initialised host memory (16-byte aligned, enough for every element
// type) for the CPU data plane: Gloo buffers and scratch space.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "absl/status/statusor.h"

namespace eb::transport {

class HostMemory {
 public:
  // Allocates `bytes` bytes (at least 1 is reserved so that data() is never
  // null). RESOURCE_EXHAUSTED, with the size, when the allocation fails.
  // Thread-safe.
  static absl::StatusOr<HostMemory> Allocate(size_t bytes);

  HostMemory() = default;
  HostMemory(HostMemory&&) = default;
  HostMemory& operator=(HostMemory&&) = default;

  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  HostMemory(uint8_t* data, size_t size) : data_(data), size_(size) {}

  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

}  // namespace eb::transport
