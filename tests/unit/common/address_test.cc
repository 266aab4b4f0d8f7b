// ParseHostPort: the accepted forms and errors that name the flag.

#include "common/net/address.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kDefaultPort = 29470;

HostPort ParseOk(const std::string& text, bool allow_port_zero = false) {
  absl::StatusOr<HostPort> parsed =
      ParseHostPort(text, kDefaultPort, "--coordinator", allow_port_zero);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status();
  return parsed.value_or(HostPort{});
}

// The error for `text`; fails the test when it parses.
std::string ParseError(const std::string& text, absl::string_view field = "--coordinator",
                       bool allow_port_zero = false) {
  absl::StatusOr<HostPort> parsed = ParseHostPort(text, kDefaultPort, field, allow_port_zero);
  EXPECT_FALSE(parsed.ok()) << text << " parsed as " << parsed->ToString();
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << text;
  return std::string(parsed.status().message());
}

TEST(ParseHostPortTest, HostAndPort) {
  HostPort hp = ParseOk("coord.example.com:29471");
  EXPECT_EQ(hp.host, "coord.example.com");
  EXPECT_EQ(hp.port, 29471);
  EXPECT_EQ(hp.ToString(), "coord.example.com:29471");

  hp = ParseOk("10.0.0.1:1");
  EXPECT_EQ(hp.host, "10.0.0.1");
  EXPECT_EQ(hp.port, 1);
  EXPECT_EQ(ParseOk("h:65535").port, 65535);
}

TEST(ParseHostPortTest, BracketedIpv6) {
  HostPort hp = ParseOk("[::1]:8080");
  EXPECT_EQ(hp.host, "::1");
  EXPECT_EQ(hp.port, 8080);
  EXPECT_EQ(hp.ToString(), "[::1]:8080");

  hp = ParseOk("[fd00:1::22]:29470");
  EXPECT_EQ(hp.host, "fd00:1::22");
  EXPECT_EQ(hp.ToString(), "[fd00:1::22]:29470");

  hp = ParseOk("[::1]");
  EXPECT_EQ(hp.host, "::1");
  EXPECT_EQ(hp.port, kDefaultPort);
}

TEST(ParseHostPortTest, BareHostTakesTheDefaultPort) {
  HostPort hp = ParseOk("coordinator");
  EXPECT_EQ(hp.host, "coordinator");
  EXPECT_EQ(hp.port, kDefaultPort);
  EXPECT_EQ(ParseOk("192.168.0.10").port, kDefaultPort);
}

TEST(ParseHostPortTest, PortOnlyMeansAllInterfaces) {
  HostPort hp = ParseOk(":8080");
  EXPECT_EQ(hp.host, "0.0.0.0");
  EXPECT_EQ(hp.port, 8080);
  EXPECT_EQ(hp.ToString(), "0.0.0.0:8080");
}

TEST(ParseHostPortTest, PortZeroOnlyWhenAllowed) {
  EXPECT_THAT(ParseError("127.0.0.1:0", "--listen"), HasSubstr("port 0 is outside 1..65535"));
  EXPECT_THAT(ParseError(":0", "--listen"), HasSubstr("outside 1..65535"));
  HostPort hp = ParseOk("127.0.0.1:0", /*allow_port_zero=*/true);
  EXPECT_EQ(hp.host, "127.0.0.1");
  EXPECT_EQ(hp.port, 0);
  hp = ParseOk(":0", /*allow_port_zero=*/true);
  EXPECT_EQ(hp.host, "0.0.0.0");
  EXPECT_EQ(hp.port, 0);
  EXPECT_EQ(ParseOk("[::]:0", /*allow_port_zero=*/true).port, 0);
  // Allowing 0 does not allow negative ports.
  EXPECT_THAT(ParseError("h:-1", "--listen", /*allow_port_zero=*/true),
              HasSubstr("outside 0..65535"));
}

TEST(ParseHostPortTest, OutOfRangePorts) {
  EXPECT_THAT(ParseError("host:65536"), HasSubstr("port 65536 is outside 1..65535"));
  EXPECT_THAT(ParseError("host:-5"), HasSubstr("port -5 is outside"));
  EXPECT_THAT(ParseError("[::1]:70000"), HasSubstr("outside 1..65535"));
}

TEST(ParseHostPortTest, NonNumericPorts) {
  EXPECT_THAT(ParseError("host:http"), HasSubstr("port 'http' is not a number"));
  EXPECT_THAT(ParseError("host:80x"), HasSubstr("not a number"));
  EXPECT_THAT(ParseError("host:99999999999999999999"), HasSubstr("not a number"));
  EXPECT_THAT(ParseError("[::1]:abc"), HasSubstr("not a number"));
}

TEST(ParseHostPortTest, Ipv6WithoutBracketsIsRefused) {
  EXPECT_THAT(ParseError("::1"), HasSubstr("IPv6 addresses need brackets"));
  EXPECT_THAT(ParseError("fe80::1:8080"), HasSubstr("need brackets"));
}

TEST(ParseHostPortTest, MalformedInput) {
  EXPECT_THAT(ParseError(""), HasSubstr("empty"));
  EXPECT_THAT(ParseError("[::1"), HasSubstr("missing ']'"));
  EXPECT_THAT(ParseError("[::1]8080"), HasSubstr("expected ':' after ']'"));
  EXPECT_THAT(ParseError("[]:80"), HasSubstr("empty host"));
}

TEST(ParseHostPortTest, ErrorsNameTheFieldAndTheInput) {
  EXPECT_THAT(ParseError("host:x", "--listen"), StartsWith("--listen: 'host:x'"));
  EXPECT_THAT(ParseError("::1", "--coordinator"), StartsWith("--coordinator: '::1'"));
  EXPECT_THAT(ParseError("h:0", "--bootstrap-address"),
              StartsWith("--bootstrap-address: 'h:0' is not a valid address"));
}

}  // namespace
}  // namespace eb::common
