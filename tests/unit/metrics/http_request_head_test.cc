#include "common/metrics/http_request_head.h"

#include <string>

#include "gtest/gtest.h"

namespace eb::common {
namespace {

using Progress = HttpRequestHead::Progress;

TEST(HttpRequestHeadTest, ReadsTheRequestLineOnceTheHeadIsComplete) {
  const std::string scrape =
      "GET /metrics?name[]=x HTTP/1.1\r\nHost: node0:29471\r\nAccept: text/plain\r\n\r\n";
  for (size_t cut = 0; cut < scrape.size(); ++cut) {
    EXPECT_EQ(ParseHttpRequestHead(scrape.substr(0, cut)).progress, Progress::kIncomplete) << cut;
  }
  const HttpRequestHead head = ParseHttpRequestHead(scrape);
  ASSERT_EQ(head.progress, Progress::kComplete);
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.path, "/metrics");
  // A bare LF ends lines too; HTTP/1.0 is read.
  const HttpRequestHead lf = ParseHttpRequestHead("HEAD /metrics HTTP/1.0\n\n");
  ASSERT_EQ(lf.progress, Progress::kComplete);
  EXPECT_EQ(lf.method, "HEAD");
}

TEST(HttpRequestHeadTest, RefusesWhatIsNotARequestWithTheStatusToAnswer) {
  const std::pair<std::string, int> cases[] = {
      {"GET /metrics\r\n\r\n", 400},
      {"GET  /metrics HTTP/1.1\r\n\r\n", 400},
      {"G(T /metrics HTTP/1.1\r\n\r\n", 400},
      {"GET /met\x01rics HTTP/1.1\r\n\r\n", 400},
      {"GET /metrics FTP/1.1\r\n\r\n", 400},
      {"\r\n\r\n", 400},
      {"GET /metrics HTTP/2.0\r\n\r\n", 505},
      {"GET /metrics HTTP/1.1\r\nX: " + std::string(kMaxHttpRequestHeadBytes, 'x'), 431},
      {"GET /metrics HTTP/1.1\r\nX: " + std::string(kMaxHttpRequestHeadBytes, 'x') + "\r\n\r\n",
       431},
  };
  for (const auto& [text, status] : cases) {
    const HttpRequestHead head = ParseHttpRequestHead(text);
    EXPECT_EQ(head.progress, Progress::kBad) << text.substr(0, 40);
    EXPECT_EQ(head.status, status) << text.substr(0, 40);
    EXPECT_FALSE(head.reason.empty());
  }
}

}  // namespace
}  // namespace eb::common
