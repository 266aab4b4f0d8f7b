// Records what NCCL says about the paths it chose, for the fixtures of
// tests/unit/agent/testdata/nccl_logs/ (issue 29, item 4). Not part of the
// build: compiled on the GPU machine by tests/gpu/nccl_use_record.sh with
// that machine's nvcc and NCCL. One process per rank, all on CUDA device 0
// (the GPU machine has one GPU; give each rank its own NCCL_HOSTID so that
// NCCL takes them for two hosts):
//   nccl_use_record RANK NRANKS ID_FILE
// Rank 0 writes the unique id to ID_FILE, the others wait for it; each rank
// then runs a few 64 MiB all-reduces (channels connect at the first call,
// NCCL_RUNTIME_CONNECT) and prints its result or NCCL's error.
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int Fail(const char* what, const char* detail) {
  fprintf(stderr, "record: %s failed: %s\n", what, detail);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 4) return Fail("usage", "nccl_use_record RANK NRANKS ID_FILE");
  const int rank = atoi(argv[1]), nranks = atoi(argv[2]);
  const char* id_file = argv[3];
  ncclUniqueId id;
  if (rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) return Fail("ncclGetUniqueId", "");
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", id_file);
    FILE* f = fopen(tmp, "wb");
    if (f == NULL || fwrite(&id, sizeof(id), 1, f) != 1 || fclose(f) != 0)
      return Fail("write", tmp);
    if (rename(tmp, id_file) != 0) return Fail("rename", id_file);
  } else {
    FILE* f = NULL;
    for (int i = 0; i < 300 && (f = fopen(id_file, "rb")) == NULL; ++i) usleep(100 * 1000);
    if (f == NULL || fread(&id, sizeof(id), 1, f) != 1) return Fail("read", id_file);
    fclose(f);
  }
  if (cudaSetDevice(0) != cudaSuccess) return Fail("cudaSetDevice", "0");
  ncclComm_t comm;
  ncclResult_t res = ncclCommInitRank(&comm, nranks, id, rank);
  if (res != ncclSuccess) return Fail("ncclCommInitRank", ncclGetErrorString(res));
  const size_t count = 16 << 20;
  float* buf = NULL;
  cudaStream_t stream;
  if (cudaMalloc(&buf, count * sizeof(float)) != cudaSuccess) return Fail("cudaMalloc", "");
  cudaMemset(buf, 0, count * sizeof(float));
  cudaStreamCreate(&stream);
  for (int i = 0; i < 3 && res == ncclSuccess; ++i) {
    res = ncclAllReduce(buf, buf, count, ncclFloat, ncclSum, comm, stream);
  }
  if (res == ncclSuccess && cudaStreamSynchronize(stream) != cudaSuccess)
    res = ncclUnhandledCudaError;
  if (res != ncclSuccess) {
    fprintf(stderr, "record: allreduce failed: %s %s\n", ncclGetErrorString(res),
            ncclGetLastError(comm));
    ncclCommAbort(comm);
    return 1;
  }
  printf("record: rank %d of %d: 3 all-reduces of %zu floats done\n", rank, nranks, count);
  ncclCommDestroy(comm);
  return 0;
}
