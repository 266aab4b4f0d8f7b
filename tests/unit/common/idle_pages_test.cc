// ReturnIdlePages on this process's real memory: the resident pages of a
// file's read-only mapping are dropped and read again intact, while a
// private page the process changed (as the loader does to RELRO) keeps its
// change.

#include "common/memory/idle_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/memory/smaps.h"
#include "gtest/gtest.h"

namespace eb::common {
namespace {

constexpr size_t kPages = 64;

// The resident kB of this process's mapping that starts at `address`.
int64_t ResidentKbAt(const void* address) {
  std::ifstream in("/proc/self/smaps");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<std::vector<Mapping>> mappings = ParseSmaps(text);
  if (!mappings.ok()) return -1;
  for (const Mapping& mapping : *mappings) {
    if (mapping.start == reinterpret_cast<uint64_t>(address)) return mapping.rss_kb;
  }
  return -1;
}

class IdlePagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    char dir_template[] = "/tmp/eb-idle-pages-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    path_ = dir_ + "/data";
    std::ofstream out(path_, std::ios::binary);
    for (size_t i = 0; i < kPages * page_; ++i) out.put(static_cast<char>('a' + i % 26));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Maps the file privately and reads every page.
  const char* MapAndTouch(int protection) {
    const int fd = open(path_.c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    void* data = mmap(nullptr, kPages * page_, protection, MAP_PRIVATE, fd, 0);
    close(fd);
    EXPECT_NE(data, MAP_FAILED);
    const char* bytes = static_cast<const char*>(data);
    volatile char sum = 0;
    for (size_t i = 0; i < kPages; ++i) sum = sum + bytes[i * page_];
    return bytes;
  }

  size_t page_ = 4096;
  std::string dir_;
  std::string path_;
};

TEST_F(IdlePagesTest, AFilesCleanPagesAreDroppedAndReadAgainIntact) {
  const char* data = MapAndTouch(PROT_READ);
  EXPECT_EQ(ResidentKbAt(data), static_cast<int64_t>(kPages * page_ / 1024));
  absl::StatusOr<ReturnedPages> returned = ReturnIdlePages();
  ASSERT_TRUE(returned.ok()) << returned.status();
  EXPECT_GT(returned->mappings, 0);
  EXPECT_GT(returned->rss_before_kb, 0);
  EXPECT_LT(returned->rss_after_kb, returned->rss_before_kb);
  EXPECT_EQ(ResidentKbAt(data), 0);
  for (size_t i = 0; i < kPages * page_; i += 997) {
    ASSERT_EQ(data[i], static_cast<char>('a' + i % 26)) << i;
  }
  munmap(const_cast<char*>(data), kPages * page_);
}

TEST_F(IdlePagesTest, APrivatePageTheProcessChangedKeepsItsChange) {
  // What the loader does to a library's RELRO: write, then make read-only.
  char* data = const_cast<char*>(MapAndTouch(PROT_READ | PROT_WRITE));
  data[5 * page_] = '!';
  ASSERT_EQ(mprotect(data, kPages * page_, PROT_READ), 0);
  absl::StatusOr<ReturnedPages> returned = ReturnIdlePages();
  ASSERT_TRUE(returned.ok()) << returned.status();
  EXPECT_EQ(data[5 * page_], '!');
  // The whole mapping is kept: its clean pages too.
  EXPECT_EQ(ResidentKbAt(data), static_cast<int64_t>(kPages * page_ / 1024));
  munmap(data, kPages * page_);
}

}  // namespace
}  // namespace eb::common
