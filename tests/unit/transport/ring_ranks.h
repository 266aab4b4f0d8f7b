#pragma once

// Ranks as threads for the ring links (tcp_link/ring_links.h) without Gloo:
// N RingLinks on 127.0.0.1 in one process, connected to each other
// directly (what gloo_mesh.cc does through the rendezvous table).

#include <arpa/inet.h>
#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "common/transport/tcp_link/ring_links.h"
#include "gtest/gtest.h"

namespace eb::transport::testing {

inline sockaddr_storage Loopback(uint16_t port) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(port);
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sockaddr_storage out{};
  std::memcpy(&out, &in, sizeof(in));
  return out;
}

inline LinkClock::time_point In(LinkClock::duration d) { return LinkClock::now() + d; }

// Runs fn(rank) on one thread per rank and joins them.
inline void OnRanks(int n, const std::function<void(int)>& fn) {
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int rank = 0; rank < n; ++rank) threads.emplace_back(fn, rank);
  for (std::thread& t : threads) t.join();
}

// A ring of `n` connected links (empty, with a test failure, when a
// listener cannot be made). Each rank's Connect status goes to `connect`
// when given, else must be OK; `token(rank, right)` may replace the token
// a rank presents to its next rank.
inline std::vector<std::unique_ptr<RingLinks>> Ring(
    int n, std::vector<absl::Status>* connect = nullptr,
    const std::function<uint64_t(int, uint64_t)>& token = nullptr) {
  std::vector<std::unique_ptr<RingLinks>> links(static_cast<size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    auto listening = RingLinks::Listen(rank, n, Loopback(0));
    EXPECT_TRUE(listening.ok()) << listening.status();
    if (!listening.ok()) return {};
    links[static_cast<size_t>(rank)] = *std::move(listening);
  }
  std::vector<uint16_t> ports(static_cast<size_t>(n));
  std::vector<uint64_t> tokens(static_cast<size_t>(n));
  for (int rank = 0; rank < n; ++rank) {
    ports[static_cast<size_t>(rank)] = links[static_cast<size_t>(rank)]->port();
    tokens[static_cast<size_t>(rank)] = links[static_cast<size_t>(rank)]->token();
  }
  std::vector<absl::Status> results(static_cast<size_t>(n));
  OnRanks(n, [&](int rank) {
    const auto next = static_cast<size_t>((rank + 1) % n);
    const uint64_t presented = token ? token(rank, tokens[next]) : tokens[next];
    results[static_cast<size_t>(rank)] = links[static_cast<size_t>(rank)]->Connect(
        Loopback(ports[next]), presented, In(std::chrono::seconds(5)));
  });
  if (connect != nullptr) {
    *connect = results;
  } else {
    for (const absl::Status& status : results) EXPECT_TRUE(status.ok()) << status;
  }
  return links;
}

}  // namespace eb::transport::testing
