#include "coordinator/grpc/control_service.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/reactor_order.h"
#include "common/rpc/stream_outbox.h"
#include "common/spec/limits.h"
#include "common/status/grpc_status.h"
#include "common/version/version.h"
#include "coordinator/core/topology/topology_view.h"
#include "coordinator/grpc/validation_stream.h"
#include "spdlog/spdlog.h"

namespace eb::coordinator {
namespace v1 = ebnccl::v1;

namespace {

// A listed report larger than this is listed as its brief (ListTests).
constexpr size_t kMaxListedReportBytes = size_t{1} << 20;

// Streams one test's events to the client; cancelling the call (Ctrl-C in
// ebctl, client gone) cancels the test.
class RunTestReactor final : public grpc::ServerWriteReactor<v1::RunTestEvent> {
 public:
  // Forwards events from the executor to the stream; closes it after
  // `finished`.
  class Observer final : public TestObserver {
   public:
    explicit Observer(
        std::shared_ptr<common::StreamOutbox<RunTestReactor, v1::RunTestEvent>> outbox)
        : outbox_(std::move(outbox)) {}
    void OnEvent(const v1::RunTestEvent& event) override {
      outbox_->Push(event);
      if (event.has_finished()) outbox_->Finish(grpc::Status::OK);
    }

   private:
    std::shared_ptr<common::StreamOutbox<RunTestReactor, v1::RunTestEvent>> outbox_;
  };

  RunTestReactor(common::Executor& executor, TestManager& tests, AuditLog& audit,
                 const v1::RunTestRequest& request, Caller caller)
      : executor_(executor),
        tests_(tests),
        outbox_(std::make_shared<common::StreamOutbox<RunTestReactor, v1::RunTestEvent>>(this)),
        test_id_(std::make_shared<std::string>()) {
    auto outbox = outbox_;
    auto test_id = test_id_;
    executor_.Post([&tests, &audit, request, outbox, test_id, caller = std::move(caller)] {
      auto started =
          tests.StartTest(request.spec(), std::make_shared<Observer>(outbox), caller.identity);
      const std::string nodes = absl::StrJoin(request.spec().node_names(), ",");
      audit.Record(caller, "RunTest",
                   started.ok() ? absl::StrCat("test_id=", *started, " nodes=", nodes)
                                : absl::StrCat("nodes=", nodes),
                   started.status());
      if (!started.ok()) {
        spdlog::info("rejected a test from {}: {}", caller.peer, started.status().ToString());
        outbox->Finish(common::ToGrpcStatus(started.status()));
        return;
      }
      *test_id = *started;
    });
    order_.Constructed();
  }

  void OnWriteDone(bool ok) override {
    auto reaction = order_.OtherReaction();
    outbox_->OnWriteDone(ok);
  }

  void OnCancel() override {
    auto reaction = order_.OtherReaction();
    // The client went away: stop the test (its workers are reaped) and end
    // the call.
    auto test_id = test_id_;
    TestManager& tests = tests_;
    executor_.Post([&tests, test_id] {
      if (!test_id->empty()) (void)tests.CancelTest(*test_id, "the client disconnected");
    });
    outbox_->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled by the client"));
  }

  void OnDone() override {
    order_.Done();
    outbox_->Detach();
    delete this;
  }

 private:
  common::Executor& executor_;
  TestManager& tests_;
  std::shared_ptr<common::StreamOutbox<RunTestReactor, v1::RunTestEvent>> outbox_;
  // Written on the executor once the test started.
  std::shared_ptr<std::string> test_id_;
  common::ReactorOrder order_;
};

// Runs `work` on the executor and finishes the unary reactor with its status.
template <typename Work>
grpc::ServerUnaryReactor* PostUnary(grpc::CallbackServerContext* context,
                                    common::Executor& executor, Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor.Post([reactor, work = std::move(work)]() mutable {
    reactor->Finish(common::ToGrpcStatus(work()));
  });
  return reactor;
}

// Operators cancel what they started; admins cancel anything.
absl::Status CheckOwner(const Caller& caller, const std::string& started_by,
                        absl::string_view method, const std::string& id) {
  if (caller.role == Role::kAdmin || started_by == caller.identity) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      method, " of ", Abbreviate(id), ", started by '", started_by, "', needs role admin; ",
      caller.identity, " has role ", RoleName(caller.role), " and may cancel only its own"));
}

}  // namespace

ControlService::ControlService(common::Executor& executor, TestManager& tests,
                               NodeRegistry& registry, LogRequests& logs,
                               ValidationManager& validations, const Authorizer& authz,
                               AuditLog& audit, bool insecure)
    : executor_(executor),
      tests_(tests),
      registry_(registry),
      logs_(logs),
      validations_(validations),
      authz_(authz),
      audit_(audit),
      insecure_(insecure) {}

grpc::ServerUnaryReactor* ControlService::ListNodes(grpc::CallbackServerContext* context,
                                                    const v1::ListNodesRequest* /*request*/,
                                                    v1::ListNodesReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "ListNodes")) {
    return RefuseUnary(context, *refused);
  }
  reply->set_insecure(insecure_);
  reply->set_coordinator_version(kVersion);
  return PostUnary(context, executor_, [this, reply] {
    const std::map<std::string, NodeVerdictRecord> verdicts = validations_.LastVerdicts();
    // The scheduler's last read (a copy: its reads run on its own thread).
    scheduler_io::SchedulerService::View view;
    if (scheduler_ != nullptr) {
      view = scheduler_->LastRead();
      reply->set_scheduler(scheduler_->name());
      if (view.read != absl::InfinitePast()) {
        reply->set_scheduler_read_unix_ms(absl::ToUnixMillis(view.read));
      }
    }
    for (const NodeRecord* node : registry_.All()) {
      if (reply->nodes_size() >= spec::kMaxListedNodes) {
        reply->set_omitted(reply->omitted() + 1);
        continue;
      }
      v1::NodeStatus& status = *reply->add_nodes();
      status = registry_.ToStatus(*node);
      if (auto seen = view.nodes.find(node->name); seen != view.nodes.end()) {
        FillSchedulerState(seen->second, scheduler_->reason_prefix(), status);
      }
      auto it = verdicts.find(node->name);
      if (it == verdicts.end()) continue;
      status.set_last_verdict(it->second.verdict);
      status.set_last_validation_id(it->second.validation_id);
      status.set_last_verdict_time_unix_ms(it->second.time_unix_ms);
      status.set_bad_verdict_count(it->second.bad_count);
    }
    return absl::OkStatus();
  });
}

namespace {

// The nodes a refused RunTest asked for, for its audit row (P2-6.2: it was
// audited without them). The first 16 names, each abbreviated: the request
// is not validated yet, and a refused caller must not make the coordinator
// copy megabytes of names.
std::string RefusedNodesTarget(const v1::TestSpec& spec) {
  constexpr int kShown = 16;
  std::string nodes;
  for (int i = 0; i < spec.node_names_size() && i < kShown; ++i) {
    absl::StrAppend(&nodes, i == 0 ? "" : ",", Abbreviate(spec.node_names(i), 64));
  }
  if (spec.node_names_size() > kShown) {
    absl::StrAppend(&nodes, " (+", spec.node_names_size() - kShown, " more)");
  }
  return "nodes=" + nodes;
}

}  // namespace

grpc::ServerWriteReactor<v1::RunTestEvent>* ControlService::RunTest(
    grpc::CallbackServerContext* context, const v1::RunTestRequest* request) {
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kOperator, "RunTest",
                                  RefusedNodesTarget(request->spec()), &caller)) {
    return RefuseStream<v1::RunTestEvent>(*refused);
  }
  return new RunTestReactor(executor_, tests_, audit_, *request, std::move(caller));
}

grpc::ServerUnaryReactor* ControlService::CancelTest(grpc::CallbackServerContext* context,
                                                     const v1::CancelTestRequest* request,
                                                     v1::CancelTestReply* /*reply*/) {
  const std::string target = "test_id=" + request->test_id();
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kOperator, "CancelTest", target, &caller)) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, target, caller] {
    absl::Status status = [&] {
      absl::StatusOr<v1::TestReport> report = tests_.GetTest(request->test_id());
      if (!report.ok()) return report.status();
      if (absl::Status owner =
              CheckOwner(caller, report->started_by(), "CancelTest", request->test_id());
          !owner.ok()) {
        return owner;
      }
      return tests_.CancelTest(request->test_id(), absl::StrCat("cancelled by ", caller.identity,
                                                                " (", caller.peer, ")"));
    }();
    audit_.Record(caller, "CancelTest", target, status);
    return status;
  });
}

grpc::ServerUnaryReactor* ControlService::GetTest(grpc::CallbackServerContext* context,
                                                  const v1::GetTestRequest* request,
                                                  v1::GetTestReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "GetTest")) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, reply] {
    auto report = tests_.GetTest(request->test_id());
    if (!report.ok()) return report.status();
    *reply->mutable_report() = *std::move(report);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* ControlService::ListTests(grpc::CallbackServerContext* context,
                                                    const v1::ListTestsRequest* request,
                                                    v1::ListTestsReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "ListTests")) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, reply] {
    const int limit =
        request->limit() > 0 ? std::min(request->limit(), spec::kMaxListedTests) : 100;
    // A listing always fits in one message: the newest reports up to half
    // of it (a node with a huge inventory broke `ebctl jobs`, case 10).
    // One report too large to list (P2-4f1: 30 failures of 8 MB) is listed
    // as its brief, saying so, and the listing goes on past it.
    size_t bytes = 0;
    for (v1::TestReport& report : tests_.ListTests(limit)) {
      if (const size_t size = report.ByteSizeLong(); size > kMaxListedReportBytes) {
        v1::TestReport brief;
        brief.set_test_id(report.test_id());
        brief.set_state(report.state());
        brief.set_start_time_unix_ms(report.start_time_unix_ms());
        brief.set_end_time_unix_ms(report.end_time_unix_ms());
        brief.set_summary(absl::StrCat("[listed without its details: ", size, " bytes]"));
        report = std::move(brief);
      }
      bytes += report.ByteSizeLong();
      if (bytes > static_cast<size_t>(spec::kMaxRpcMessageBytes / 2)) break;
      *reply->add_tests() = std::move(report);
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* ControlService::GetLog(grpc::CallbackServerContext* context,
                                                 const v1::GetLogRequest* request,
                                                 v1::GetLogReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "GetLog")) {
    return RefuseUnary(context, *refused);
  }
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  executor_.Post([this, reactor, request, reply] {
    absl::StatusOr<v1::FetchLog> fetch = MakeFetchLog(*request, 0);
    if (!fetch.ok()) {
      reactor->Finish(common::ToGrpcStatus(fetch.status()));
      return;
    }
    auto report = tests_.GetTest(request->test_id());
    if (!report.ok()) {
      reactor->Finish(common::ToGrpcStatus(report.status()));
      return;
    }
    if (request->rank() < 0 || request->rank() >= report->ranks_size()) {
      reactor->Finish(common::ToGrpcStatus(
          absl::NotFoundError(absl::StrCat("rank: test ", request->test_id(), " has ranks 0..",
                                           report->ranks_size() - 1, ", not ", request->rank()))));
      return;
    }
    const std::string node = report->ranks(request->rank()).node_name();
    NodeRecord* record = registry_.Find(node);
    if (record == nullptr || record->channel == nullptr) {
      reactor->Finish(common::ToGrpcStatus(
          absl::UnavailableError(absl::StrCat("node ", node, " is not connected"))));
      return;
    }
    const uint64_t id =
        logs_.Add(node, [reactor, reply, node](absl::StatusOr<v1::LogContent> content) {
          if (!content.ok()) {
            reactor->Finish(common::ToGrpcStatus(content.status()));
            return;
          }
          if (!content->error().empty()) {
            reactor->Finish(common::ToGrpcStatus(absl::NotFoundError(content->error())));
            return;
          }
          FillGetLogReply(*content, node, reply);
          reactor->Finish(grpc::Status::OK);
        });
    if (id == 0) return;  // too many pending: already answered
    fetch->set_request_id(id);
    v1::CoordinatorMessage message;
    *message.mutable_fetch_log() = *std::move(fetch);
    record->channel->Send(message);
  });
  return reactor;
}

grpc::ServerWriteReactor<v1::ValidationEvent>* ControlService::RunValidation(
    grpc::CallbackServerContext* context, const v1::RunValidationRequest* request) {
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kOperator, "RunValidation", "", &caller)) {
    return RefuseStream<v1::ValidationEvent>(*refused);
  }
  if (scheduler_ == nullptr) {
    return new ValidationStreamReactor(
        executor_, [this, spec = request->spec(),
                    caller = std::move(caller)](std::shared_ptr<ValidationObserver> observer) {
          return StartValidation(spec, caller, std::move(observer), {});
        });
  }
  // Ask the scheduler first, off the event loop: a node that holds a job
  // is never tested (issue 30).
  return new ValidationStreamReactor(
      executor_,
      ValidationStreamReactor::AsyncAttach([this, spec = request->spec(),
                                            caller = std::move(caller)](
                                               const std::shared_ptr<ValidationObserver>& observer,
                                               const ValidationStreamReactor::Fail& fail) {
        std::vector<std::string> names(spec.node_names().begin(), spec.node_names().end());
        if (names.empty()) {
          for (const NodeRecord* record : registry_.All()) {
            names.push_back(record->name);
          }
        }
        scheduler_->LeaveOut(
            std::move(names), [this, spec, caller, observer,
                               fail](absl::StatusOr<std::map<std::string, std::string>> leave_out) {
              if (leave_out.ok()) {
                BorrowAndStart(spec, caller, observer, *leave_out, fail);
                return;
              }
              absl::Status refused = absl::UnavailableError(
                  absl::StrCat("no validation started: the scheduler cannot say "
                               "which nodes hold a job: ",
                               leave_out.status().message()));
              audit_.Record(caller, "RunValidation",
                            absl::StrCat("nodes=", absl::StrJoin(spec.node_names(), ",")), refused);
              fail(refused);
            });
      }));
}

absl::Status ControlService::StartValidation(const v1::ValidationSpec& spec, const Caller& caller,
                                             std::shared_ptr<ValidationObserver> observer,
                                             const std::map<std::string, std::string>& leave_out,
                                             std::string* id_out) {
  absl::StatusOr<std::string> id =
      validations_.Start(spec, std::move(observer), caller.identity, leave_out);
  if (id.ok() && id_out != nullptr) *id_out = *id;
  const std::string nodes = absl::StrJoin(spec.node_names(), ",");
  audit_.Record(caller, "RunValidation",
                id.ok() ? absl::StrCat("validation_id=", *id, " nodes=", nodes)
                        : absl::StrCat("nodes=", nodes),
                id.status());
  if (!id.ok()) {
    spdlog::info("rejected a validation from {}: {}", caller.peer, id.status().ToString());
  }
  for (const auto& [node, reason] : leave_out) {
    spdlog::info("validation {}: {} left out: {}", id.ok() ? *id : std::string("(refused)"), node,
                 reason);
  }
  return id.status();
}

grpc::ServerWriteReactor<v1::ValidationEvent>* ControlService::WatchValidation(
    grpc::CallbackServerContext* context, const v1::WatchValidationRequest* request) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "WatchValidation")) {
    return RefuseStream<v1::ValidationEvent>(*refused);
  }
  return new ValidationStreamReactor(
      executor_, [this, id = request->validation_id()](std::shared_ptr<ValidationObserver> o) {
        return validations_.Watch(id, std::move(o));
      });
}

grpc::ServerUnaryReactor* ControlService::GetValidation(grpc::CallbackServerContext* context,
                                                        const v1::GetValidationRequest* request,
                                                        v1::GetValidationReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "GetValidation")) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, reply] {
    auto report = validations_.Get(request->validation_id());
    if (!report.ok()) return report.status();
    *reply->mutable_report() = *std::move(report);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* ControlService::ListValidations(grpc::CallbackServerContext* context,
                                                          const v1::ListValidationsRequest* request,
                                                          v1::ListValidationsReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "ListValidations")) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, reply] {
    for (v1::ValidationReport& report :
         validations_.List(request->limit() > 0 ? request->limit() : 100)) {
      *reply->add_validations() = std::move(report);
    }
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* ControlService::CancelValidation(
    grpc::CallbackServerContext* context, const v1::CancelValidationRequest* request,
    v1::CancelValidationReply* /*reply*/) {
  const std::string target = "validation_id=" + request->validation_id();
  Caller caller;
  if (auto refused = authz_.Check(*context, Role::kOperator, "CancelValidation", target, &caller)) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, target, caller] {
    absl::Status status = [&] {
      absl::StatusOr<v1::ValidationReport> report = validations_.Get(request->validation_id());
      if (!report.ok()) return report.status();
      if (absl::Status owner = CheckOwner(caller, report->started_by(), "CancelValidation",
                                          request->validation_id());
          !owner.ok()) {
        return owner;
      }
      return validations_.Cancel(
          request->validation_id(),
          absl::StrCat("cancelled by ", caller.identity, " (", caller.peer, ")"));
    }();
    audit_.Record(caller, "CancelValidation", target, status);
    return status;
  });
}

grpc::ServerUnaryReactor* ControlService::ListAudit(grpc::CallbackServerContext* context,
                                                    const v1::ListAuditRequest* request,
                                                    v1::ListAuditReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kAdmin, "ListAudit")) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, request, reply]() -> absl::Status {
    absl::StatusOr<std::vector<v1::AuditEntry>> entries = audit_.history().List(
        request->limit() > 0 ? std::min<int>(request->limit(), spec::kMaxListedTests) : 100);
    if (!entries.ok()) return entries.status();
    for (v1::AuditEntry& entry : *entries) *reply->add_entries() = std::move(entry);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* ControlService::GetTopology(grpc::CallbackServerContext* context,
                                                      const v1::GetTopologyRequest* /*request*/,
                                                      v1::GetTopologyReply* reply) {
  if (auto refused = authz_.Check(*context, Role::kViewer, "GetTopology")) {
    return RefuseUnary(context, *refused);
  }
  return PostUnary(context, executor_, [this, reply] {
    std::vector<topology::InventoryNode> fleet;
    if (topology_.loaded != nullptr) {
      for (const NodeRecord* node : registry_.All()) {
        fleet.push_back(InventoryNodeOf(node->name, node->inventory));
      }
    }
    *reply = TopologyReply(topology_.loaded.get(), topology_.file, fleet);
    return absl::OkStatus();
  });
}

}  // namespace eb::coordinator
