#include "common/transport/nccl/nccl_graph_cache.h"

#include "common/status/cuda_status.h"
#include "spdlog/spdlog.h"

namespace eb::transport {
namespace {

void LogIfError(cudaError_t error, const char* what) {
  if (error != cudaSuccess) spdlog::warn("{}", common::CudaErrorToStatus(error, what).ToString());
}

}  // namespace

bool GraphKey::operator==(const GraphKey& other) const {
  const CollectiveCall& a = call;
  const CollectiveCall& b = other.call;
  return iterations == other.iterations && a.collective == b.collective && a.type == b.type &&
         a.op == b.op && a.root == b.root && a.count == b.count && a.send == b.send &&
         a.recv == b.recv && a.rotation_stride_bytes == b.rotation_stride_bytes &&
         a.rotation_steps == b.rotation_steps;
}

void DestroyGraph(cudaGraph_t graph, cudaGraphExec_t exec) {
  if (exec != nullptr) LogIfError(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  if (graph != nullptr) LogIfError(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

cudaGraphExec_t GraphCache::Find(const GraphKey& key) const {
  for (const Entry& entry : entries_) {
    if (entry.key == key) return entry.exec;
  }
  return nullptr;
}

void GraphCache::Insert(const GraphKey& key, cudaGraph_t graph, cudaGraphExec_t exec) {
  if (entries_.size() >= capacity_) {
    Destroy(entries_.front());
    entries_.erase(entries_.begin());
  }
  entries_.push_back(Entry{key, graph, exec});
}

void GraphCache::Clear() {
  for (Entry& entry : entries_) Destroy(entry);
  entries_.clear();
}

void GraphCache::Destroy(Entry& entry) {
  DestroyGraph(entry.graph, entry.exec);
  entry.graph = nullptr;
  entry.exec = nullptr;
}

}  // namespace eb::transport
