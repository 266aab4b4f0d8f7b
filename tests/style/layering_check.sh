#!/usr/bin/env bash
# Fails when a file of a pure folder includes what that folder must not
# depend on, naming file:line, the include and the rule. Each row of RULES
# is: folder (relative to the repository root; every *.h, *.cc and *.cu file
# under it is checked) :: forbidden include (an extended regex matched
# against the path between <> or "") :: why. Add a row to extend it; a
# folder that does not exist fails the check, so that a rename cannot switch
# a rule off. Only #include lines are read: calls through an interface that
# a folder may include (common::ProcessLauncher, common::Clock) are allowed.
# Run by ctest as style.layering (tests/style/CMakeLists.txt).
set -euo pipefail

RULES=(
  # folder    :: forbidden include (ERE)                :: why
  # agent/core: the agent's pure logic (docs/DESIGN.md, "agent/core vs agent/host").
  "agent/core :: ^grpcpp/                                :: gRPC runtime: the RPC glue lives in agent/grpc"
  "agent/core :: \.grpc\.pb\.h$                          :: generated gRPC stubs (message headers *.pb.h are fine)"
  "agent/core :: ^common/rpc/                            :: gRPC channels and servers"
  "agent/core :: ^dlfcn\.h$                              :: dlopen: loading libraries is agent/host (system_nvml)"
  "agent/core :: ^(spawn\.h|sys/wait\.h)$                :: spawning and reaping: use common::ProcessLauncher"
  "agent/core :: ^common/process/posix_process_launcher\.h$ :: the real launcher: the core takes a ProcessLauncher&"
  "agent/core :: ^unistd\.h$                             :: fork/exec, read/write, access, gethostname: host I/O"
  "agent/core :: ^(fstream|filesystem|cstdio|stdio\.h|dirent\.h|fcntl\.h|sys/stat\.h|sys/mman\.h)$ :: files, /proc and /sys: read them in agent/host"
  "agent/core :: ^(sys/socket\.h|netdb\.h|poll\.h|sys/epoll\.h|arpa/inet\.h|netinet/.*)$ :: sockets: host I/O (RealHostProbe::Connect)"
  "agent/core :: ^agent/(host|grpc|metrics)/             :: the core is below agent/host, agent/grpc and agent/metrics"
  "agent/core :: ^agent/(agent_server|startup|config|config_file|effective_config)\.h$ :: the composition root and config files sit above the core (its config is agent/core/agent_core_config.h)"
  # coordinator/core: state machines, placement, rendezvous, aggregation (docs/DESIGN.md, "Layers").
  "coordinator/core :: ^grpcpp/                          :: gRPC runtime: the services live in coordinator/grpc"
  "coordinator/core :: \.grpc\.pb\.h$                    :: generated gRPC stubs (message headers *.pb.h are fine)"
  "coordinator/core :: ^common/(rpc|process|net)/         :: RPC glue, processes and sockets are below the gRPC layer, not the core"
  "coordinator/core :: ^coordinator/(grpc|ebctl)/          :: the core is below the services and knows nothing of the client"
  "coordinator/core :: ^coordinator/history/(sqlite|in_memory) :: the core sees history through the TestHistory interface"
  "coordinator/core :: ^(spawn\.h|sys/wait\.h|unistd\.h|fstream|filesystem|dlfcn\.h)$ :: processes and files: not in the core"
  # coordinator/validation: the fleet logic, pure: no gRPC, no I/O, no clock, no processes, no logging.
  "coordinator/validation :: ^grpcpp/|\.grpc\.pb\.h$       :: gRPC"
  "coordinator/validation :: ^common/(rpc|process|net|exec|time|logging)/ :: RPC, processes, sockets, executors, the clock, logging"
  "coordinator/validation :: ^absl/time/clock\.h$         :: the clock: results carry their own times"
  "coordinator/validation :: ^spdlog/                     :: logging: the caller logs what the library returns"
  "coordinator/validation :: ^(thread|mutex|future|chrono|random|fstream|filesystem|cstdio|iostream|unistd\.h|spawn\.h)$ :: threads, time, hidden randomness, files: a seed and data come in as arguments"
  "coordinator/validation :: ^coordinator/(core|grpc|history|ebctl)/ :: the fleet logic is below the coordinator"
  # coordinator/topology: the fabric and link localization (issue 31), pure like the fleet logic.
  "coordinator/topology :: ^grpcpp/|\.grpc\.pb\.h$|\.pb\.h$  :: gRPC and protos: plain structs; the coordinator maps them"
  "coordinator/topology :: ^common/(rpc|process|net|exec|time|logging|io|config)/ :: RPC, processes, sockets, the clock, logging, files: the caller reads the file"
  "coordinator/topology :: ^(toml\+\+/.*|spdlog/.*|absl/time/clock\.h)$ :: toml++ (an I/O-layer library), logging, the clock"
  "coordinator/topology :: ^(thread|mutex|future|chrono|random|fstream|filesystem|cstdio|iostream|unistd\.h|spawn\.h)$ :: threads, time, randomness, files"
  "coordinator/topology :: ^coordinator/(core|grpc|history|ebctl|metrics|scheduler|scheduler_io)/ :: the fabric logic is below the coordinator"
  # coordinator/scheduler: the decisions of scheduler integration (issue 30), pure like the fleet logic.
  "coordinator/scheduler :: ^grpcpp/|\.grpc\.pb\.h$        :: gRPC"
  "coordinator/scheduler :: ^common/(rpc|process|net|exec|time|logging)/ :: RPC, processes, sockets, executors, the clock, logging"
  "coordinator/scheduler :: ^absl/time/clock\.h$          :: the clock: now is the caller's argument"
  "coordinator/scheduler :: ^spdlog/                      :: logging: the backend logs the actions it carries out"
  "coordinator/scheduler :: ^(thread|mutex|future|chrono|random|fstream|filesystem|cstdio|iostream|unistd\.h|spawn\.h|sys/wait\.h)$ :: threads, time, randomness, files, processes: the backends talk to the scheduler"
  "coordinator/scheduler :: ^coordinator/(core|grpc|history|ebctl|metrics)/ :: the decisions are below the coordinator"
  # coordinator/scheduler_io: the scheduler backends talk to the scheduler and nothing else of the coordinator.
  "coordinator/scheduler_io :: ^grpcpp/|\.grpc\.pb\.h$    :: gRPC: the coordinator hands it names and verdicts"
  "coordinator/scheduler_io :: ^coordinator/(core|grpc|history|ebctl|metrics)/ :: the backends are below the coordinator (it implements ActionAudit)"
  "coordinator/scheduler_io :: ^(spawn\.h|sys/wait\.h)$   :: spawning: through common::ProcessLauncher"
  # coordinator/sentinel: the sentinel's loop talks through its ports only.
  "coordinator/sentinel :: ^grpcpp/|\.grpc\.pb\.h$        :: gRPC: the coordinator adapts its ports"
  "coordinator/sentinel :: ^coordinator/(core|grpc|history|ebctl|metrics|scheduler_io)/ :: the ports (sentinel_ports.h) stand for the scheduler service and the validations"
  # common/transport: the data planes never talk gRPC or spawn processes.
  "common/transport :: ^grpcpp/|\.grpc\.pb\.h$            :: gRPC: the worker hands the transport a RendezvousStore"
  "common/transport :: ^common/(rpc|process)/             :: RPC glue and processes"
  "common/transport :: ^(spawn\.h|sys/wait\.h)$           :: spawning"
  # coordinator/ebctl: a client; no coordinator, agent or data-plane code.
  "coordinator/ebctl :: ^coordinator/(core|grpc|history|validation|metrics)/ :: ebctl is a client: it reads what the coordinator stored"
  "coordinator/ebctl :: ^(agent|common/(transport|process|exec|logging|systemd|metrics))/ :: ebctl carries no daemon or data-plane code"
  "coordinator/ebctl/output :: ^grpcpp/|\.grpc\.pb\.h$    :: output renders messages; commands make the calls"
)

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"

trim() {
  local text=$1
  text=${text#"${text%%[![:space:]]*}"}
  printf '%s' "${text%"${text##*[![:space:]]}"}"
}

violations=0
checked_folders=()
for rule in "${RULES[@]}"; do
  folder=$(trim "${rule%%::*}")
  rest=${rule#*::}
  pattern=$(trim "${rest%%::*}")
  why=$(trim "${rest#*::}")
  if [[ ! -d "$folder" ]]; then
    echo "layering_check: $folder (in the rules table) does not exist" >&2
    violations=$((violations + 1))
    continue
  fi
  checked_folders+=("$folder")
  # file:line:included/path for every #include of the folder.
  while IFS= read -r hit; do
    [[ -n "$hit" ]] || continue
    location=${hit%:*}
    included=${hit##*:}
    if [[ "$included" =~ $pattern ]]; then
      echo "$location: includes $included: $why (rule: $folder must not include /$pattern/)" >&2
      violations=$((violations + 1))
    fi
  done < <(find "$folder" -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' \) -print0 |
    sort -z |
    xargs -0 -r awk 'match($0, /^[ \t]*#[ \t]*include[ \t]*[<"][^>"]+[>"]/) {
      line = substr($0, RSTART, RLENGTH)
      sub(/^[ \t]*#[ \t]*include[ \t]*[<"]/, "", line)
      sub(/[>"]$/, "", line)
      print FILENAME ":" FNR ":" line
    }')
done

# Nouns (docs/DESIGN.md): a production file is never named like a test
# (test_*, *_test.*), so that tools and readers do not take it for one.
while IFS= read -r file; do
  echo "$file: a production file named like a test (test_* or *_test): rename it (docs/DESIGN.md, \"Nouns\")" >&2
  violations=$((violations + 1))
done < <(find agent common coordinator proto -type f \( -name 'test_*' -o -name '*_test.*' \) | sort)

if ((violations)); then
  echo "layering_check: $violations violation(s)" >&2
  exit 1
fi
mapfile -t folders < <(printf '%s\n' "${checked_folders[@]}" | sort -u)
echo "layering_check: ${#RULES[@]} rules over ${folders[*]}: no violation"
