#include "agent/worker/heartbeat_thread.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "agent/worker/worker_runtime.h"
#include "spdlog/spdlog.h"

namespace eb::worker {

HeartbeatThread::HeartbeatThread(AgentLink& link, absl::Duration period, ProgressBoard& progress)
    : link_(link), period_(period), progress_(progress) {
  thread_ = std::thread([this] { Run(); });
}

HeartbeatThread::~HeartbeatThread() {
  done_.Notify();
  thread_.join();
}

void HeartbeatThread::Run() {
  const absl::Duration limit = AgentSilenceLimit(period_);
  absl::Time last_reply = absl::Now();
  while (!done_.WaitForNotificationWithTimeout(period_)) {
    // Never wait past the limit for one reply.
    const absl::Duration left = last_reply + limit - absl::Now();
    const absl::Duration deadline =
        std::clamp(left, absl::Milliseconds(100), std::max(period_, absl::Seconds(1)));
    absl::StatusOr<bool> stop = link_.Heartbeat(deadline);
    if (stop.ok()) {
      if (*stop) {
        spdlog::warn("the agent asked this worker to stop");
        spdlog::default_logger()->flush();
        std::_Exit(kExitStopped);
      }
      last_reply = absl::Now();
      if (std::optional<ebnccl::v1::IterationProgress> news = progress_.TakeNew()) {
        ebnccl::v1::WorkerEvent event;
        event.set_kind(ebnccl::v1::WORKER_EVENT_KIND_PROGRESS);
        *event.mutable_progress() = *std::move(news);
        // Best effort: a lost progress report only lets the hang detector
        // judge on the next one. With the heartbeat's own short deadline:
        // this thread must never wait longer than that on the agent, or a
        // healthy worker could fall silent (agent/core/worker_watchdog.h).
        if (absl::Status sent = link_.Report(std::move(event), deadline); !sent.ok()) {
          spdlog::debug("progress report not sent: {}", sent.ToString());
        }
      }
      continue;
    }
    const absl::Duration silence = absl::Now() - last_reply;
    if (silence >= limit) {
      spdlog::error(
          "lost the agent: no heartbeat reply for {} (limit {}; the agent is gone, frozen or "
          "wedged), last error: {}; exiting",
          absl::FormatDuration(silence), absl::FormatDuration(limit), stop.status().ToString());
      spdlog::default_logger()->flush();
      std::_Exit(kExitStopped);
    }
  }
}

}  // namespace eb::worker
