#pragma once

// CUDA graphs of captured collective batches (nccl-tests -G), one per call
// shape, for NcclCommunicator's cuda_graph mode.
//
// NCCL ties captured work to the communicator: destroying a graph hands its
// NCCL plans back through the communicator's callback queue, and NCCL's
// finalize/abort waits until every graph referencing the communicator is
// gone. So graphs must be destroyed before ncclCommFinalize and before
// ncclCommAbort, never leaked, and never after the communicator is freed.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "common/transport/communicator.h"

namespace eb::transport {

// What makes two Run calls replay the same graph.
struct GraphKey {
  CollectiveCall call;
  int iterations = 0;

  bool operator==(const GraphKey& other) const;
};

// A small cache of instantiated graphs, oldest evicted first. Not
// thread-safe: the owner guards it (NcclCommunicator's mutex, since Abort
// clears it from any thread).
class GraphCache {
 public:
  // `capacity` of at least 1 (0 is treated as 1).
  explicit GraphCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}
  ~GraphCache() { Clear(); }
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;

  // The executable graph for `key`, or nullptr.
  cudaGraphExec_t Find(const GraphKey& key) const;

  // Takes ownership of `graph` and `exec`; evicts (destroys) the oldest
  // entry when full. The caller must have waited for every earlier launch
  // of the evicted graph (Run always does before returning).
  void Insert(const GraphKey& key, cudaGraph_t graph, cudaGraphExec_t exec);

  // Destroys every graph. A graph still executing is freed by CUDA when its
  // launch completes (cudaGraphExecDestroy's documented behaviour).
  void Clear();

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    GraphKey key;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
  };
  static void Destroy(Entry& entry);

  const size_t capacity_;
  std::vector<Entry> entries_;  // oldest first
};

// Destroys a captured graph and its executable (either may be null),
// logging and clearing any CUDA error.
void DestroyGraph(cudaGraph_t graph, cudaGraphExec_t exec);

}  // namespace eb::transport
