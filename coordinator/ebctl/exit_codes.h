#pragma once

// The exit codes of ebctl (docs/EXIT_CODES.md). They follow nccl-tests'
// testResult_t where the meaning overlaps (4 timeout, 7 wrong data or
// bandwidth below the threshold), so that scripts written for nccl-tests
// keep their meaning. Pure functions, callable from any thread.

#include "absl/status/status.h"
#include "ebnccl/v1/control.pb.h"

namespace eb::ebctl {

// Success: the command did what was asked; for a test, it PASSED.
inline constexpr int kExitOk = 0;
// A bug in ebctl or the coordinator (INTERNAL, UNKNOWN, an inconsistent
// report).
inline constexpr int kExitInternal = 1;
// Bad command line, or the coordinator rejected the request as invalid
// (INVALID_ARGUMENT, NOT_FOUND such as an unknown node, ALREADY_EXISTS).
inline constexpr int kExitUsage = 2;
// The test FAILED because a worker, node or communicator failed.
inline constexpr int kExitCommunication = 3;
// The test TIMED_OUT (or failed with a timeout), or an RPC timed out after
// the connection was up. nccl-tests: testTimeout.
inline constexpr int kExitTimeout = 4;
// Not enough free resources (RESOURCE_EXHAUSTED: too few free slots, busy
// nodes; FAILED_PRECONDITION: no usable transport).
inline constexpr int kExitResources = 5;
// Wrong data, or average bus bandwidth below --min-busbw. nccl-tests:
// testNumResults.
inline constexpr int kExitCheckFailed = 7;
// The coordinator could not be reached (UNAVAILABLE, or DEADLINE_EXCEEDED
// while connecting).
inline constexpr int kExitUnreachable = 8;
// The coordinator refused the call for the caller's role or identity
// (PERMISSION_DENIED, UNAUTHENTICATED); the message names the role needed.
inline constexpr int kExitPermissionDenied = 9;
// Interrupted (SIGINT) or the test was CANCELLED; 128 + SIGINT as shells do.
inline constexpr int kExitInterrupted = 130;

// Exit code for a test report. Terminal states: PASSED 0; TIMED_OUT 4;
// CANCELLED 130; FAILED by the primary failure (failures[0]): WRONG_DATA
// BELOW_MIN_BUSBW, TOO_SLOW and UNEXPECTED_PATH 7, WORKER_EXITED, WORKER_HUNG, NODE_LOST,
// COMMUNICATION_ERROR and LAUNCH_FAILED 3, WORKER_REGISTRATION_TIMEOUT and
// TIMEOUT 4, INTERNAL, unknown kinds or no failure at all 1. A report that is
// not final yet (LAUNCHING..STOPPING, e.g. `ebctl show` of a running test)
// gives 0: the command worked; UNSPECIFIED or unknown states give 1.
int ExitCodeForReport(const ebnccl::v1::TestReport& report);

// Exit code for a validation report: DONE with every node healthy 0; any
// node, path or rail degraded or failed, a bad finding, or an unfit node
// 7 (whatever the state: a partial verdict is still a verdict); else
// CANCELLED or INTERRUPTED 130, TIMED_OUT 4, FAILED 1, an untestable node
// or a planned test left without a measurement (the tests_unjudged
// finding) 3 (a node, its agent or a test could not run, as node_lost in
// run-test); RUNNING 0 (the command worked).
int ExitCodeForValidation(const ebnccl::v1::ValidationReport& report);

// True for gRPC's own message- and metadata-size errors ("Received message
// larger than max", "... exceeds limit"): ExitCodeForRpcError gives
// kExitInternal for them, not kExitResources.
bool IsMessageSizeLimit(const absl::Status& status);

// Exit code for a failed RPC. `connected` tells whether the channel had
// reached the coordinator (a RunTest stream delivered an event, or a
// unary call came back) before the error: DEADLINE_EXCEEDED then means the
// operation timed out (4), not that the coordinator is unreachable (8).
// OK 0; INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS 2; RESOURCE_EXHAUSTED,
// FAILED_PRECONDITION 5 (but gRPC's size-limit errors 1); UNAVAILABLE 8;
// PERMISSION_DENIED, UNAUTHENTICATED 9; CANCELLED 130 (ebctl cancels its own
// call on SIGINT); ABORTED 3 (a communicator abort, STYLE.md rule 2);
// everything else (INTERNAL, UNKNOWN, UNIMPLEMENTED, ...) 1.
int ExitCodeForRpcError(const absl::Status& status, bool connected);

// One-line meaning of an exit code for help texts and messages, e.g.
// "wrong data or average bus bandwidth below --min-busbw"; "unknown exit
// code" for codes not listed above.
const char* ExitCodeMeaning(int code);

}  // namespace eb::ebctl
