#pragma once

// Propagation helpers for absl::Status / absl::StatusOr across module
// boundaries (STYLE.md rule 3), and EB_CHECK for broken invariants only
// (rule 4): never for input, peers, GPUs or the network.

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define EB_STATUS_CONCAT_INNER_(a, b) a##b
#define EB_STATUS_CONCAT_(a, b) EB_STATUS_CONCAT_INNER_(a, b)

// `var` and `lhs` are a name and a declaration, which parentheses would
// break (bugprone-macro-parentheses).
// NOLINTBEGIN(bugprone-macro-parentheses)
// Returns the status from the enclosing function when `expr` is not OK.
#define EB_RETURN_IF_ERROR(expr) \
  EB_RETURN_IF_ERROR_IMPL_(EB_STATUS_CONCAT_(eb_status_, __LINE__), expr)
#define EB_RETURN_IF_ERROR_IMPL_(var, expr) \
  do {                                      \
    ::absl::Status var = (expr);            \
    if (!var.ok()) return var;              \
  } while (0)

// `EB_ASSIGN_OR_RETURN(auto x, F());` assigns the value of a StatusOr or
// returns its status.
#define EB_ASSIGN_OR_RETURN(lhs, expr) \
  EB_ASSIGN_OR_RETURN_IMPL_(EB_STATUS_CONCAT_(eb_statusor_, __LINE__), lhs, expr)
#define EB_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                              \
  if (!var.ok()) return std::move(var).status();  \
  lhs = std::move(var).value()
// NOLINTEND(bugprone-macro-parentheses)

namespace eb::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);
}  // namespace eb::internal

// Aborts the process with a message when an invariant of our own code is
// broken. Logs through spdlog (flushed) before abort().
#define EB_CHECK(cond)                                                   \
  do {                                                                   \
    if (!(cond)) ::eb::internal::CheckFailed(__FILE__, __LINE__, #cond); \
  } while (0)
