#pragma once

// The collectives: one row each, the one place that says what a collective
// is. Everything that depends on which collective runs reads its row: the
// names people type and print (common/spec/names.h), the wire enum
// (common/spec/proto_enums.h), the buffer layout and the printed size and
// count (collective_layout.h), algbw and busbw (bandwidth.h), the data
// patterns' buffer extents (pattern.h), which transports may run it
// (coordinator/core/collective_tests/transport_selection.cc) and ebctl's "all" and help text.
// What stays per collective elsewhere is what cannot be data: its Gloo call
// (gloo/gloo_collectives.cc), its NCCL call (nccl/nccl_collectives.cc) and
// its expected values (pattern.h, Expected). docs/DESIGN.md, "How to add a
// collective", lists the steps.
//
// No dependency but <stdint.h>: CUDA kernels (pattern.h compiled by nvcc)
// read the rows on the device. The table is a constexpr function with one
// case per collective rather than an array, because device code may call a
// constexpr function but may not read a host array, and because -Wswitch
// then names a collective added to the enum without a row.

#include <stdint.h>

#if defined(__CUDACC__)
#define EB_HOST_DEVICE __host__ __device__
#else
#define EB_HOST_DEVICE
#endif

namespace eb::transport {

enum class Collective {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kSendRecv,  // ring shift: send to rank+1, receive from rank-1
};

// Every collective, in declaration order (sweeps over all of them, name
// lookups, ebctl's "all").
inline constexpr Collective kAllCollectives[] = {Collective::kAllReduce,     Collective::kAllGather,
                                                 Collective::kReduceScatter, Collective::kBroadcast,
                                                 Collective::kReduce,        Collective::kAllToAll,
                                                 Collective::kSendRecv};

// Which data planes implement a collective (bits of CollectiveRow::transports).
inline constexpr unsigned kGlooTransport = 1u << 0;
inline constexpr unsigned kNcclTransport = 1u << 1;

// busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md and each *GetBw()).
enum class BusBwRule {
  kOne,                 // 1
  kRanksMinusOneOverN,  // (n-1)/n
  kTwiceRanksMinusOne,  // 2(n-1)/n
};

// Where nccl-tests' in-place form puts the send (or receive) pointer.
enum class InPlaceForm {
  kSameBuffer,       // send == recv
  kSendAtRankChunk,  // send = recv + rank * count (all_gather)
  kRecvAtRankChunk,  // recv = send + rank * count (reduce_scatter)
};

struct CollectiveRow {
  Collective collective = Collective::kAllReduce;
  // Its ebnccl.v1.Collective number (common.proto); tests/unit/spec checks
  // that every wire value has exactly one row and that the names agree.
  int wire = 0;
  // nccl-tests' name (its binary without _perf): what ebctl prints.
  const char* name = "unknown";
  // Other spellings ebctl accepts, comma-separated ("" for none).
  const char* aliases = "";
  // Applies the reduction operator (nccl-tests' redop column, else "none").
  bool reducing = false;
  // Has a root rank (nccl-tests' root column, else -1).
  bool rooted = false;
  // The count passed to the call is one rank's chunk of the swept size
  // (size / element / nranks, rounded down to 16 bytes' worth), not the
  // whole buffer; algbw's S is then count x type size x nranks.
  bool count_is_chunk = false;
  // The send region holds nranks chunks (else one count).
  bool sends_every_chunk = false;
  // The receive region holds nranks chunks (else one count).
  bool receives_every_chunk = false;
  // Only the root's receive region is defined (reduce: NCCL leaves the
  // others' alone).
  bool only_root_receives = false;
  // Only the root's send region is read (broadcast).
  bool only_root_sends = false;
  // Run in place, a rank receives into send data it has not sent yet
  // (alltoall, sendrecv): a transport stages the send data, and a check of
  // in-place data cannot tell the result from the input.
  bool in_place_overwrites_unsent = false;
  InPlaceForm in_place = InPlaceForm::kSameBuffer;
  BusBwRule busbw = BusBwRule::kOne;
  // kGlooTransport | kNcclTransport: the data planes that run it.
  unsigned transports = 0;
};

// The row of `collective`. A field left out of a row is false, "", or the
// default above.
// One row per line reads as a table.
// clang-format off
EB_HOST_DEVICE constexpr CollectiveRow Row(Collective collective) {
  constexpr unsigned kBoth = kGlooTransport | kNcclTransport;
  switch (collective) {
    case Collective::kAllReduce:
      return {.collective = collective, .wire = 1, .name = "all_reduce", .aliases = "allreduce",
              .reducing = true,
              .busbw = BusBwRule::kTwiceRanksMinusOne, .transports = kBoth};
    case Collective::kAllGather:
      return {.collective = collective, .wire = 2, .name = "all_gather", .aliases = "allgather",
              .count_is_chunk = true, .receives_every_chunk = true,
              .in_place = InPlaceForm::kSendAtRankChunk,
              .busbw = BusBwRule::kRanksMinusOneOverN, .transports = kBoth};
    case Collective::kReduceScatter:
      return {.collective = collective, .wire = 3, .name = "reduce_scatter", .aliases = "reducescatter",
              .reducing = true, .count_is_chunk = true, .sends_every_chunk = true,
              .in_place = InPlaceForm::kRecvAtRankChunk,
              .busbw = BusBwRule::kRanksMinusOneOverN, .transports = kBoth};
    case Collective::kBroadcast:
      return {.collective = collective, .wire = 4, .name = "broadcast", .aliases = "bcast",
              .rooted = true, .only_root_sends = true,
              .transports = kBoth};
    case Collective::kReduce:
      return {.collective = collective, .wire = 5, .name = "reduce",
              .reducing = true, .rooted = true, .only_root_receives = true,
              .transports = kBoth};
    case Collective::kAllToAll:
      return {.collective = collective, .wire = 6, .name = "alltoall", .aliases = "all_to_all",
              .count_is_chunk = true, .sends_every_chunk = true, .receives_every_chunk = true,
              .in_place_overwrites_unsent = true,
              .busbw = BusBwRule::kRanksMinusOneOverN, .transports = kBoth};
    case Collective::kSendRecv:
      return {.collective = collective, .wire = 7, .name = "sendrecv", .aliases = "send_recv",
              .in_place_overwrites_unsent = true,
              .transports = kBoth};
  }
  // Only a value outside the enum reaches here.
  return {.collective = collective};
}
// clang-format on

// nccl-tests' name ("unknown" for a value outside the enum).
EB_HOST_DEVICE constexpr const char* Name(Collective collective) { return Row(collective).name; }
// True for collectives that apply a reduction operator (all_reduce, reduce,
// reduce_scatter); the others print redop "none" like nccl-tests.
EB_HOST_DEVICE constexpr bool IsReducing(Collective collective) { return Row(collective).reducing; }
// True for collectives with a root rank (broadcast, reduce); the others print
// root -1 like nccl-tests.
EB_HOST_DEVICE constexpr bool IsRooted(Collective collective) { return Row(collective).rooted; }

// Elements of a rank's send region for a call of `count` over `nranks`.
EB_HOST_DEVICE constexpr uint64_t SendElementsOf(Collective collective, uint64_t count,
                                                 int nranks) {
  return Row(collective).sends_every_chunk ? count * static_cast<uint64_t>(nranks) : count;
}
// Elements of the receive region a collective defines on a rank that
// receives (see only_root_receives for which ranks do).
EB_HOST_DEVICE constexpr uint64_t RecvElementsOf(Collective collective, uint64_t count,
                                                 int nranks) {
  return Row(collective).receives_every_chunk ? count * static_cast<uint64_t>(nranks) : count;
}

}  // namespace eb::transport
