#include "coordinator/grpc/validation_stream.h"

#include <utility>

#include "common/status/grpc_status.h"

namespace eb::coordinator {

namespace v1 = ebnccl::v1;

namespace {

// Forwards events to the stream and ends it after `finished`. Pushing to a
// stream that is gone drops the event: the validation does not notice.
class StreamObserver final : public ValidationObserver {
 public:
  explicit StreamObserver(std::shared_ptr<ValidationStreamReactor::Outbox> outbox)
      : outbox_(std::move(outbox)) {}
  void OnEvent(const v1::ValidationEvent& event) override {
    outbox_->Push(event);
    if (event.has_finished()) outbox_->Finish(grpc::Status::OK);
  }

 private:
  std::shared_ptr<ValidationStreamReactor::Outbox> outbox_;
};

}  // namespace

ValidationStreamReactor::ValidationStreamReactor(common::Executor& executor, Attach attach)
    : outbox_(std::make_shared<Outbox>(this)) {
  executor.Post([outbox = outbox_, attach = std::move(attach)] {
    if (absl::Status status = attach(std::make_shared<StreamObserver>(outbox)); !status.ok()) {
      outbox->Finish(common::ToGrpcStatus(status));
    }
  });
  order_.Constructed();
}

ValidationStreamReactor::ValidationStreamReactor(common::Executor& executor, AsyncAttach attach)
    : outbox_(std::make_shared<Outbox>(this)) {
  executor.Post([outbox = outbox_, attach = std::move(attach)] {
    attach(std::make_shared<StreamObserver>(outbox),
           [outbox](const absl::Status& status) { outbox->Finish(common::ToGrpcStatus(status)); });
  });
  order_.Constructed();
}

void ValidationStreamReactor::OnCancel() {
  auto reaction = order_.OtherReaction();
  outbox_->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
}

void ValidationStreamReactor::OnDone() {
  order_.Done();
  outbox_->Detach();
  delete this;
}

}  // namespace eb::coordinator
