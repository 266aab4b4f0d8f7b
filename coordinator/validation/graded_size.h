#pragma once

// How much each validation test measures, and at which size it is graded
// (issue 29, item 3). Pure.
//
// A busbw figure means something only on its plateau: below it a healthy
// node is slower, and the fleet's median there says nothing about the
// hardware. So, unless the user gave a sweep (-b/-e):
//  * an intra test sweeps up to the plateau of its hardware (the size its
//    baselines.toml entry holds at, at least SizePolicy::sweep_max_bytes)
//    and is graded at its largest size;
//  * a pair or fleet test runs one size: its baselines entry's size, or,
//    for hardware without an entry, the plateau the intra round found (the
//    smallest size within 5 % of the largest size's busbw, the largest over
//    the fleet's nodes), or sweep_max_bytes when nothing was learned;
//  * and, unless the user gave -n, every test makes enough timed calls at
//    its graded size for each rail to move min_bytes_per_rail (with the
//    user's sweep too).

#include <cstdint>
#include <utility>
#include <vector>

#include "common/spec/graded_floor.h"

namespace eb::validation {

struct SizePolicy {
  // The user gave -b/-e: every test runs that sweep, graded at its largest
  // size, user_max_bytes (only the calls per size follow the rule below).
  bool user_sweep = false;
  int64_t user_max_bytes = 0;
  // The user gave -n: the calls per size are theirs.
  bool user_iterations = false;
  // The intra sweep when the user gave none; its top is raised to an intra
  // baseline's size. The runner sets both by data plane (NCCL, Gloo).
  int64_t sweep_min_bytes = spec::kNcclGradedFloorBytes;
  int64_t sweep_max_bytes = int64_t{1} << 30;
  // Timed bytes each rail moves per test at the graded size, at least.
  int64_t min_bytes_per_rail = int64_t{1} << 30;
  // nccl-tests' -n default: never fewer timed calls than this.
  int32_t min_iterations = 20;
  // A sweep of at most 4 x 10^6 calls per size: a tiny -e without -n must
  // not ask a test for billions of calls.
  int32_t max_iterations = 100000;
};

// What one planned test runs. 0 = the validation spec's own value.
struct TestSize {
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  int32_t iterations = 0;
  // The size whose busbw is graded (the sweep's largest); 0 when the spec's.
  int64_t graded_bytes() const { return max_bytes; }
};

// One measured size: bytes and its busbw, GB/s.
using SizeBusbw = std::pair<int64_t, double>;

// The smallest size whose busbw is within `within` (a fraction) of the
// largest size's busbw; 0 with no rows or no busbw at the largest size.
// Rows in any order.
int64_t PlateauBytes(std::vector<SizeBusbw> rows, double within = 0.05);

// Timed calls for each rail to move policy.min_bytes_per_rail at
// `graded_bytes`, within [min_iterations, max_iterations]; 0 (the spec's)
// when the user gave -n or `graded_bytes` is not positive.
int32_t IterationsFor(int64_t graded_bytes, const SizePolicy& policy);

// An intra test: the policy's sweep, its top raised to `figure_bytes` (the
// size an intra baseline holds at; 0 = none).
TestSize IntraTestSize(const SizePolicy& policy, int64_t figure_bytes);

// A pair or fleet test at one size: `figure_bytes` (its baseline's size),
// else `learned_plateau_bytes` (from the intra round), else the sweep's top.
TestSize NetworkTestSize(const SizePolicy& policy, int64_t figure_bytes,
                         int64_t learned_plateau_bytes);

}  // namespace eb::validation
