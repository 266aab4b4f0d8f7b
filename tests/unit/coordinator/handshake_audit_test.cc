// Failed TLS handshakes audited from gRPC's log line, at most once a minute
// per reason (coordinator/grpc/handshake_audit.h; issue 32, item 10).

#include "coordinator/grpc/handshake_audit.h"

#include <string>
#include <vector>

#include "coordinator/grpc/audit_log.h"
#include "coordinator/history/in_memory_audit_history.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/fake_clock.h"
#include "tests/fakes/manual_executor.h"

namespace eb::coordinator {
namespace {

using ::testing::HasSubstr;

constexpr char kWrongCa[] =
    "Handshake failed with fatal error SSL_ERROR_SSL: error:0A000086:SSL "
    "routines::certificate verify failed.";
constexpr char kPlaintext[] =
    "Handshake failed with fatal error SSL_ERROR_SSL: error:0A00010B:SSL "
    "routines::wrong version number.";

class HandshakeAuditTest : public ::testing::Test {
 protected:
  std::vector<ebnccl::v1::AuditEntry> Entries() {
    executor_.RunUntilIdle();
    return *history_.List(1000);
  }

  testing::FakeClock clock_;
  testing::ManualExecutor executor_{clock_};
  InMemoryAuditHistory history_;
  AuditLog audit_{executor_, clock_, history_};
  HandshakeAudit handshakes_{audit_, clock_};
};

// P2-6.2: failed TLS handshakes left no audit row (only gRPC's stderr). A
// flood of them leaves one row a minute per reason, counting the rest.
TEST_F(HandshakeAuditTest, P2_6_2_FailedHandshakesAreAuditedOnceAMinutePerReason) {
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(handshakes_.OnGrpcLog(kWrongCa));
  EXPECT_TRUE(handshakes_.OnGrpcLog(kPlaintext));
  std::vector<ebnccl::v1::AuditEntry> entries = Entries();
  ASSERT_EQ(entries.size(), 2u);
  clock_.Advance(absl::Minutes(1));
  EXPECT_TRUE(handshakes_.OnGrpcLog(kWrongCa));
  entries = Entries();
  ASSERT_EQ(entries.size(), 3u);
  // Newest first.
  const ebnccl::v1::AuditEntry& latest = entries[0];
  EXPECT_EQ(latest.method(), HandshakeAudit::kMethod);
  EXPECT_EQ(latest.outcome(), "UNAUTHENTICATED");
  EXPECT_THAT(latest.message(), HasSubstr("TLS handshake failed: SSL_ERROR_SSL"));
  EXPECT_THAT(
      latest.message(),
      HasSubstr(
          "certificate verify failed.; 99 more failed with this reason since the last record"));
  EXPECT_THAT(latest.peer(), HasSubstr("unknown"));
}

TEST_F(HandshakeAuditTest, OtherGrpcLinesAreNotAudited) {
  EXPECT_FALSE(handshakes_.OnGrpcLog("assertion failed: x"));
  EXPECT_FALSE(handshakes_.OnGrpcLog("Security handshake failed: {\"created\":...}"));
  EXPECT_TRUE(Entries().empty());
}

}  // namespace
}  // namespace eb::coordinator
