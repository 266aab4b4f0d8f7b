// The log line format, with and without journald's syslog priority prefix,
// and the check that stderr really is the journal stream.

#include "common/logging/logging.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "spdlog/logger.h"
#include "spdlog/sinks/ostream_sink.h"

namespace eb::common {
namespace {

using ::testing::StartsWith;

// Lines a logger with MakeLogFormatter(prefix) writes for one message of
// each of `levels`.
std::string Render(bool prefix) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(out);
  sink->set_formatter(MakeLogFormatter(prefix));
  spdlog::logger logger("test", sink);
  logger.set_level(spdlog::level::trace);
  logger.debug("d");
  logger.info("i");
  logger.warn("w");
  logger.error("e");
  logger.critical("c");
  return out.str();
}

TEST(LoggingTest, PlainLinesCarryTimeLevelPidAndThread) {
  const std::string text = Render(false);
  EXPECT_THAT(text, StartsWith("["));
  const std::regex line(
      R"((\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [DIWEC] \d+ \d+\] [diwec]\n){5})");
  EXPECT_TRUE(std::regex_match(text, line)) << text;
}

TEST(LoggingTest, JournalLinesStartWithTheSyslogPriority) {
  const std::string text = Render(true);
  std::istringstream lines(text);
  std::string line;
  for (const char* expected : {"<7>[", "<6>[", "<4>[", "<3>[", "<2>["}) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_THAT(line, StartsWith(expected));
  }
}

TEST(LoggingTest, StderrIsTheJournalOnlyWhenJournalStreamNamesIt) {
  struct stat st {};
  ASSERT_EQ(fstat(STDERR_FILENO, &st), 0);
  const char* saved = std::getenv("JOURNAL_STREAM");
  const std::string previous = saved != nullptr ? saved : "";

  unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(StderrIsJournal());
  setenv("JOURNAL_STREAM", absl::StrCat(st.st_dev, ":", st.st_ino).c_str(), 1);
  EXPECT_TRUE(StderrIsJournal());
  // Inherited from a parent whose stderr was the journal, but this one's
  // goes elsewhere.
  setenv("JOURNAL_STREAM", absl::StrCat(st.st_dev, ":", st.st_ino + 1).c_str(), 1);
  EXPECT_FALSE(StderrIsJournal());
  setenv("JOURNAL_STREAM", "garbage", 1);
  EXPECT_FALSE(StderrIsJournal());

  if (saved != nullptr) {
    setenv("JOURNAL_STREAM", previous.c_str(), 1);
  } else {
    unsetenv("JOURNAL_STREAM");
  }
}

}  // namespace
}  // namespace eb::common
