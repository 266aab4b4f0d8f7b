#pragma once

// absl::Status from CUDA runtime and NCCL results (STYLE.md rule 3), for
// targets that link CUDA and NCCL only (eb_transport_nccl and its tests).
// Header-only so that eb_common keeps no CUDA dependency.
//
// Code mapping (rule 2 gives each code one meaning system-wide):
//   CUDA
//     cudaErrorMemoryAllocation                   -> RESOURCE_EXHAUSTED
//     cudaErrorInvalidDevice                      -> INVALID_ARGUMENT (a bad
//                                                    --cuda_device)
//     cudaErrorNoDevice, cudaErrorInsufficientDriver,
//     cudaErrorDevicesUnavailable, cudaErrorSystemNotReady,
//     cudaErrorSystemDriverMismatch               -> UNAVAILABLE (this node's
//                                                    GPU cannot be used now;
//                                                    another node may work)
//     anything else (launch failures, illegal
//     address, ECC/NVLink uncorrectable, ...)     -> INTERNAL; the message
//                                                    names the CUDA error, so
//                                                    hardware faults stay
//                                                    recognisable
//   NCCL
//     ncclInvalidArgument, ncclInvalidUsage      -> INVALID_ARGUMENT ("Duplicate
//                                                    GPU detected", mismatched
//                                                    NCCL versions, bad args)
//     ncclRemoteError, ncclSystemError           -> UNAVAILABLE (a peer or the
//                                                    network failed; retryable)
//     ncclInternalError, ncclUnhandledCudaError  -> INTERNAL
//     ncclInProgress                             -> INTERNAL (a nonblocking
//                                                    result must be polled, never
//                                                    reported: our bug)
//     any other value                            -> UNKNOWN (a result code newer
//                                                    than these headers)
// Messages read "<context>: <error name> (<description>)[: <ncclGetLastError>]
// at file:line". ncclGetLastError is per thread and may describe an earlier
// failure; it is still the best detail NCCL offers (nccl-tests prints it too).

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace eb::common {

// The code of a CUDA error (see the table above). cudaSuccess -> OK.
inline absl::StatusCode CudaErrorCode(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return absl::StatusCode::kOk;
    case cudaErrorMemoryAllocation:
      return absl::StatusCode::kResourceExhausted;
    case cudaErrorInvalidDevice:
      return absl::StatusCode::kInvalidArgument;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kInternal;
  }
}

// The code of an NCCL result (see the table above). ncclSuccess -> OK.
inline absl::StatusCode NcclResultCode(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return absl::StatusCode::kOk;
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      return absl::StatusCode::kInvalidArgument;
    case ncclRemoteError:
    case ncclSystemError:
      return absl::StatusCode::kUnavailable;
    case ncclInternalError:
    case ncclUnhandledCudaError:
    case ncclInProgress:
      return absl::StatusCode::kInternal;
    default:
      return absl::StatusCode::kUnknown;
  }
}

// Builds the status of a failed CUDA call and clears the calling thread's
// last CUDA error (cudaGetLastError), so that a later, unrelated check does
// not report this error again. A sticky error (the context is lost) stays;
// every later call reports it. OK for cudaSuccess. Thread-safe.
inline absl::Status CudaErrorToStatus(cudaError_t error, absl::string_view context,
                                      const char* file = nullptr, int line = 0) {
  if (error == cudaSuccess) return absl::OkStatus();
  (void)cudaGetLastError();
  std::string where = file == nullptr ? "" : absl::StrCat(" at ", file, ":", line);
  return absl::Status(CudaErrorCode(error),
                      absl::StrCat(context, ": ", cudaGetErrorName(error), " (",
                                   cudaGetErrorString(error), ")", where));
}

// Builds the status of a failed NCCL call, with ncclGetLastError(comm)
// appended when it has text (`comm` may be null: NCCL then reports the
// thread's last error). An ncclUnhandledCudaError also clears the CUDA error
// as CudaErrorToStatus does. OK for ncclSuccess. Thread-safe; `comm` must be
// a live communicator or null.
inline absl::Status NcclResultToStatus(ncclResult_t result, ncclComm_t comm,
                                       absl::string_view context, const char* file = nullptr,
                                       int line = 0) {
  if (result == ncclSuccess) return absl::OkStatus();
  if (result == ncclUnhandledCudaError) (void)cudaGetLastError();
  const char* last = ncclGetLastError(comm);
  std::string detail = last != nullptr && last[0] != '\0' ? absl::StrCat(": ", last) : "";
  std::string where = file == nullptr ? "" : absl::StrCat(" at ", file, ":", line);
  return absl::Status(NcclResultCode(result),
                      absl::StrCat(context, ": NCCL error ", static_cast<int>(result), " (",
                                   ncclGetErrorString(result), ")", detail, where));
}

}  // namespace eb::common

// Returns the status of a CUDA runtime call from the enclosing function when
// it fails (the message names the expression and file:line).
#define EB_CUDA_RETURN_IF_ERROR(expr)                                                    \
  do {                                                                                   \
    const cudaError_t eb_cuda_error_ = (expr);                                           \
    if (eb_cuda_error_ != cudaSuccess) {                                                 \
      return ::eb::common::CudaErrorToStatus(eb_cuda_error_, #expr, __FILE__, __LINE__); \
    }                                                                                    \
  } while (0)

// EB_NCCL_RETURN_IF_ERROR(expr) or EB_NCCL_RETURN_IF_ERROR(expr, comm):
// returns the status of a failed NCCL call (with ncclGetLastError(comm)).
// Only for calls that cannot return ncclInProgress: the nonblocking
// communicator polls those itself.
#define EB_NCCL_RETURN_IF_ERROR(...) \
  EB_NCCL_PICK_(__VA_ARGS__, EB_NCCL_RETURN_IF_ERROR_2_, EB_NCCL_RETURN_IF_ERROR_1_, )(__VA_ARGS__)
#define EB_NCCL_PICK_(_1, _2, name, ...) name
#define EB_NCCL_RETURN_IF_ERROR_1_(expr) EB_NCCL_RETURN_IF_ERROR_2_(expr, nullptr)
#define EB_NCCL_RETURN_IF_ERROR_2_(expr, comm)                                                     \
  do {                                                                                             \
    const ncclResult_t eb_nccl_result_ = (expr);                                                   \
    if (eb_nccl_result_ != ncclSuccess) {                                                          \
      return ::eb::common::NcclResultToStatus(eb_nccl_result_, (comm), #expr, __FILE__, __LINE__); \
    }                                                                                              \
  } while (0)
