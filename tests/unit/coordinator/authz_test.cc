// Who a certificate names and what each role may do (coordinator/grpc/
// authz.h), and the listen-address rule for plaintext (config_file.h).

#include "coordinator/grpc/authz.h"

#include <map>
#include <string>

#include "coordinator/config_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::coordinator {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CallerFromCertificateTest, ClientRoleFromTheUriSan) {
  Caller caller = CallerFromCertificate({"alice"}, {"ebnccl:role:operator"}, {}, {});
  EXPECT_EQ(caller.identity, "alice");
  EXPECT_EQ(caller.role, Role::kOperator);
}

TEST(CallerFromCertificateTest, AgentCarriesItsNodeNames) {
  Caller caller = CallerFromCertificate({"host0"}, {"ebnccl:role:agent"}, {"host0"}, {});
  EXPECT_EQ(caller.role, Role::kAgent);
  EXPECT_THAT(caller.dns_names, ElementsAre("host0"));
}

TEST(CallerFromCertificateTest, HighestClientRoleWinsAndOtherUrisAreIgnored) {
  Caller caller = CallerFromCertificate(
      {"ops"}, {"spiffe://x/y", "ebnccl:role:viewer", "ebnccl:role:admin", "ebnccl:role:king"}, {},
      {});
  EXPECT_EQ(caller.role, Role::kAdmin);
}

TEST(CallerFromCertificateTest, NoRoleIsNone) {
  Caller caller = CallerFromCertificate({}, {}, {"box"}, {});
  EXPECT_EQ(caller.identity, "box");
  EXPECT_EQ(caller.role, Role::kNone);
  EXPECT_EQ(CallerFromCertificate({}, {}, {}, {}).identity, "unknown");
}

TEST(CallerFromCertificateTest, ConfigMapOverridesTheCertificate) {
  const std::map<std::string, Role> roles = {{"alice", Role::kViewer}, {"bob", Role::kAdmin}};
  EXPECT_EQ(CallerFromCertificate({"alice"}, {"ebnccl:role:admin"}, {}, roles).role, Role::kViewer);
  EXPECT_EQ(CallerFromCertificate({"bob"}, {}, {}, roles).role, Role::kAdmin);
}

TEST(AllowsTest, ClientRolesAreOrderedAndAgentsApart) {
  auto caller = [](Role role) {
    Caller c;
    c.role = role;
    return c;
  };
  EXPECT_TRUE(Allows(caller(Role::kViewer), Role::kViewer));
  EXPECT_FALSE(Allows(caller(Role::kViewer), Role::kOperator));
  EXPECT_TRUE(Allows(caller(Role::kOperator), Role::kViewer));
  EXPECT_FALSE(Allows(caller(Role::kOperator), Role::kAdmin));
  EXPECT_TRUE(Allows(caller(Role::kAdmin), Role::kOperator));
  EXPECT_FALSE(Allows(caller(Role::kAdmin), Role::kAgent));
  EXPECT_FALSE(Allows(caller(Role::kAgent), Role::kViewer));
  EXPECT_TRUE(Allows(caller(Role::kAgent), Role::kAgent));
  EXPECT_FALSE(Allows(caller(Role::kNone), Role::kViewer));
}

TEST(NeedsRoleTest, NamesTheMethodTheRoleAndTheCaller) {
  Caller vera;
  vera.identity = "vera";
  vera.role = Role::kViewer;
  absl::Status status = NeedsRole(vera, Role::kOperator, "RunTest");
  EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(status.message(), "RunTest needs role operator; vera has role viewer");
  EXPECT_THAT(NeedsRole(vera, Role::kAgent, "Session").message(),
              HasSubstr("needs an agent certificate"));
}

TEST(AbbreviateTest, LongInputIsCutAndSized) {
  EXPECT_EQ(Abbreviate("t-1"), "t-1");
  const std::string id(100000, 'x');
  EXPECT_EQ(Abbreviate(id, 4), "xxxx...(100000 bytes)");
  EXPECT_LT(Abbreviate(id).size(), 150u);
}

TEST(ParseRoleMapTest, AcceptsClientRolesOnly) {
  auto roles = ParseRoleMap({{"alice", "operator"}, {"root", "admin"}});
  ASSERT_TRUE(roles.ok());
  EXPECT_EQ(roles->at("alice"), Role::kOperator);
  auto agent = ParseRoleMap({{"x", "agent"}});
  EXPECT_EQ(agent.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(agent.status().message(), HasSubstr("'x'"));
  EXPECT_FALSE(ParseRoleMap({{"y", "root"}}).ok());
}

TEST(CheckListenSecurityTest, PlaintextOnlyOnLoopbackUnlessInsecure) {
  CoordinatorConfig config;
  config.listen_address = "0.0.0.0:29470";
  EXPECT_TRUE(CheckListenSecurity(config, "127.0.0.1").ok());
  EXPECT_TRUE(CheckListenSecurity(config, "::1").ok());
  EXPECT_TRUE(CheckListenSecurity(config, "localhost").ok());
  absl::Status refused = CheckListenSecurity(config, "0.0.0.0");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("--insecure"));
  EXPECT_THAT(refused.message(), HasSubstr("[tls] ca, cert, key"));
  config.insecure = true;
  EXPECT_TRUE(CheckListenSecurity(config, "0.0.0.0").ok());
  config.insecure = false;
  config.tls = {"ca.pem", "cert.pem", "key.pem"};
  EXPECT_TRUE(CheckListenSecurity(config, "10.0.0.1").ok());
}

}  // namespace
}  // namespace eb::coordinator
