#!/usr/bin/env bash
# Installs what ebnccl needs to build and test, from Debian 12 packages.
# CUDA and NCCL are optional and come from /usr/local/cuda when present.
#
#   deploy/scripts/install-deps.sh            # build + test dependencies
#   deploy/scripts/install-deps.sh --bench    # also openmpi-bin (benchmarks)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libspdlog-dev libgloo-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev
  libtomlplusplus-dev libcpp-httplib-dev libsqlite3-dev systemd
  # The metrics registry (docs/DESIGN.md, "Metrics"), and promtool (Debian's
  # `prometheus`) for tests/deploy/metrics_promtool_test.sh
  prometheus-cpp-dev prometheus
  # The Debian package: lintian checks it (tests/deploy/deb_lintian_test.sh),
  # help2man writes the man pages from --help (deploy/scripts/make-man-pages.sh)
  lintian help2man
  iproute2 procps python3
  # The netns tests drop packets with nftables (this kernel has no netem)
  nftables
  # tests/netns/slurm_cluster.sh: a real Slurm (22.05) in the namespaces, for
  # the scheduler integration's end-to-end tests (issue 30)
  slurmctld slurmd slurm-client munge
  # tests/deploy/kubernetes_manifests_check.py: the Kubernetes API models
  python3-kubernetes python3-yaml
  clang-format clang-tidy
  # The sanitizer trees and the libFuzzer targets (tests/sanitize/run.sh;
  # libclang-rt-14-dev carries libFuzzer);
  # Debian 12 has no libprotobuf-mutator, so the targets parse raw bytes.
  clang-14 libclang-rt-14-dev
  # ebctl report: Chart.js, inlined into the HTML reports at build time; and
  # the headless browser html_report_test opens them in.
  libjs-chart.js chromium
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(openmpi-bin libopenmpi-dev hyperfine iperf3)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (missing: ${missing[*]})" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
