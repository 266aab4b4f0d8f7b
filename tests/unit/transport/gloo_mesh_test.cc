// The full-mesh exchange of issue 15: the address table's encoding, and
// that a Gloo rank makes exactly one Set and one WaitSlice on the store
// (gloo's own connectFullMesh made two calls per peer), with the peers'
// bad entries refused naming the rank and field.

#include <arpa/inet.h>
#include <netinet/in.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

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

TEST(MeshTableTest, EachRanksEntryRoundTrips) {
  const std::vector<MeshAddress> peers = {V4("10.1.2.3", 40001), MeshAddress{},
                                          V6("fe80::1", 40003, 7, 12345)};
  absl::StatusOr<std::string> table = EncodeMeshTable(1, peers);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->size(), 3u * kMeshEntryBytes);
  EXPECT_EQ(table->substr(kMeshEntryBytes, kMeshEntryBytes), std::string(kMeshEntryBytes, '\0'));

  const ValueSlice slice0 = MeshEntrySlice(0);
  absl::StatusOr<MeshAddress> first =
      DecodeMeshEntry(absl::string_view(*table).substr(slice0.offset, slice0.length), /*peer=*/1);
  ASSERT_TRUE(first.ok()) << first.status();
  const auto* in = reinterpret_cast<const sockaddr_in*>(&first->address);
  EXPECT_EQ(in->sin_family, AF_INET);
  EXPECT_EQ(ntohs(in->sin_port), 40001);
  char ip[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
  EXPECT_STREQ(ip, "10.1.2.3");
  EXPECT_EQ(first->seq, -1);

  const ValueSlice slice2 = MeshEntrySlice(2);
  absl::StatusOr<MeshAddress> third =
      DecodeMeshEntry(absl::string_view(*table).substr(slice2.offset, slice2.length), /*peer=*/1);
  ASSERT_TRUE(third.ok()) << third.status();
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&third->address);
  EXPECT_EQ(in6->sin6_family, AF_INET6);
  EXPECT_EQ(ntohs(in6->sin6_port), 40003);
  EXPECT_EQ(in6->sin6_scope_id, 7u);
  inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
  EXPECT_STREQ(ip, "fe80::1");
  EXPECT_EQ(third->seq, 12345);
}

TEST(MeshTableTest, BadInputNamesTheField) {
  MeshAddress unix_socket;
  unix_socket.address.ss_family = AF_UNIX;
  EXPECT_THAT(std::string(EncodeMeshTable(0, {MeshAddress{}, unix_socket}).status().message()),
              HasSubstr("peers[1].address"));
  EXPECT_EQ(EncodeMeshTable(2, {MeshAddress{}, unix_socket}).status().code(),
            absl::StatusCode::kInvalidArgument);

  std::string entry(kMeshEntryBytes, '\0');
  EXPECT_THAT(std::string(DecodeMeshEntry(entry, 5).status().message()),
              AllOf(HasSubstr("rank 5"), HasSubstr("family: 0")));
  EXPECT_THAT(std::string(DecodeMeshEntry(entry.substr(1), 5).status().message()),
              HasSubstr("entry: 35 bytes"));
  entry[0] = 4;
  entry[1] = 1;
  EXPECT_THAT(std::string(DecodeMeshEntry(entry, 5).status().message()), HasSubstr("padding"));
  entry[1] = 0;
  entry[20] = 1;  // IPv6 flow info in an IPv4 entry
  EXPECT_THAT(std::string(DecodeMeshEntry(entry, 5).status().message()), HasSubstr("padding"));
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
