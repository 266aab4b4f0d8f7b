#pragma once

// A CommandRunner that runs nothing: it records each command and answers
// from a script, keyed by the tool's name (argv[0]'s last part).

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "coordinator/scheduler_io/command_runner.h"

namespace eb::scheduler_io::testing {

class FakeCommandRunner : public CommandRunner {
 public:
  // The next answers of `tool`, in order; the last one repeats.
  void Answer(const std::string& tool, absl::StatusOr<CommandResult> result) {
    answers_[tool].push_back(std::move(result));
  }
  void Answer(const std::string& tool, const std::string& output, int exit_code = 0) {
    Answer(tool, CommandResult{exit_code, output});
  }

  absl::StatusOr<CommandResult> Run(const std::vector<std::string>& argv,
                                    const std::vector<std::string>& env,
                                    absl::Duration /*timeout*/) override {
    commands.push_back(absl::StrJoin(argv, " "));
    envs.push_back(env);
    const std::string tool = argv[0].substr(argv[0].rfind('/') + 1);
    auto it = answers_.find(tool);
    if (it == answers_.end() || it->second.empty()) return CommandResult{0, ""};
    absl::StatusOr<CommandResult> answer = it->second.front();
    if (it->second.size() > 1) it->second.pop_front();
    return answer;
  }

  std::vector<std::string> commands;
  std::vector<std::vector<std::string>> envs;

 private:
  std::map<std::string, std::deque<absl::StatusOr<CommandResult>>> answers_;
};

}  // namespace eb::scheduler_io::testing
