#pragma once

// Helpers of the GPU tests (label gpu). They build and link everywhere and
// skip at run time where CUDA reports too few devices (STYLE.md section 6,
// layer 5). NCCL refuses two ranks of one communicator on one GPU, so
// multi-rank tests run one thread per GPU in this process (NCCL allows one
// process to drive several GPUs from several threads).

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <latch>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/status/status_macros.h"
#include "common/transport/collective_layout.h"
#include "common/transport/communicator.h"
#include "common/transport/nccl/nccl_communicator.h"
#include "common/transport/nccl/nccl_types.h"
#include "common/transport/types.h"
#include "gtest/gtest.h"
#include "tests/fakes/in_memory_rendezvous_store.h"

namespace eb::transport {

// gtest prints parameters with PrintTo, found by ADL: names, not bytes.
inline void PrintTo(Collective collective, std::ostream* os) { *os << Name(collective); }

}  // namespace eb::transport

namespace eb::transport::testing {

// CUDA devices this process sees (0 where there is no GPU or driver).
inline int CudaDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

// Skips the calling test unless `needed` GPUs are visible.
#define EB_SKIP_UNLESS_GPUS(needed)                                                             \
  do {                                                                                          \
    int eb_gpus_ = 0;                                                                           \
    if (cudaGetDeviceCount(&eb_gpus_) != cudaSuccess || eb_gpus_ < (needed)) {                  \
      (void)cudaGetLastError();                                                                 \
      GTEST_SKIP() << "needs " << (needed) << " CUDA device(s); this machine has " << eb_gpus_; \
    }                                                                                           \
  } while (0)

// Short timeouts: a healthy single-node init takes seconds.
inline NcclOptions TestOptions(int rank, int world_size, int device) {
  NcclOptions options;
  options.rank = rank;
  options.world_size = world_size;
  options.cuda_device = device;
  options.comm_name = "eb-gpu-test";
  options.init_timeout = absl::Seconds(60);
  options.op_timeout = absl::Seconds(30);
  return options;
}

// The pointers nccl-tests passes (startColl): out of place send -> recv; in
// place both inside the receive buffer at the rank's in-place offsets.
inline CollectiveCall BindCall(Collective c, DataType type, ReduceOp op, int root,
                               const CollectiveLayout& layout, bool in_place, int rank,
                               Buffer& send, Buffer& recv) {
  CollectiveCall call;
  call.collective = c;
  call.type = type;
  call.op = op;
  call.root = root;
  call.count = static_cast<size_t>(layout.param_count);
  auto* base = static_cast<uint8_t*>(recv.data());
  call.send =
      in_place ? base + layout.send_inplace_offset * rank * layout.element_size : send.data();
  call.recv = in_place ? base + layout.recv_inplace_offset * rank * layout.element_size : base;
  return call;
}

// Fill, one call, check: OK with 0 wrong elements, else a status naming
// `what` and the count.
inline absl::Status RoundTrip(Communicator& comm, const CollectiveCall& call, uint32_t seed,
                              const std::string& what) {
  const DataPattern pattern{call, comm.WorldSize(), seed};
  absl::Status status = comm.FillInput(pattern);
  if (status.ok()) status = comm.Run(call, 1).status();
  if (!status.ok()) return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
  absl::StatusOr<int64_t> wrong = comm.CountWrong(pattern);
  if (!wrong.ok()) {
    return absl::Status(wrong.status().code(), absl::StrCat(what, ": ", wrong.status().message()));
  }
  // Exact, except where the library itself is known to leave elements
  // unwritten (nccl_types.h): then exactly those, so that the check still
  // proves it catches them, and a fixed NCCL must give 0.
  int version = 0;
  if (ncclGetVersion(&version) != ncclSuccess) return absl::InternalError("ncclGetVersion failed");
  const int64_t expected = NcclOneRankAvgUnwritten(call, comm.WorldSize(), version);
  if (*wrong != expected) {
    return absl::InternalError(
        absl::StrCat(what, ": ", *wrong, " wrong",
                     expected == 0 ? ""
                                   : absl::StrCat(" (NCCL ", version, " is known to leave ",
                                                  expected, " unwritten: NVIDIA/nccl#1950)")));
  }
  return absl::OkStatus();
}

// Every collective x type x op (sum only for non-reducing collectives) x
// placement x size on this rank. Every rank issues the same calls.
inline absl::Status CheckEveryTypeAndOp(Communicator& comm, Collective c,
                                        const std::vector<int64_t>& sizes) {
  const int n = comm.WorldSize();
  const int root = n - 1;  // not always rank 0
  int64_t largest = 0;
  for (int64_t size : sizes) largest = std::max(largest, size);
  // Room for the largest layout of any type (8-byte elements, n chunks).
  const size_t bytes = static_cast<size_t>(largest) * static_cast<size_t>(n) + 64;
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> send, comm.Allocate(bytes));
  EB_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> recv, comm.Allocate(bytes));
  uint32_t seed = 1;
  for (DataType type : kAllDataTypes) {
    for (ReduceOp op : kAllReduceOps) {
      if (!IsReducing(c) && op != ReduceOp::kSum) continue;
      // NCCL has no avg for fp8 (ncclInvalidArgument); the communicator
      // refuses it up front, which nccl_host_logic_test checks.
      const bool fp8 = type == DataType::kFp8E4M3 || type == DataType::kFp8E5M2;
      if (fp8 && op == ReduceOp::kAvg && IsReducing(c)) continue;
      for (int64_t size : sizes) {
        EB_ASSIGN_OR_RETURN(CollectiveLayout layout, ComputeLayout(c, size, DataTypeSize(type), n));
        for (bool in_place : {false, true}) {
          const CollectiveCall call =
              BindCall(c, type, op, root, layout, in_place, comm.Rank(), *send, *recv);
          const std::string what =
              absl::StrCat(Name(c), " ", Name(type), " ", Name(op), " size ", size,
                           in_place ? " in-place" : " out-of-place", " rank ", comm.Rank(), "/", n);
          EB_RETURN_IF_ERROR(RoundTrip(comm, call, seed++, what));
        }
      }
    }
  }
  return comm.Barrier();
}

// Creates `world_size` NCCL communicators, rank r on cuda device r, each on
// its own thread with one shared in-memory store, and runs fn(comm) on each.
// A rank destroys its communicator only after every rank's fn returned, so
// that no rank finalizes under a peer's last call. Returns each rank's
// status: the creation error, or fn's.
inline std::vector<absl::Status> RunNcclRanks(
    int world_size, const std::function<absl::Status(Communicator&)>& fn,
    const std::function<void(NcclOptions&)>& tweak = nullptr) {
  eb::testing::InMemoryRendezvousStore store;
  std::vector<absl::Status> results(world_size);
  std::latch created(world_size);
  std::latch done(world_size);
  std::vector<std::thread> threads;
  threads.reserve(world_size);
  for (int rank = 0; rank < world_size; ++rank) {
    threads.emplace_back([&, rank] {
      NcclOptions options = TestOptions(rank, world_size, rank);
      if (tweak) tweak(options);
      absl::StatusOr<std::unique_ptr<Communicator>> comm = CreateNcclCommunicator(options, store);
      // Ranks sharing one process start collectives only once every rank's
      // communicator is up: a rank inside a blocking collective was seen
      // (H200 x2, NCCL 2.28.3) to hold up a peer thread's communicator set-up
      // in the same process until the collective timed out. One rank per
      // process, as eb-worker runs, does not have this coupling.
      created.arrive_and_wait();
      results[rank] = comm.ok() ? fn(**comm) : comm.status();
      done.arrive_and_wait();
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

}  // namespace eb::transport::testing
