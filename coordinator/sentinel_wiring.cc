#include "coordinator/sentinel_wiring.h"

#include <utility>

namespace eb::coordinator {

void ServiceProbeScheduler::BorrowProbe(std::vector<std::string> nodes, int seconds,
                                        BorrowDone done) {
  service_.Borrow(
      std::move(nodes), seconds,
      [done = std::move(done)](
          absl::StatusOr<scheduler_io::SchedulerService::Borrowed> borrowed) mutable {
        if (!borrowed.ok()) {
          done(borrowed.status());
          return;
        }
        done(sentinel::ProbeJob{std::move(borrowed->job_id), std::move(borrowed->nodes)});
      },
      scheduler_io::SchedulerService::kProbeJobName);
}

namespace {
class Unwatched final : public ValidationObserver {
 public:
  void OnEvent(const ebnccl::v1::ValidationEvent& /*event*/) override {}
};
}  // namespace

std::shared_ptr<ValidationObserver> NoObserver() { return std::make_shared<Unwatched>(); }

absl::StatusOr<std::string> ValidationProbeRunner::Start(const std::vector<std::string>& nodes) {
  ebnccl::v1::ValidationSpec spec;
  for (const std::string& node : nodes) spec.add_node_names(node);
  spec.set_timeout_ms(absl::ToInt64Milliseconds(timeout_));
  return validations_.Start(std::move(spec), NoObserver(), "sentinel");
}

}  // namespace eb::coordinator
