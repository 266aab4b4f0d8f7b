#pragma once

// The input format of the fuzz targets that play a sequence of operations
// (the rendezvous store, the coordinator's and the agent's message
// handling): frames of [op: 1 byte][length: 2 bytes, little-endian][payload]
// until the input ends. A short frame at the end is truncated to what is
// left, so every input is a valid sequence. tests/fuzz/make_corpus.py writes
// the seeds in this format.

#include <cstddef>
#include <cstdint>
#include "absl/strings/string_view.h"

namespace eb::fuzz {

struct Frame {
  uint8_t op = 0;
  absl::string_view payload;
};

class FrameReader {
 public:
  FrameReader(const uint8_t* data, size_t size)
      : data_(reinterpret_cast<const char*>(data)), size_(size) {}

  // The next frame, or false at the end of the input.
  bool Next(Frame* frame) {
    if (pos_ >= size_) return false;
    frame->op = static_cast<uint8_t>(data_[pos_++]);
    size_t length = 0;
    for (int i = 0; i < 2 && pos_ < size_; ++i) {
      length |= static_cast<size_t>(static_cast<uint8_t>(data_[pos_++])) << (8 * i);
    }
    if (length > size_ - pos_) length = size_ - pos_;
    frame->payload = absl::string_view(data_ + pos_, length);
    pos_ += length;
    return true;
  }

 private:
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace eb::fuzz
