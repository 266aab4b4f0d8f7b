#pragma once

// The server side of RunValidation and WatchValidation: streams one
// validation's events to a client. The stream is a view: when the client
// goes away (Ctrl-C, lost connection) the call ends and the validation
// goes on; `ebctl` cancels it with CancelValidation.

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "common/exec/executor.h"
#include "common/rpc/reactor_order.h"
#include "common/rpc/stream_outbox.h"
#include "coordinator/core/validation_manager.h"
#include "ebnccl/v1/control.grpc.pb.h"

namespace eb::coordinator {

class ValidationStreamReactor final : public grpc::ServerWriteReactor<ebnccl::v1::ValidationEvent> {
 public:
  using Outbox = common::StreamOutbox<ValidationStreamReactor, ebnccl::v1::ValidationEvent>;
  // Runs on the executor: starts or attaches to a validation with the given
  // observer; its error ends the call.
  using Attach = std::function<absl::Status(std::shared_ptr<ValidationObserver>)>;
  // Runs on the executor and may finish later (after asking the
  // scheduler): calls `fail` (on any thread) with the error that ends the
  // call, or attaches the observer.
  using Fail = std::function<void(const absl::Status&)>;
  using AsyncAttach = std::function<void(std::shared_ptr<ValidationObserver>, Fail)>;

  ValidationStreamReactor(common::Executor& executor, Attach attach);
  ValidationStreamReactor(common::Executor& executor, AsyncAttach attach);

  void OnWriteDone(bool ok) override {
    auto reaction = order_.OtherReaction();
    outbox_->OnWriteDone(ok);
  }
  void OnCancel() override;
  void OnDone() override;

 private:
  std::shared_ptr<Outbox> outbox_;
  common::ReactorOrder order_;
};

}  // namespace eb::coordinator
