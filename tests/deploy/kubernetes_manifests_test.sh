#!/usr/bin/env bash
# deploy/kubernetes passes the schema check (kubernetes_manifests_check.py),
# and the check is not vacuous: copies with an unknown field, a wrong type, a
# missing required field, an undeclared $(VAR) and a bad agent.toml key each
# fail, naming what is wrong. Skipped (77) without Debian's python3-kubernetes.
set -euo pipefail
repo=${1:?usage: kubernetes_manifests_test.sh REPO_ROOT}
python=/usr/bin/python3
[[ -x $python ]] || python=python3
if ! "$python" -c 'import kubernetes, yaml' 2>/dev/null; then
  echo "SKIP: python3-kubernetes and python3-yaml are not installed"
  exit 77
fi
check="$(dirname "$0")/kubernetes_manifests_check.py"
"$python" "$check" "$repo"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mutant NAME FILE SED_EXPRESSION EXPECTED_MESSAGE
mutant() {
  local name=$1 file=$2 expr=$3 expected=$4
  rm -rf "$work/$name"
  mkdir -p "$work/$name/deploy"
  cp -r "$repo/deploy/kubernetes" "$repo/deploy/config" "$work/$name/deploy/"
  sed -i "$expr" "$work/$name/deploy/kubernetes/$file"
  cmp -s "$repo/deploy/kubernetes/$file" "$work/$name/deploy/kubernetes/$file" && {
    echo "FAIL: mutant $name changed nothing"; exit 1; }
  if out=$("$python" "$check" "$work/$name" 2>&1); then
    echo "FAIL: mutant $name passed the check"; exit 1
  fi
  grep -qF -- "$expected" <<<"$out" || { echo "FAIL: mutant $name: no '$expected' in:"; echo "$out"; exit 1; }
  echo "ok: mutant $name refused ($expected)"
}
mutant unknown-field coordinator.yaml 's/readinessProbe:/readynessProbe:/' "readynessProbe: no such field in V1Container"
mutant wrong-type coordinator-service.yaml 's/port: 29470/port: "29470"/' "expected int"
mutant missing-required agent-daemonset.yaml '/^  selector:/,/app.kubernetes.io\/name: eb-agent/d' "required field selector of V1DaemonSetSpec is missing"
mutant undeclared-var agent-daemonset.yaml 's/\$(NODE_NAME).pem/$(NODE).pem/' 'uses undeclared $(NODE)'
mutant agent-key agent-config.yaml 's/bootstrap_interface = /bootstrap_iface = /' "agent.toml key network.bootstrap_iface is not an agent setting"
# What the pods must not do (issue 33 items 13-15).
mutant agent-holds-gpus agent-daemonset.yaml 's|rdma/rdma_shared_device_a: "1"|nvidia.com/gpu: "8"|' \
  "eb-agent holds nvidia.com/gpu for its whole life"
mutant key-in-a-secret agent-daemonset.yaml \
  '/^        - name: node-tls$/,/type: Directory/c\        - name: node-tls\n          secret:\n            secretName: ebnccl-ca' \
  "every node's pod could read every node's key"
mutant host-devices-unprivileged agent-daemonset.yaml 's|path: /sys/class/infiniband|path: /dev/infiniband|' \
  "mounts host devices /dev/infiniband unprivileged"
mutant no-readiness-probe agent-daemonset.yaml '/^          readinessProbe:/,/periodSeconds: 10/d' \
  "eb-agent has no readinessProbe"
mutant no-rdma-device agent-daemonset.yaml '/rdma\/rdma_shared_device_a/d' "gets no RDMA device"
echo "kubernetes_manifests_test: ok"
