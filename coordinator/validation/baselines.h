#pragma once

// Expected busbw by hardware: the shipped table (deploy/config/baselines.toml,
// every figure with its source) and its lookups. A missing figure is not an
// error: the verdict then rests on the fleet median alone and says so.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ebnccl/v1/common.pb.h"

namespace eb::validation {

// Where a figure holds: the collective and the message size it was measured
// at (nccl-tests' -e). A figure is a plateau figure: busbw at that size and
// above. Smaller sizes are below the plateau, so the figure is never
// compared with them (Comparable).
struct FigureAt {
  ebnccl::v1::Collective collective = ebnccl::v1::COLLECTIVE_ALL_REDUCE;
  int64_t size_bytes = 0;
};

// One node alone, all its GPUs (the intra suite).
struct IntraBaseline {
  // Matched by tokens, case-insensitively: "H100" matches "NVIDIA H100 80GB
  // HBM3" (every token of this field is a token of the node's model; tokens
  // are split at spaces, '-' and '_'). The entry with most tokens wins.
  std::string gpu_model;
  int gpu_count = 0;
  double busbw_gbps = 0;
  std::string source;  // where the figure comes from
  FigureAt at;
};

// A 2-node test over `hca_count` HCAs of `hca_rate_gbps` each (the pairs
// suite). hca_count 1 is the per-NIC (per-rail) figure.
struct PairBaseline {
  int64_t hca_rate_gbps = 0;
  int hca_count = 0;
  double busbw_gbps = 0;
  std::string source;
  FigureAt at;
};

// A 2-node Gloo test (CPU/TCP data plane, the pairs suite) over the nodes'
// bootstrap interfaces. No figure is published for Gloo: TCP through the
// kernel reaches a share of line rate that depends on the CPU, the MTU and
// the kernel, so an entry is the site's own measurement (docs/CONFIG.md,
// "A site figure for Gloo hosts"). The interface's speed is only the key,
// never a figure: a veth reports 10000 Mb/s whatever shapes it.
struct GlooPairBaseline {
  // The bootstrap interface's speed as the kernel reports it, Mb/s (the
  // slower node's); 0 = any link (the fleet-wide figure).
  int64_t link_mbps = 0;
  double busbw_gbps = 0;
  std::string source;
  FigureAt at;
};

struct BaselineTable {
  std::vector<IntraBaseline> intra;
  std::vector<PairBaseline> pairs;
  std::vector<GlooPairBaseline> gloo_pairs;
};

// What a result is expected to reach, and how we know.
struct Expected {
  double busbw_gbps = 0;
  std::string description;  // "H200 x8 intra: 370 GB/s at all_reduce 8G (nccl-tests #212)"
  FigureAt at;
};

// Whether a figure that holds `at` may be compared with a measurement of
// `collective` at `graded_bytes`: the same collective, at the figure's size
// or above (the plateau holds upward; below it busbw is lower on healthy
// hardware, and the figure would call it slow).
bool Comparable(const FigureAt& at, ebnccl::v1::Collective collective, int64_t graded_bytes);
// "all_reduce 8G"
std::string FigureAtText(const FigureAt& at);

std::optional<Expected> ExpectedIntra(const BaselineTable& table, const std::string& gpu_model,
                                      int gpu_count);
// An entry for exactly (rate, count), else the per-NIC figure (count 1)
// times count, described as derived.
std::optional<Expected> ExpectedPair(const BaselineTable& table, int64_t hca_rate_gbps,
                                     int hca_count);
// The per-NIC figure of one rail of a split pair test.
std::optional<Expected> ExpectedRail(const BaselineTable& table, int64_t hca_rate_gbps);
// A Gloo pair over a link of `link_mbps` (0: unknown): the entry for
// exactly that speed, else the entry for any link.
std::optional<Expected> ExpectedGlooPair(const BaselineTable& table, int64_t link_mbps);

}  // namespace eb::validation
