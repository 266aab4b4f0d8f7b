// Baselines: the shipped file parses and holds the figures of
// FLEET_VALIDATION.md; the parser refuses what it does not understand,
// naming the line; lookups match GPU models by tokens and derive a pair
// figure from the per-NIC one.
#include <fstream>
#include <sstream>
#include <string>

#include "coordinator/validation/baselines.h"
#include "coordinator/validation/baselines_toml.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::validation {
namespace {

using ::testing::HasSubstr;

std::string ShippedFile() {
  std::ifstream in(std::string(EB_SOURCE_DIR) + "/deploy/config/baselines.toml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(BaselinesTomlTest, ShippedFileHasTheDocumentedFiguresWithSources) {
  const std::string text = ShippedFile();
  ASSERT_FALSE(text.empty());
  absl::StatusOr<BaselineTable> table = ParseBaselinesToml(text);
  ASSERT_TRUE(table.ok()) << table.status();
  struct Want {
    std::string model;
    int gpus;
    double gbps;
  };
  for (const Want& want : {Want{"NVIDIA H100 80GB HBM3", 8, 370}, Want{"NVIDIA H200", 8, 370},
                           Want{"NVIDIA H800", 8, 215}, Want{"NVIDIA A100-SXM4-80GB", 8, 200}}) {
    SCOPED_TRACE(want.model);
    const std::optional<Expected> e = ExpectedIntra(*table, want.model, want.gpus);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->busbw_gbps, want.gbps);
    EXPECT_THAT(e->description, HasSubstr("#"));  // a source: an issue or PR number
    // Every figure says where it holds: all_reduce at 8 GiB.
    EXPECT_EQ(e->at.collective, ebnccl::v1::COLLECTIVE_ALL_REDUCE);
    EXPECT_EQ(e->at.size_bytes, int64_t{8} << 30);
    EXPECT_THAT(e->description, HasSubstr("at all_reduce 8G"));
  }
  EXPECT_FALSE(ExpectedIntra(*table, "NVIDIA A800-SXM4-80GB", 8).has_value());
  EXPECT_EQ(ExpectedRail(*table, 400)->busbw_gbps, 46);
  EXPECT_EQ(ExpectedRail(*table, 200)->busbw_gbps, 24);
  EXPECT_EQ(ExpectedPair(*table, 400, 8)->busbw_gbps, 365);
  EXPECT_EQ(ExpectedPair(*table, 200, 8)->busbw_gbps, 192);
  for (const IntraBaseline& b : table->intra) EXPECT_FALSE(b.source.empty()) << b.gpu_model;
  for (const PairBaseline& b : table->pairs) EXPECT_FALSE(b.source.empty()) << b.hca_rate_gbps;
  for (const PairBaseline& b : table->pairs) EXPECT_GT(b.at.size_bytes, 0) << b.hca_rate_gbps;
}

TEST(BaselinesTomlTest, ParsesTheSubset) {
  absl::StatusOr<BaselineTable> table = ParseBaselinesToml(R"(
# comment
version = 2
[[intra]]
gpu_model = "H100"   # trailing comment
gpu_count = 8
busbw_gbps = 475.5
collective = "all_reduce"
size = "8G"
source = "a \"quoted\" # not a comment"
[[pairs]]
hca_rate_gbps = 400
hca_count = 1
busbw_gbps = 4_6
collective = "alltoall"
size = "512MiB"
source = "x"
)");
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->intra.size(), 1u);
  EXPECT_EQ(table->intra[0].gpu_model, "H100");
  EXPECT_EQ(table->intra[0].gpu_count, 8);
  EXPECT_EQ(table->intra[0].busbw_gbps, 475.5);
  EXPECT_EQ(table->intra[0].source, "a \"quoted\" # not a comment");
  ASSERT_EQ(table->pairs.size(), 1u);
  EXPECT_EQ(table->pairs[0].busbw_gbps, 46);
  EXPECT_EQ(table->intra[0].at.size_bytes, int64_t{8} << 30);
  EXPECT_EQ(table->pairs[0].at.collective, ebnccl::v1::COLLECTIVE_ALL_TO_ALL);
  EXPECT_EQ(table->pairs[0].at.size_bytes, int64_t{512} << 20);
  EXPECT_TRUE(ParseBaselinesToml("").ok());  // an empty file: no figures
}

TEST(BaselinesTomlTest, RefusesWhatItDoesNotUnderstandNamingTheLine) {
  const std::string entry =
      "[[intra]]\ngpu_model = \"H100\"\ngpu_count = 8\nbusbw_gbps = 370\nsource = \"s\"\n"
      "collective = \"all_reduce\"\nsize = \"8G\"\n";
  const std::string no_size =
      "[[intra]]\ngpu_model = \"H100\"\ngpu_count = 8\nbusbw_gbps = 370\nsource = \"s\"\n";
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"[intra]\n", "line 1: unknown table [intra]"},
      {"[[other]]\n", "line 1: unknown table"},
      {"gpu_count = 8\n", "line 1: key 'gpu_count' outside"},
      {"version = 3\n", "line 1: version must be 2"},
      {"version = 1\n", "line 1: version 1 is no longer read: version 2 gives each entry"},
      {entry + "colour = \"red\"\n", "line 8: unknown key 'colour' in [[intra]]"},
      {entry + "gpu_count = 4\n", "line 8: key 'gpu_count' given twice"},
      {no_size + "collective = \"all_reduce\"\n", "line 1: [[intra]] entry needs size"},
      {no_size + "size = \"8G\"\n", "line 1: [[intra]] entry needs collective"},
      {no_size + "collective = \"all_reduce\"\nsize = \"eight\"\n", "line 7: size: 'eight'"},
      {no_size + "collective = \"all_reduce\"\nsize = \"0\"\n", "line 7: size must be positive"},
      {no_size + "collective = \"gather\"\nsize = \"8G\"\n", "line 6: collective: "},
      {no_size + "collective = \"all_reduce\"\nsize = 8\n",
       "line 7: [[intra]] size must be a string"},
      {"[[intra]]\ngpu_model = \"H100\"\nbusbw_gbps = 370\nsource = \"s\"\n",
       "line 1: [[intra]] entry needs gpu_count"},
      {"[[intra]]\ngpu_model = \"H100\"\ngpu_count = 8.5\nbusbw_gbps = 370\nsource = \"s\"\n",
       "line 3: [[intra]] gpu_count must be a positive integer"},
      {"[[intra]]\ngpu_model = \"H100\"\ngpu_count = 8\nbusbw_gbps = -1\nsource = \"s\"\n",
       "busbw_gbps must be a positive number"},
      // Issue 32, item 5: NaN, infinities and absurd sizes are refused.
      {"[[intra]]\ngpu_model = \"H100\"\ngpu_count = 8\nbusbw_gbps = inf\nsource = \"s\"\n",
       "line 4: [[intra]] busbw_gbps must be a positive number up to 1000000"},
      {"[[intra]]\ngpu_model = \"H100\"\ngpu_count = 8\nbusbw_gbps = nan\nsource = \"s\"\n",
       "busbw_gbps must be a positive number"},
      {"[[intra]]\ngpu_model = \"H100\"\ngpu_count = 1e300\nbusbw_gbps = 1\nsource = \"s\"\n",
       "line 3: [[intra]] gpu_count must be a positive integer up to 1000000"},
      {"[[intra]]\ngpu_model = 3\ngpu_count = 8\nbusbw_gbps = 1\nsource = \"s\"\n",
       "line 2: [[intra]] gpu_model must be a string"},
      {"[[intra]]\ngpu_model = \"H100\n", "line 2: unterminated string"},
      {"[[intra]]\ngpu_model = \"H\\x\"\n", "unsupported escape"},
      {"[[intra]]\ngpu_model = fast\n", "'fast' is neither a string nor a number"},
      {"[[intra]]\njust words\n", "line 2: expected key = value"},
      {"[[pairs]]\nhca_rate_gbps = 400\nhca_count = 1\nbusbw_gbps = 46\n"
       "collective = \"all_reduce\"\nsize = \"8G\"\n",
       "[[pairs]] entry needs source"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    absl::StatusOr<BaselineTable> table = ParseBaselinesToml(c.text);
    ASSERT_FALSE(table.ok());
    EXPECT_EQ(table.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(table.status().message()), HasSubstr(c.error));
  }
}

TEST(BaselinesTest, GpuModelsMatchByTokensAndTheMostSpecificEntryWins) {
  BaselineTable table;
  table.intra = {{"H100", 8, 370, "a"}, {"H100 NVL", 8, 250, "b"}, {"H100", 4, 300, "c"}};
  EXPECT_EQ(ExpectedIntra(table, "NVIDIA H100 80GB HBM3", 8)->busbw_gbps, 370);
  EXPECT_EQ(ExpectedIntra(table, "nvidia h100 nvl", 8)->busbw_gbps, 250);
  EXPECT_EQ(ExpectedIntra(table, "NVIDIA H100 80GB HBM3", 4)->busbw_gbps, 300);
  EXPECT_FALSE(ExpectedIntra(table, "NVIDIA H100 80GB HBM3", 2).has_value());
  EXPECT_FALSE(ExpectedIntra(table, "NVIDIA H1000", 8).has_value());  // a token, not a prefix
  EXPECT_THAT(ExpectedIntra(table, "NVIDIA H100", 8)->description, HasSubstr("(a)"));
}

TEST(BaselinesTest, AFigureIsComparedOnlyAtItsCollectiveAndSizeOrLarger) {
  const FigureAt at{ebnccl::v1::COLLECTIVE_ALL_REDUCE, int64_t{8} << 30};
  EXPECT_TRUE(Comparable(at, ebnccl::v1::COLLECTIVE_ALL_REDUCE, int64_t{8} << 30));
  EXPECT_TRUE(Comparable(at, ebnccl::v1::COLLECTIVE_ALL_REDUCE, int64_t{16} << 30));
  EXPECT_FALSE(Comparable(at, ebnccl::v1::COLLECTIVE_ALL_REDUCE, int64_t{32} << 20));
  EXPECT_FALSE(Comparable(at, ebnccl::v1::COLLECTIVE_ALL_GATHER, int64_t{8} << 30));
  EXPECT_EQ(FigureAtText(at), "all_reduce 8G");
}

TEST(BaselinesTest, PairFigureIsExactOrDerivedFromThePerNicFigure) {
  BaselineTable table;
  table.pairs = {{400, 1, 46, "per nic"}, {400, 8, 365, "ring"}};
  EXPECT_EQ(ExpectedPair(table, 400, 8)->busbw_gbps, 365);
  const std::optional<Expected> derived = ExpectedPair(table, 400, 4);
  ASSERT_TRUE(derived.has_value());
  EXPECT_EQ(derived->busbw_gbps, 184);
  EXPECT_THAT(derived->description, HasSubstr("derived"));
  EXPECT_FALSE(ExpectedPair(table, 200, 8).has_value());
  EXPECT_FALSE(ExpectedRail(table, 200).has_value());
  EXPECT_EQ(ExpectedRail(table, 400)->busbw_gbps, 46);
}

TEST(BaselinesTomlTest, ASiteGlooFigureIsKeyedByLinkSpeedOrHoldsForAnyLink) {
  const std::string any =
      "[[gloo_pairs]]\nbusbw_gbps = 0.1\ncollective = \"all_reduce\"\nsize = \"1M\"\n"
      "source = \"site, any link\"\n";
  absl::StatusOr<BaselineTable> table = ParseBaselinesToml(
      "version = 2\n" + any +
      "[[gloo_pairs]]\nlink_mbps = 25000\nbusbw_gbps = 1.5\ncollective = \"all_reduce\"\n"
      "size = \"4M\"\nsource = \"site, 25G\"\n");
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->gloo_pairs.size(), 2u);
  EXPECT_EQ(table->gloo_pairs[0].link_mbps, 0);
  EXPECT_EQ(table->gloo_pairs[0].at.size_bytes, int64_t{1} << 20);
  EXPECT_EQ(table->gloo_pairs[1].link_mbps, 25000);
  // The exact speed wins; another speed, or an unknown one, takes "any".
  const std::optional<Expected> exact = ExpectedGlooPair(*table, 25000);
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ(exact->busbw_gbps, 1.5);
  EXPECT_THAT(exact->description,
              HasSubstr("Gloo pair over 25000 Mb/s links: 1.5 GB/s at all_reduce 4M (site, 25G)"));
  EXPECT_EQ(ExpectedGlooPair(*table, 10000)->busbw_gbps, 0.1);
  EXPECT_EQ(ExpectedGlooPair(*table, 0)->busbw_gbps, 0.1);
  EXPECT_THAT(ExpectedGlooPair(*table, 0)->description, HasSubstr("over any link"));
  // Without an "any" entry an unmatched speed has no figure.
  table->gloo_pairs.erase(table->gloo_pairs.begin());
  EXPECT_FALSE(ExpectedGlooPair(*table, 10000).has_value());
  EXPECT_FALSE(ExpectedGlooPair(*table, 0).has_value());
  // Gloo figures never judge NCCL tests, nor NCCL figures Gloo ones.
  EXPECT_FALSE(ExpectedPair(*table, 25, 1).has_value());

  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {any + any, "line 6: a second [[gloo_pairs]] entry without link_mbps"},
      {"[[gloo_pairs]]\nlink_mbps = 10000\n" + any.substr(15) +
           "[[gloo_pairs]]\nlink_mbps = "
           "10000\n" +
           any.substr(15),
       "line 7: a second [[gloo_pairs]] entry for link_mbps = 10000"},
      {"[[gloo_pairs]]\nlink_mbps = 0\n" + any.substr(15),
       "line 2: [[gloo_pairs]] link_mbps must be a positive integer"},
      {"[[gloo_pairs]]\nlink_mbps = 10000.5\n" + any.substr(15), "must be a positive integer"},
      {any + "hca_count = 1\n", "line 6: unknown key 'hca_count' in [[gloo_pairs]]"},
      {"[[gloo_pairs]]\nbusbw_gbps = 0.1\nsource = \"s\"\n", "[[gloo_pairs]] entry needs"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    absl::StatusOr<BaselineTable> bad = ParseBaselinesToml(c.text);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(bad.status().message()), HasSubstr(c.error));
  }
}

}  // namespace
}  // namespace eb::validation
