#include "agent/effective_config.h"

#include "absl/strings/str_cat.h"

namespace eb::agent {

std::string FormatEffectiveConfig(const AgentSettings& settings) {
  AgentSettings copy = settings;
  copy.workers = copy.config.worker_slots;
  return absl::StrCat("# eb-agent effective configuration (flags > file > defaults)\n",
                      AgentConfigSchema(&copy).FormatToml());
}

}  // namespace eb::agent
