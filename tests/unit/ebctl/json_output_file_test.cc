// The -J file of `ebctl run-test`: never overwrites (FILE.0, FILE.1, ... as nccl-tests 2.19),
// and leaves nothing behind when no report was written into it.

#include "coordinator/ebctl/commands/json_output_file.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/ebctl/output_dir_fixture.h"

namespace eb::ebctl {
namespace {

using ::testing::HasSubstr;

class JsonOutputFileTest : public OutputDirTest {};

TEST_F(JsonOutputFileTest, WritesTheReportAndKeepsTheFile) {
  absl::StatusOr<JsonOutputFile> file = JsonOutputFile::Create(Path("r.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_TRUE(file->is_open());
  EXPECT_EQ(file->name(), Path("r.json"));
  ASSERT_TRUE(file->WriteAndClose("{}\n").ok());
  EXPECT_FALSE(file->is_open());
  file = JsonOutputFile();  // the written file stays
  EXPECT_EQ(Read(Path("r.json")), "{}\n");
}

TEST_F(JsonOutputFileTest, ATakenNameGetsTheNextFreeSuffix) {
  std::ofstream(Path("r.json")) << "earlier";
  std::ofstream(Path("r.json.0")) << "earlier";
  absl::StatusOr<JsonOutputFile> file = JsonOutputFile::Create(Path("r.json"));
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->name(), Path("r.json.1"));
  ASSERT_TRUE(file->WriteAndClose("{}\n").ok());
  EXPECT_EQ(Read(Path("r.json")), "earlier");
}

TEST_F(JsonOutputFileTest, AFileNeverWrittenIsRemoved) {
  {
    absl::StatusOr<JsonOutputFile> file = JsonOutputFile::Create(Path("r.json"));
    ASSERT_TRUE(file.ok()) << file.status();
    JsonOutputFile moved = *std::move(file);
    EXPECT_TRUE(std::filesystem::exists(Path("r.json")));
  }
  EXPECT_FALSE(std::filesystem::exists(Path("r.json")));
}

TEST_F(JsonOutputFileTest, ADirectoryThatDoesNotExistNamesTheFlag) {
  const absl::StatusOr<JsonOutputFile> file = JsonOutputFile::Create(Path("none/r.json"));
  EXPECT_EQ(file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(file.status().message()), HasSubstr("-J/--output-file: cannot create"));
}

// Issue 32 item 9: -J writes only a file it created. A symbolic link
// (dangling or not) or a FIFO at the name is a taken name: never followed,
// written or replaced; the report goes to FILE.0.
TEST_F(JsonOutputFileTest, P2_7_2_ALinkOrAFifoIsATakenNameNeverWritten) {
  const std::string target = Path("target.json");
  ASSERT_EQ(symlink(target.c_str(), Path("link.json").c_str()), 0);  // dangling
  ASSERT_EQ(mkfifo(Path("fifo.json").c_str(), 0644), 0);
  for (const char* name : {"link.json", "fifo.json"}) {
    absl::StatusOr<JsonOutputFile> file = JsonOutputFile::Create(Path(name));
    ASSERT_TRUE(file.ok()) << file.status();
    EXPECT_EQ(file->name(), Path(name) + ".0");
    ASSERT_TRUE(file->WriteAndClose("{}\n").ok());
    EXPECT_EQ(Read(Path(name) + ".0"), "{}\n");
  }
  EXPECT_FALSE(std::filesystem::exists(target));  // the link was not followed
  EXPECT_TRUE(std::filesystem::is_fifo(Path("fifo.json")));
}

}  // namespace
}  // namespace eb::ebctl
