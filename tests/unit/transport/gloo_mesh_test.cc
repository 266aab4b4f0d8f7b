// The full-mesh exchange of issue 15: the address table's encoding, and
// that a Gloo rank makes exactly one Set and one WaitSlice on the store
// (gloo's own connectFullMesh made two calls per peer), with the peers'
// bad entries refused naming the rank and field; and the ring links of
// issue 16 (lane 1: port and token), which travel in the same table.

#include <arpa/inet.h>
#include <netinet/in.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "common/transport/gloo/gloo_communicator.h"
#include "common/transport/gloo/mesh_table.h"
#include "common/transport/prefixed_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"
#include "tests/unit/transport/gloo_ranks.h"

namespace eb::transport {
namespace {

using ::eb::testing::InMemoryRendezvousStore;
using ::eb::transport::testing::LoopbackOptions;
using ::testing::AllOf;
using ::testing::HasSubstr;

MeshAddress V4(const char* ip, uint16_t port, int64_t seq = -1) {
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(port);
  inet_pton(AF_INET, ip, &in.sin_addr);
  MeshAddress out;
  std::memcpy(&out.address, &in, sizeof(in));
  out.seq = seq;
  return out;
}

MeshAddress V6(const char* ip, uint16_t port, uint32_t scope, int64_t seq) {
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(port);
  in6.sin6_scope_id = scope;
  inet_pton(AF_INET6, ip, &in6.sin6_addr);
  MeshAddress out;
  std::memcpy(&out.address, &in6, sizeof(in6));
  out.seq = seq;
  return out;
}

// Lane 1 of `mesh`: the same host, another port, and a token.
RingLinkAddress RingOf(MeshAddress mesh, uint16_t port, uint64_t token = 0x1234) {
  if (mesh.address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&mesh.address)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&mesh.address)->sin6_port = htons(port);
  }
  return RingLinkAddress{mesh.address, token};
}

absl::string_view EntryOf(const std::string& table, int rank) {
  const ValueSlice slice = MeshEntrySlice(rank);
  return absl::string_view(table).substr(static_cast<size_t>(slice.offset),
                                         static_cast<size_t>(slice.length));
}

uint16_t PortOf(const sockaddr_storage& a) {
  return ntohs(reinterpret_cast<const sockaddr_in*>(&a)->sin_port);
}

TEST(MeshTableTest, RingNextIsTheRankAfterIt) {
  EXPECT_FALSE(IsRingNext(0, 0, 1));
  EXPECT_TRUE(IsRingNext(0, 1, 2));
  EXPECT_TRUE(IsRingNext(1, 0, 2));
  EXPECT_TRUE(IsRingNext(0, 1, 3));
  EXPECT_FALSE(IsRingNext(0, 2, 3));
  EXPECT_TRUE(IsRingNext(2, 0, 3));
  EXPECT_TRUE(IsRingNext(1, 2, 4));
  EXPECT_FALSE(IsRingNext(2, 1, 4));
  EXPECT_FALSE(IsRingNext(1, 3, 4));
  EXPECT_FALSE(IsRingNext(2, 2, 4));
  EXPECT_TRUE(IsRingNext(3, 0, 4));
}

TEST(MeshTableTest, EachRanksEntryRoundTrips) {
  // Rank 1 of 4: rank 0's ring link connects to it, no other rank's does.
  // With 2 ranks, each is the other's next.
  const MeshAddress v6 = V6("fe80::1", 40003, 7, 12345);
  const std::vector<MeshEntry> peers = {
      {V4("10.1.2.3", 40001), RingOf(V4("10.1.2.3", 40001), 41001, 0xfedcba9876543210)},
      {},
      {v6, std::nullopt},
      {V4("10.1.2.3", 40004), std::nullopt}};
  absl::StatusOr<std::string> table = EncodeMeshTable(1, peers);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->size(), 4u * kMeshEntryBytes);
  EXPECT_EQ(EntryOf(*table, 1), std::string(kMeshEntryBytes, '\0'));

  absl::StatusOr<MeshEntry> first = DecodeMeshEntry(EntryOf(*table, 0), 0, /*peer=*/1, 4);
  ASSERT_TRUE(first.ok()) << first.status();
  const auto* in = reinterpret_cast<const sockaddr_in*>(&first->mesh.address);
  EXPECT_EQ(in->sin_family, AF_INET);
  EXPECT_EQ(ntohs(in->sin_port), 40001);
  char ip[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
  EXPECT_STREQ(ip, "10.1.2.3");
  EXPECT_EQ(first->mesh.seq, -1);
  ASSERT_TRUE(first->ring.has_value());
  EXPECT_EQ(PortOf(first->ring->address), 41001);
  const auto* ring_in = reinterpret_cast<const sockaddr_in*>(&first->ring->address);
  EXPECT_EQ(ring_in->sin_addr.s_addr, in->sin_addr.s_addr);
  EXPECT_EQ(first->ring->token, 0xfedcba9876543210u);

  absl::StatusOr<MeshEntry> third = DecodeMeshEntry(EntryOf(*table, 2), 2, /*peer=*/1, 4);
  ASSERT_TRUE(third.ok()) << third.status();
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&third->mesh.address);
  EXPECT_EQ(in6->sin6_family, AF_INET6);
  EXPECT_EQ(ntohs(in6->sin6_port), 40003);
  EXPECT_EQ(in6->sin6_scope_id, 7u);
  inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
  EXPECT_STREQ(ip, "fe80::1");
  EXPECT_EQ(third->mesh.seq, 12345);
  EXPECT_FALSE(third->ring.has_value());

  absl::StatusOr<MeshEntry> fourth = DecodeMeshEntry(EntryOf(*table, 3), 3, /*peer=*/1, 4);
  ASSERT_TRUE(fourth.ok()) << fourth.status();
  EXPECT_EQ(PortOf(fourth->mesh.address), 40004);
  EXPECT_FALSE(fourth->ring.has_value());

  // An IPv6 ring link keeps lane 0's scope.
  absl::StatusOr<std::string> of2 = EncodeMeshTable(0, {{}, {v6, RingOf(v6, 41002, 5)}});
  ASSERT_TRUE(of2.ok()) << of2.status();
  absl::StatusOr<MeshEntry> v6_ring = DecodeMeshEntry(EntryOf(*of2, 1), 1, /*peer=*/0, 2);
  ASSERT_TRUE(v6_ring.ok()) << v6_ring.status();
  ASSERT_TRUE(v6_ring->ring.has_value());
  const auto* ring6 = reinterpret_cast<const sockaddr_in6*>(&v6_ring->ring->address);
  EXPECT_EQ(ntohs(ring6->sin6_port), 41002);
  EXPECT_EQ(ring6->sin6_scope_id, 7u);
  EXPECT_EQ(v6_ring->ring->token, 5u);
}

TEST(MeshTableTest, BadInputNamesTheField) {
  MeshEntry unix_socket;
  unix_socket.mesh.address.ss_family = AF_UNIX;
  EXPECT_THAT(std::string(EncodeMeshTable(0, {{}, unix_socket}).status().message()),
              HasSubstr("peers[1].address"));
  EXPECT_EQ(EncodeMeshTable(2, {MeshEntry{}, unix_socket}).status().code(),
            absl::StatusCode::kInvalidArgument);

  std::string entry(kMeshEntryBytes, '\0');
  EXPECT_THAT(std::string(DecodeMeshEntry(entry, 0, 5, 8).status().message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("family: 0")));
  EXPECT_THAT(std::string(DecodeMeshEntry(entry.substr(1), 0, 5, 8).status().message()),
              HasSubstr("entry: 47 bytes"));
  entry[0] = 4;
  entry[1] = 1;
  EXPECT_THAT(std::string(DecodeMeshEntry(entry, 0, 5, 8).status().message()),
              HasSubstr("padding"));
  entry[1] = 0;
  entry[20] = 1;  // IPv6 flow info in an IPv4 entry
  EXPECT_THAT(std::string(DecodeMeshEntry(entry, 0, 5, 8).status().message()),
              HasSubstr("padding"));
}

// Lane 1 is checked on both sides: a table carries a ring link exactly for
// the previous rank, on lane 0's host, with a token; a peer's entry is
// refused naming the rank and field when it lacks one, carries one it
// should not, or sets padding.
TEST(MeshTableTest, BadRingLinkNamesTheField) {
  const MeshAddress a = V4("10.0.0.1", 40000);
  const MeshEntry with_ring{a, RingOf(a, 40100)};
  const MeshEntry without_ring{a, std::nullopt};
  // Rank 0 of 3: only rank 2 (its previous rank) connects to it.
  EXPECT_TRUE(EncodeMeshTable(0, {{}, without_ring, with_ring}).ok());
  EXPECT_THAT(std::string(EncodeMeshTable(0, {{}, without_ring, without_ring}).status().message()),
              HasSubstr("peers[2].ring"));
  EXPECT_THAT(std::string(EncodeMeshTable(0, {{}, with_ring, with_ring}).status().message()),
              HasSubstr("peers[1].ring"));
  const MeshEntry other_host{a, RingOf(V4("10.0.0.2", 1), 40100)};
  EXPECT_THAT(std::string(EncodeMeshTable(0, {{}, other_host}).status().message()),
              AllOf(HasSubstr("peers[1].ring"), HasSubstr("lane-0 address")));
  const MeshEntry no_port{a, RingOf(a, 0)};
  EXPECT_THAT(std::string(EncodeMeshTable(0, {{}, no_port}).status().message()),
              HasSubstr("peers[1].ring"));
  const MeshEntry no_token{a, RingOf(a, 40100, 0)};
  EXPECT_THAT(std::string(EncodeMeshTable(0, {{}, no_token}).status().message()),
              HasSubstr("peers[1].ring.token"));

  // Rank 5 of 8 publishes rank 4's entry (its previous rank) and rank 7's.
  absl::StatusOr<std::string> table = EncodeMeshTable(5, {without_ring,
                                                          without_ring,
                                                          without_ring,
                                                          without_ring,
                                                          with_ring,
                                                          {},
                                                          without_ring,
                                                          without_ring});
  ASSERT_TRUE(table.ok()) << table.status();
  std::string for_prev(EntryOf(*table, 4));
  std::string other(EntryOf(*table, 7));
  ASSERT_TRUE(DecodeMeshEntry(for_prev, 4, 5, 8).ok());
  ASSERT_TRUE(DecodeMeshEntry(other, 7, 5, 8).ok());
  // The previous rank's entry read by another rank, and the other way round.
  EXPECT_THAT(std::string(DecodeMeshEntry(for_prev, 7, 5, 8).status().message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("ring: a ring link address")));
  EXPECT_THAT(std::string(DecodeMeshEntry(other, 4, 5, 8).status().message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("ring port: 0")));
  std::string token_only = other;
  token_only[47] = 1;  // a token without a port
  EXPECT_THAT(std::string(DecodeMeshEntry(token_only, 7, 5, 8).status().message()),
              HasSubstr("ring: a ring link address"));
  std::string no_token_entry = for_prev;
  for (int i = 40; i < 48; ++i) no_token_entry[static_cast<size_t>(i)] = '\0';
  EXPECT_THAT(std::string(DecodeMeshEntry(no_token_entry, 4, 5, 8).status().message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("ring token: 0")));
  for_prev[38] = 1;
  EXPECT_THAT(std::string(DecodeMeshEntry(for_prev, 4, 5, 8).status().message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("padding")));
}

// Counts what a rank asks of the store.
class CountingStore final : public RendezvousStore {
 public:
  explicit CountingStore(RendezvousStore& inner) : inner_(inner) {}
  absl::Status Set(const std::string& key, const std::string& value) override {
    sets.fetch_add(1);
    return inner_.Set(key, value);
  }
  absl::StatusOr<std::vector<std::string>> Wait(const std::vector<std::string>& keys,
                                                absl::Duration timeout) override {
    waits.fetch_add(1);
    return inner_.Wait(keys, timeout);
  }
  absl::StatusOr<std::vector<std::string>> WaitSlice(const std::vector<std::string>& keys,
                                                     ValueSlice slice,
                                                     absl::Duration timeout) override {
    slice_waits.fetch_add(1);
    slice_keys.fetch_add(static_cast<int>(keys.size()));
    return inner_.WaitSlice(keys, slice, timeout);
  }
  std::atomic<int> sets{0}, waits{0}, slice_waits{0}, slice_keys{0};

 private:
  RendezvousStore& inner_;
};

TEST(GlooMeshTest, EveryRankMakesOneSetAndOneSlicedWait) {
  constexpr int kRanks = 6;
  InMemoryRendezvousStore memory;
  CountingStore store(memory);
  std::vector<std::unique_ptr<Communicator>> comms(kRanks);
  std::vector<absl::Status> results(kRanks);
  std::vector<std::thread> threads;
  threads.reserve(kRanks);
  for (int rank = 0; rank < kRanks; ++rank) {
    threads.emplace_back([&, rank] {
      auto comm = CreateGlooCommunicator(LoopbackOptions(rank, kRanks), store);
      results[rank] = comm.status();
      if (comm.ok()) comms[rank] = *std::move(comm);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < kRanks; ++rank) ASSERT_TRUE(results[rank].ok()) << results[rank];
  EXPECT_EQ(store.sets.load(), kRanks);
  EXPECT_EQ(store.slice_waits.load(), kRanks);
  EXPECT_EQ(store.slice_keys.load(), kRanks * (kRanks - 1));
  EXPECT_EQ(store.waits.load(), 0);
  // Under the key prefix, one table of kRanks entries per rank.
  EXPECT_TRUE(memory.Contains("gloo/mesh/0"));
  EXPECT_TRUE(memory.Contains("gloo/mesh/5"));
  // The mesh works: a barrier over every pair.
  threads.clear();
  for (int rank = 0; rank < kRanks; ++rank) {
    threads.emplace_back([&, rank] { results[rank] = comms[rank]->Barrier(); });
  }
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < kRanks; ++rank) EXPECT_TRUE(results[rank].ok()) << results[rank];
}

TEST(GlooMeshTest, PeersBadEntryIsInvalidArgumentNamingTheRank) {
  InMemoryRendezvousStore store;
  std::string table(2 * kMeshEntryBytes, '\0');
  table[0] = 9;  // rank 1's entry for rank 0: family 9
  ASSERT_TRUE(store.Set("gloo/mesh/1", table).ok());
  auto comm = CreateGlooCommunicator(LoopbackOptions(0, 2), store);
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument) << comm.status();
  EXPECT_THAT(std::string(comm.status().message()),
              AllOf(HasSubstr("gloo rendezvous (rank 0 of 2)"), HasSubstr("rank 1"),
                    HasSubstr("family: 9")));
}

TEST(GlooMeshTest, PeersEntryWithoutItsRingLinkIsInvalidArgument) {
  InMemoryRendezvousStore store;
  const MeshAddress lane0 = V4("127.0.0.1", 40000);
  const MeshEntry lane0_only{lane0, std::nullopt};
  const MeshEntry both{lane0, RingOf(lane0, 40001)};
  // Rank 1's table with, for rank 0, an entry that is right only for a rank
  // that does not connect to it (entry 2 of rank 0 of 4).
  absl::StatusOr<std::string> of4 = EncodeMeshTable(0, {{}, lane0_only, lane0_only, both});
  ASSERT_TRUE(of4.ok()) << of4.status();
  std::string table(2 * kMeshEntryBytes, '\0');
  table.replace(0, kMeshEntryBytes, std::string(EntryOf(*of4, 2)));
  ASSERT_TRUE(store.Set("gloo/mesh/1", table).ok());
  const absl::Time start = absl::Now();
  auto comm = CreateGlooCommunicator(LoopbackOptions(0, 2), store);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2)) << "refused before any connect";
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument) << comm.status();
  EXPECT_THAT(std::string(comm.status().message()),
              AllOf(HasSubstr("gloo rendezvous (rank 0 of 2)"), HasSubstr("rank 1"),
                    HasSubstr("ring port")));
}

TEST(GlooMeshTest, PeersShortTableIsFailedPreconditionNamingItsKey) {
  InMemoryRendezvousStore store;
  ASSERT_TRUE(store.Set("gloo/mesh/0", std::string(kMeshEntryBytes, '\0')).ok());
  auto comm = CreateGlooCommunicator(LoopbackOptions(1, 2), store);
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kFailedPrecondition) << comm.status();
  EXPECT_THAT(std::string(comm.status().message()), HasSubstr("gloo/mesh/0"));
}

TEST(GlooMeshTest, PrefixedStoreForwardsTheSlicedWait) {
  InMemoryRendezvousStore memory;
  CountingStore counting(memory);
  PrefixedStore store(counting, "rail/1/");
  ASSERT_TRUE(store.Set("k", "abcd").ok());
  absl::StatusOr<std::vector<std::string>> values =
      store.WaitSlice({"k"}, ValueSlice{1, 2}, absl::Seconds(1));
  ASSERT_TRUE(values.ok()) << values.status();
  EXPECT_THAT(*values, ::testing::ElementsAre("bc"));
  EXPECT_EQ(counting.slice_waits.load(), 1);
  EXPECT_TRUE(memory.Contains("rail/1/k"));
}

}  // namespace
}  // namespace eb::transport
