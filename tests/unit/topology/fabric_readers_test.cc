// The readers of a fabric: ibnetdiscover's output and the TOML map, each
// refusing hostile input by line; CheckFabric; the inventory comparison.
#include <string>

#include "absl/strings/str_cat.h"
#include "coordinator/topology/fabric.h"
#include "coordinator/topology/fabric_source.h"
#include "coordinator/topology/fabric_toml.h"
#include "coordinator/topology/ibnetdiscover.h"
#include "coordinator/topology/inventory_match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace eb::topology {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// Two leaves and one spine, two hosts of two HCAs each (hand-written in
// ibnetdiscover's format, as `ibnetdiscover` prints it).
constexpr char kIbnetdiscover[] = R"(#
# Topology file: generated on Mon Dec  7 02:00:00 2026
#
# Initiated from node 0002c90300000001 port 0002c90300000002

vendid=0x2c9
devid=0xd2f2
sysimgguid=0x0002c90300a00000
switchguid=0x2c90300a00000(2c90300a00000)
Switch	64 "S-0002c90300a00000"		# "spine-1" enhanced port 0 lid 1 lmc 0
[33]	"S-0002c90300b00000"[41]		# "leaf-1" lid 2 4xNDR
[34]	"S-0002c90300c00000"[41]		# "leaf-2" lid 3 4xNDR

vendid=0x2c9
devid=0xd2f2
sysimgguid=0x0002c90300b00000
switchguid=0x2c90300b00000(2c90300b00000)
Switch	64 "S-0002c90300b00000"		# "leaf-1" enhanced port 0 lid 2 lmc 0
[1]	"H-0002c90300000010"[1](2c90300000011) 		# "gpu01 mlx5_0" lid 10 4xNDR
[2]	"H-0002c90300000020"[1](2c90300000021) 		# "gpu02 mlx5_0" lid 11 4xNDR
[41]	"S-0002c90300a00000"[33]		# "spine-1" lid 1 4xNDR

switchguid=0x2c90300c00000(2c90300c00000)
Switch	64 "S-0002c90300c00000"		# "leaf-2" enhanced port 0 lid 3 lmc 0
[1]	"H-0002c90300000110"[1](2c90300000111) 		# "gpu01 mlx5_10" lid 12 4xNDR
[2]	"H-0002c90300000120"[1](2c90300000121) 		# "gpu02 mlx5_10" lid 13 4xNDR
[41]	"S-0002c90300a00000"[34]		# "spine-1" lid 1 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x0002c90300000013
caguid=0x0002c90300000010
Ca	1 "H-0002c90300000010"		# "gpu01 mlx5_0"
[1](2c90300000011) 	"S-0002c90300b00000"[1]		# lid 10 lmc 0 "leaf-1" lid 2 4xNDR

caguid=0x0002c90300000020
Ca	1 "H-0002c90300000020"		# "gpu02 mlx5_0"
[1](2c90300000021) 	"S-0002c90300b00000"[2]		# lid 11 lmc 0 "leaf-1" lid 2 4xNDR

caguid=0x0002c90300000110
Ca	1 "H-0002c90300000110"		# "gpu01 mlx5_10"
[1](2c90300000111) 	"S-0002c90300c00000"[1]		# lid 12 lmc 0 "leaf-2" lid 3 4xNDR

caguid=0x0002c90300000120
Ca	1 "H-0002c90300000120"		# "gpu02 mlx5_10"
[1](2c90300000121) 	"S-0002c90300c00000"[2]		# lid 13 lmc 0 "leaf-2" lid 3 4xNDR
)";

TEST(Ibnetdiscover, ReadsCablesUplinksAndRails) {
  auto fabric = ParseIbnetdiscover(kIbnetdiscover);
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  ASSERT_EQ(fabric->cables.size(), 4u);
  ASSERT_EQ(fabric->uplinks.size(), 2u);
  for (const Cable& cable : fabric->cables) {
    // mlx5_0 before mlx5_10: natural order, not text order.
    EXPECT_EQ(cable.rail, cable.hca == "mlx5_0" ? 0 : 1) << cable.node << " " << cable.hca;
    EXPECT_EQ(cable.leaf, cable.rail == 0 ? "leaf-1" : "leaf-2");
    EXPECT_EQ(cable.leaf_port, cable.node == "gpu01" ? 1 : 2);
  }
  for (const Uplink& uplink : fabric->uplinks) {
    EXPECT_EQ(uplink.spine, "spine-1");
    EXPECT_EQ(uplink.leaf_port, 41);
    EXPECT_EQ(uplink.spine_port, uplink.leaf == "leaf-1" ? 33 : 34);
  }
  EXPECT_EQ(fabric->switch_guids.at("spine-1"), "0x0002c90300a00000");
}

TEST(Ibnetdiscover, NaturalOrder) {
  EXPECT_TRUE(NaturalLess("mlx5_2", "mlx5_10"));
  EXPECT_FALSE(NaturalLess("mlx5_10", "mlx5_2"));
  EXPECT_TRUE(NaturalLess("mlx5_0", "mlx5_00a"));
  EXPECT_FALSE(NaturalLess("a", "a"));
}

// Replaces the first occurrence of `from` in the sample.
std::string Edited(const std::string& from, const std::string& to) {
  std::string text = kIbnetdiscover;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Ibnetdiscover, RefusesHostileInputNamingTheLine) {
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"[1]\t\"H-0002c90300000010\"[1]\n", "line 1: a port line before any node"},
      {Edited("[33]\t\"S-0002c90300b00000\"[41]", "[0]\t\"S-0002c90300b00000\"[41]"),
       "line 11: not \"[port]\""},
      {Edited("[33]\t\"S-0002c90300b00000\"[41]", "[33]\t\"S-00zz\"[41]"),
       "line 11: no quoted peer"},
      {Edited("[33]\t\"S-0002c90300b00000\"[41]", "[33]\t\"S-0002c90300b00000\"[41] junk"),
       "line 11: text after the peer"},
      {Edited("[33]\t\"S-0002c90300b00000\"[41]", "[33]\t\"S-00000000000000ff\"[41]"),
       "line 11: peer 00000000000000ff is never declared"},
      {Edited("[34]\t\"S-0002c90300c00000\"[41]", "[34]\t\"S-0002c90300c00000\"[42]"),
       "lists a different peer"},
      {Edited("Switch\t64 \"S-0002c90300a00000\"", "Switch\t99999 \"S-0002c90300a00000\""),
       "line 10: no port count"},
      {Edited("Ca\t1 \"H-0002c90300000010\"", "Ca\t1 \"S-0002c90300000010\""),
       "does not match the node type"},
      {Edited("caguid=0x0002c90300000020\nCa\t1 \"H-0002c90300000020\"",
              "Ca\t1 \"H-0002c90300000010\""),
       "declared twice"},
      {Edited("[1](2c90300000021) \t\"S-0002c90300b00000\"[2]",
              "[1](2c90300000021) \t\"S-0002c90300b00000\"[9]"),
       "the switch's own lines do not list this link"},
      {Edited("vendid=0x2c9", "this is not ibnetdiscover"), "line 6: neither a node"},
      {absl::StrCat("#\n", std::string(kMaxTopologyLineBytes + 1, 'x'), "\n"),
       "line 2: longer than"},
  };
  for (const Case& c : cases) {
    auto fabric = ParseIbnetdiscover(c.text);
    ASSERT_FALSE(fabric.ok()) << c.error;
    EXPECT_EQ(fabric.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(fabric.status().message()), HasSubstr(c.error));
  }
}

TEST(Ibnetdiscover, RefusesThreeTiers) {
  // spine-1 linked to another switch without CAs: a third tier.
  const std::string text = absl::StrCat(kIbnetdiscover, R"(
switchguid=0x2c90300d00000(2c90300d00000)
Switch	64 "S-0002c90300d00000"		# "core-1" enhanced port 0 lid 4 lmc 0
[1]	"S-0002c90300a00000"[60]		# "spine-1" lid 1 4xNDR
)");
  auto fabric = ParseIbnetdiscover(text);
  ASSERT_FALSE(fabric.ok());
  EXPECT_THAT(std::string(fabric.status().message()), HasSubstr("between two spines"));
}

constexpr char kToml[] = R"(# a two-leaf RoCE fabric
version = 1
[[cable]]
node = "gpu01"
hca = "mlx5_1"
leaf = "tor-1"
leaf_port = 1
[[cable]]
node = "gpu01"
hca = "mlx5_0"   # rail 0 by natural order
leaf = "tor-2"
leaf_port = 1
[[cable]]
node = "gpu02"
hca = "eth7"
rail = 3
leaf = "tor-1"
leaf_port = 2
[[uplink]]
leaf = "tor-1"
leaf_port = 49
spine = "spine-a"
spine_port = 1
[[switch]]
name = "spine-a"
guid = "0x1"
)";

TEST(FabricToml, ReadsTheMap) {
  auto fabric = ParseFabricToml(kToml);
  ASSERT_TRUE(fabric.ok()) << fabric.status();
  ASSERT_EQ(fabric->cables.size(), 3u);
  EXPECT_EQ(fabric->cables[0].rail, 1);  // mlx5_1 after mlx5_0
  EXPECT_EQ(fabric->cables[1].rail, 0);
  EXPECT_EQ(fabric->cables[2].rail, 3);  // given
  ASSERT_EQ(fabric->uplinks.size(), 1u);
  EXPECT_EQ(fabric->uplinks[0].spine_port, 1);
  EXPECT_EQ(fabric->switch_guids.at("spine-a"), "0x1");
}

TEST(FabricToml, RefusesBadInputNamingTheLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"version = 2\n", "line 1: version must be 1"},
      {"[fabric]\n",
       "line 1: unknown table [fabric] (expected [[cable]], [[uplink]] or [[switch]])"},
      {"[[cable]]\nnode = \"a\"\nnode = \"b\"\n", "line 3: key 'node' given twice"},
      {"[[cable]]\nnode = 5\nhca = \"x\"\nleaf = \"l\"\nleaf_port = 1\n",
       "line 2: [[cable]] node must be a string"},
      {"[[cable]]\nnode = \"a\"\nhca = \"x\"\nleaf = \"l\"\n",
       "line 1: [[cable]] entry needs leaf_port"},
      {"[[cable]]\nnode = \"a\"\nhca = \"x\"\nleaf = \"l\"\nleaf_port = 0\n",
       "line 5: [[cable]] leaf_port 0 outside 1..4096"},
      {"[[uplink]]\ncolour = \"red\"\n", "line 2: unknown key 'colour' in [[uplink]]"},
      {"[[cable]]\nnode = \"a\nb\"\n", "line 2: unterminated string"},
      {"[[cable]]\nnode = \"a\" trailing\n", "line 2: text after the value"},
      {"[[cable]]\nnode = \"a\"\nhca = \"x\"\nleaf = \"l\"\nleaf_port = 1\n"
       "[[cable]]\nnode = \"b\"\nhca = \"y\"\nleaf = \"l\"\nleaf_port = 1\n",
       "l port 1 used twice"},
  };
  for (const auto& [text, error] : cases) {
    auto fabric = ParseFabricToml(text);
    ASSERT_FALSE(fabric.ok()) << error;
    EXPECT_THAT(std::string(fabric.status().message()), HasSubstr(error));
  }
}

// [topology] format = "auto": the extension, else the first line that says.
TEST(FabricSource, AutoChoosesTheReaderByNameAndContent) {
  EXPECT_EQ(ResolveFabricFormat(kFormatAuto, "/etc/ebnccl/fabric.toml", kIbnetdiscover),
            kFormatToml);
  EXPECT_EQ(ResolveFabricFormat(kFormatAuto, "/etc/ebnccl/fabric.map", kToml), kFormatToml);
  EXPECT_EQ(ResolveFabricFormat(kFormatAuto, "/etc/ebnccl/ibnet.out", kIbnetdiscover),
            kFormatIbnetdiscover);
  EXPECT_EQ(ResolveFabricFormat(kFormatIbnetdiscover, "fabric.toml", kToml), kFormatIbnetdiscover);

  auto toml = ParseFabric(kFormatAuto, "fabric", kToml);
  ASSERT_TRUE(toml.ok()) << toml.status();
  EXPECT_EQ(toml->format, kFormatToml);
  EXPECT_FALSE(toml->fabric.cables.empty());
  auto ib = ParseFabric(kFormatAuto, "ibnet.out", kIbnetdiscover);
  ASSERT_TRUE(ib.ok()) << ib.status();
  EXPECT_EQ(ib->format, kFormatIbnetdiscover);
  EXPECT_EQ(ib->fabric.uplinks.size(), 2u);

  // The wrong reader forced on a file fails naming its line, never guesses.
  auto forced = ParseFabric(kFormatToml, "ibnet.out", kIbnetdiscover);
  EXPECT_THAT(forced.status().message(), HasSubstr("topology line"));
  EXPECT_THAT(ParseFabric(kFormatAuto, "x", " \n# only a comment\n").status().message(),
              HasSubstr("empty"));
  EXPECT_THAT(ParseFabric("yaml", "x", kToml).status().message(), HasSubstr("format 'yaml'"));
}

TEST(CheckFabric, RefusesWhatIsNotATwoTierFatTree) {
  Fabric fabric;
  fabric.cables = {{"a", "mlx5_0", 0, "leaf", 1}, {"a", "mlx5_1", 0, "leaf", 2}};
  EXPECT_THAT(std::string(CheckFabric(fabric).message()), HasSubstr("a second HCA on rail 0"));
  fabric.cables = {{"a", "mlx5_0", 0, "leaf", 1}};
  fabric.uplinks = {{"leaf", 40, "leaf", 41}};
  EXPECT_THAT(std::string(CheckFabric(fabric).message()), HasSubstr("a leaf, not a spine"));
  fabric.uplinks = {{"leaf", 40, "spine", 1}, {"spine", 2, "core", 1}};
  EXPECT_THAT(std::string(CheckFabric(fabric).message()), HasSubstr("is a spine too"));
  fabric.uplinks = {};
  fabric.cables = {{std::string(kMaxNameBytes + 1, 'n'), "mlx5_0", 0, "leaf", 1}};
  EXPECT_THAT(std::string(CheckFabric(fabric).message()), HasSubstr("name longer than"));
  fabric.cables = {{"a\x1b[31m", "mlx5_0", 0, "leaf", 1}};
  EXPECT_THAT(std::string(CheckFabric(fabric).message()), HasSubstr("control character"));
}

TEST(InventoryMatch, NamesWhatEitherSideLacks) {
  auto fabric = ParseIbnetdiscover(kIbnetdiscover);
  ASSERT_TRUE(fabric.ok());
  const std::vector<InventoryNode> fleet = {
      {"gpu01", {"mlx5_0", "mlx5_10"}},
      {"gpu02", {"mlx5_0", HcaName("mlx5_5", 2)}},  // lacks mlx5_10, has one the fabric lacks
      {"gpu03", {"mlx5_0"}},                        // not cabled
  };
  const InventoryMismatch mismatch = CompareWithInventory(*fabric, fleet);
  EXPECT_TRUE(mismatch.nodes_not_in_fleet.empty());
  EXPECT_THAT(mismatch.nodes_not_in_topology, ElementsAre("gpu03"));
  EXPECT_THAT(mismatch.hcas_not_in_fleet, ElementsAre(Pair("gpu02", "mlx5_10")));
  EXPECT_THAT(mismatch.hcas_not_in_topology, ElementsAre(Pair("gpu02", "mlx5_5/2")));
  EXPECT_FALSE(mismatch.empty());

  const InventoryMismatch fewer = CompareWithInventory(*fabric, {{"gpu01", {"mlx5_0", "mlx5_10"}}});
  EXPECT_THAT(fewer.nodes_not_in_fleet, ElementsAre("gpu02"));
  EXPECT_TRUE(CompareWithInventory(
                  *fabric, {{"gpu01", {"mlx5_0", "mlx5_10"}}, {"gpu02", {"mlx5_0", "mlx5_10"}}})
                  .empty());
}

}  // namespace
}  // namespace eb::topology

namespace eb::topology {
namespace {

// Hostile input: every single-byte change and every truncation of the
// samples is either read or refused as INVALID_ARGUMENT, never a crash.
TEST(FabricReaders, MutatedInputIsReadOrRefused) {
  const char replacements[] = {'\0', '"', '[', ']', '(', ')', '#', '=', '\n', '9', 'x', ' '};
  for (const std::string& sample : {std::string(kIbnetdiscover), std::string(kToml)}) {
    const bool toml = sample == kToml;
    auto parse = [&](const std::string& text) {
      return toml ? ParseFabricToml(text).status() : ParseIbnetdiscover(text).status();
    };
    for (size_t at = 0; at < sample.size(); at += 3) {
      for (char c : replacements) {
        std::string text = sample;
        text[at] = c;
        const absl::Status status = parse(text);
        EXPECT_TRUE(status.ok() || status.code() == absl::StatusCode::kInvalidArgument)
            << at << ": " << status;
      }
      const absl::Status truncated = parse(sample.substr(0, at));
      EXPECT_TRUE(truncated.ok() || truncated.code() == absl::StatusCode::kInvalidArgument);
    }
  }
}

}  // namespace
}  // namespace eb::topology
