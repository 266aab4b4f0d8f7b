#include "common/logging/logging.h"

#include <memory>
#include <vector>

#include "absl/debugging/failure_signal_handler.h"
#include "spdlog/sinks/basic_file_sink.h"
#include "spdlog/sinks/stdout_sinks.h"
#include "spdlog/spdlog.h"

namespace eb::common {
namespace {

void FlushLogOnFailure(const char* data) {
  if (data != nullptr) spdlog::critical("{}", data);
  spdlog::default_logger()->flush();
}

}  // namespace

absl::Status InitLogging(const LoggingOptions& options) {
  const spdlog::level::level_enum level = spdlog::level::from_str(options.level);
  // from_str maps unknown names to "off"; only "off" itself may mean off.
  if (level == spdlog::level::off && options.level != "off") {
    return absl::InvalidArgumentError("log level: unknown level '" + options.level +
                                      "' (use trace, debug, info, warn, error, critical, off)");
  }
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (!options.file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file));
    } catch (const spdlog::spdlog_ex& e) {
      return absl::InvalidArgumentError("log file: cannot open '" + options.file +
                                        "': " + e.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>(options.component, sinks.begin(), sinks.end());
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e %L %P %t] %v");
  logger->set_level(level);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  spdlog::flush_every(std::chrono::seconds(1));

  absl::FailureSignalHandlerOptions handler_options;
  handler_options.writerfn = FlushLogOnFailure;
  absl::InstallFailureSignalHandler(handler_options);
  return absl::OkStatus();
}

}  // namespace eb::common
