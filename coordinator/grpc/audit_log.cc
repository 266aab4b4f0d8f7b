#include "coordinator/grpc/audit_log.h"

#include "absl/status/status.h"
#include "common/spec/bounded_text.h"
#include "coordinator/grpc/authz.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {

AuditLog::AuditLog(common::Executor& executor, common::Clock& clock, AuditHistory& history)
    : executor_(executor), clock_(clock), history_(history) {}

void AuditLog::Record(const Caller& caller, const std::string& method, const std::string& target,
                      const absl::Status& outcome) {
  ebnccl::v1::AuditEntry entry;
  entry.set_time_unix_ms(absl::ToUnixMillis(clock_.Now()));
  entry.set_identity(spec::BoundedText(caller.identity, 512));
  entry.set_role(RoleName(caller.role));
  entry.set_method(method);
  // Cut at a character boundary, valid UTF-8 (P2-6.4: a byte cut made every
  // later `ebctl audit` fail).
  entry.set_target(spec::BoundedText(target, 512));
  entry.set_outcome(absl::StatusCodeToString(outcome.code()));
  entry.set_message(spec::BoundedText(outcome.message(), 1024));
  entry.set_peer(spec::BoundedText(caller.peer, 512));
  spdlog::info("audit: {} ({}) {} {} -> {}{}{}", entry.identity(), entry.role(), method, target,
               entry.outcome(), outcome.ok() ? "" : ": ", entry.message());
  executor_.Post([history = &history_, entry = std::move(entry)] {
    if (absl::Status status = history->Append(entry); !status.ok()) {
      spdlog::error("audit entry cannot be recorded: {}", status.ToString());
    }
  });
}

}  // namespace eb::coordinator
