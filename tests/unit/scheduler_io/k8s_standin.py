#!/usr/bin/env python3
"""A stand-in for the Kubernetes API server (issue 30), for the Kubernetes
backend's test: NOT a kube-apiserver. It answers the few requests the backend
sends (through kubectl's --raw verbs) the way the API would, and CHECKS each:
the path, the verb, and the body (a PUT changes only what ebnccl may change:
the node's taints, or its EbncclDrained condition; the resourceVersion must
be the current one, else 409; a placeholder pod has the lowest
PriorityClass, a hostname affinity and the node's GPUs). A request it does
not expect is answered 400 and recorded as a violation; the run fails on any.

  k8s_standin.py --run CMD ARGS...   serves on 127.0.0.1 (a free port), runs
                                     CMD with EB_K8S_SERVER=http://127.0.0.1:PORT,
                                     exits with CMD's status, or 1 on a violation.

Control requests for the test (not the API): POST /standin/preempt?node=N
(a tenant pod preempts ebnccl's placeholder there: it is being deleted, a
tenant pod runs), GET /standin/requests (every request, "VERB PATH").
"""
import copy
import json
import os
import subprocess
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAMESPACE = "ebnccl"
PRIORITY_CLASS = "ebnccl-lowest"
GPU = "nvidia.com/gpu"
TAINT_KEY = "ebnccl.io/drained"
CONDITION = "EbncclDrained"
MAX_BODY = 1 << 20


def node(name, gpus, taints=None, unschedulable=False):
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "resourceVersion": "1",
                     "labels": {"kubernetes.io/hostname": name}},
        "spec": {"podCIDR": "10.244.0.0/24", "taints": taints or [],
                 **({"unschedulable": True} if unschedulable else {})},
        "status": {"allocatable": {GPU: str(gpus), "cpu": "64"},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.nodes = {n["metadata"]["name"]: n for n in [
            node("gpu-1", 8), node("gpu-2", 8), node("gpu-3", 8),
            # An operator's cordon and an operator's taint: never touched.
            node("gpu-4", 8, unschedulable=True),
            node("gpu-5", 8, taints=[{"key": "site/maintenance", "effect": "NoSchedule"}]),
        ]}
        self.pods = []
        self.serial = 0
        self.requests = []
        self.violations = []


STATE = State()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the test prints what matters
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def status(self, code, reason, message):
        self.reply(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                          "message": message, "reason": reason, "code": code})

    def violation(self, message):
        STATE.violations.append(f"{self.command} {self.path}: {message}")
        self.status(400, "BadRequest", "stand-in: " + message)

    def body(self):
        # kubectl sends a file's body chunked (no Content-Length).
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
                if len(data) > MAX_BODY:
                    return None
        else:
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                return None
            data = self.rfile.read(length)
        try:
            return json.loads(data)
        except ValueError:
            return None

    def handle_any(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        parts = [p for p in url.path.split("/") if p]
        with STATE.lock:
            STATE.requests.append(f"{self.command} {url.path}"
                                  + (f"?{urllib.parse.unquote(url.query)}" if url.query else ""))
            if parts[:1] == ["standin"]:
                return self.control(parts, query)
            if parts == ["version"] and self.command == "GET":
                # kubectl asks before a write.
                return self.reply(200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0-standin"})
            if parts[:2] != ["api", "v1"]:
                return self.violation("not under /api/v1")
            rest = parts[2:]
            if rest == ["nodes"] and self.command == "GET":
                return self.reply(200, {"kind": "NodeList", "apiVersion": "v1",
                                        "items": list(STATE.nodes.values())})
            if len(rest) in (2, 3) and rest[0] == "nodes":
                return self.one_node(rest[1], rest[2:] == ["status"])
            if rest == ["pods"] and self.command == "GET":
                want = query.get("fieldSelector", [""])[0]
                if want != "status.phase!=Succeeded,status.phase!=Failed":
                    return self.violation(f"unexpected fieldSelector {want!r}")
                pods = [p for p in STATE.pods
                        if p["status"]["phase"] not in ("Succeeded", "Failed")]
                return self.reply(200, {"kind": "PodList", "items": pods})
            if rest == ["namespaces", NAMESPACE, "pods"]:
                return self.namespaced_pods(query)
            return self.violation("unexpected path")

    def control(self, parts, query):
        if parts == ["standin", "requests"]:
            return self.reply(200, {"requests": STATE.requests})
        if parts == ["standin", "preempt"] and self.command == "POST":
            name = query.get("node", [""])[0]
            for pod in STATE.pods:
                if pod["spec"].get("nodeName") == name and "deletionTimestamp" not in pod["metadata"]:
                    pod["metadata"]["deletionTimestamp"] = "2026-12-07T06:00:00Z"
            STATE.pods.append({"metadata": {"name": "tenant-" + name, "namespace": "default"},
                               "spec": {"nodeName": name}, "status": {"phase": "Running"}})
            return self.reply(200, {})
        return self.violation("unknown control request")

    def one_node(self, name, status):
        current = STATE.nodes.get(name)
        if current is None:
            return self.status(404, "NotFound", f'nodes "{name}" not found')
        if self.command == "GET" and not status:
            return self.reply(200, current)
        if self.command != "PUT":
            return self.violation("a node is only read (GET) or replaced (PUT)")
        new = self.body()
        if not isinstance(new, dict) or new.get("metadata", {}).get("name") != name:
            return self.violation("the body is not this node")
        if new["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
            return self.status(409, "Conflict", "the object has been modified")
        # Only what ebnccl may change, changed.
        before, after = copy.deepcopy(current), copy.deepcopy(new)
        if status:
            theirs = lambda n: [c for c in n["status"].get("conditions", []) if c.get("type") != CONDITION]
            ours = [c for c in after["status"].get("conditions", []) if c.get("type") == CONDITION]
            if theirs(before) != theirs(after):
                return self.violation("a condition that is not ebnccl's changed")
            if len(ours) != 1 or ours[0].get("status") not in ("True", "False") \
                    or not isinstance(ours[0].get("message"), str):
                return self.violation("not one well-formed EbncclDrained condition")
            if ours[0]["status"] == "True" and not ours[0]["message"].startswith("ebnccl"):
                return self.violation("a drain reason that does not start with ebnccl")
            before["status"]["conditions"] = after["status"]["conditions"]
        else:
            theirs = lambda n: [t for t in n["spec"].get("taints") or [] if t.get("key") != TAINT_KEY]
            ours = [t for t in after["spec"].get("taints") or [] if t.get("key") == TAINT_KEY]
            if theirs(before) != theirs(after):
                return self.violation("a taint that is not ebnccl's changed")
            if ours not in ([], [{"key": TAINT_KEY, "value": "true", "effect": "NoSchedule"}]):
                return self.violation("ebnccl's taint is not one NoSchedule taint")
            before["spec"]["taints"] = after["spec"]["taints"]
        if before != after:
            return self.violation("fields other than ebnccl's changed")
        after["metadata"]["resourceVersion"] = str(int(current["metadata"]["resourceVersion"]) + 1)
        STATE.nodes[name] = after
        return self.reply(200, after)

    def namespaced_pods(self, query):
        selector = query.get("labelSelector", [""])[0]
        if self.command == "POST":
            return self.create_pod()
        if "=" not in selector or selector.split("=")[0] not in ("ebnccl.io/borrow", "ebnccl.io/job-name"):
            return self.violation(f"unexpected labelSelector {selector!r}")
        key, value = selector.split("=", 1)
        matching = [p for p in STATE.pods if p["metadata"].get("labels", {}).get(key) == value]
        if self.command == "GET":
            return self.reply(200, {"kind": "PodList", "items": matching})
        if self.command == "DELETE":
            STATE.pods = [p for p in STATE.pods if p not in matching]
            return self.reply(200, {"kind": "PodList", "items": matching})
        return self.violation("unexpected verb on pods")

    def create_pod(self):
        pod = self.body()
        if not isinstance(pod, dict) or pod.get("kind") != "Pod":
            return self.violation("the body is not a Pod")
        spec, meta = pod.get("spec", {}), pod.get("metadata", {})
        if spec.get("priorityClassName") != PRIORITY_CLASS:
            return self.violation("a placeholder not of the lowest PriorityClass")
        if "nodeName" in spec:
            return self.violation("nodeName bypasses the scheduler and its preemption")
        try:
            term = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
                "nodeSelectorTerms"][0]["matchExpressions"][0]
            assert term["key"] == "kubernetes.io/hostname" and term["operator"] == "In"
            (target,) = term["values"]
            requests = spec["containers"][0]["resources"]["requests"]
            labels = meta["labels"]
            assert labels["ebnccl.io/borrow"] and labels["ebnccl.io/job-name"]
        except (KeyError, IndexError, TypeError, ValueError, AssertionError):
            return self.violation("not a placeholder: hostname affinity, requests, labels")
        want = STATE.nodes.get(target, {}).get("status", {}).get("allocatable", {}).get(GPU)
        if want is None or requests.get(GPU) != want or spec["containers"][0]["resources"].get("limits") != requests:
            return self.violation(f"the placeholder does not ask all of {target}'s GPUs")
        STATE.serial += 1
        meta["name"] = f"{meta.get('generateName', 'pod-')}{STATE.serial}"
        # The scheduler places it at once: the node is free in this stand-in.
        spec["nodeName"] = target
        pod["status"] = {"phase": "Running"}
        STATE.pods.append(pod)
        return self.reply(201, pod)

    do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = handle_any


def main():
    if len(sys.argv) < 3 or sys.argv[1] != "--run":
        print(__doc__, file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ, EB_K8S_SERVER=f"http://127.0.0.1:{server.server_address[1]}")
    code = subprocess.call(sys.argv[2:], env=env)
    server.shutdown()
    for v in STATE.violations:
        print(f"stand-in: VIOLATION: {v}", file=sys.stderr)
    return 1 if STATE.violations else code


if __name__ == "__main__":
    sys.exit(main())
