#!/usr/bin/python3
"""Checks deploy/kubernetes against the Kubernetes API schemas.

The schemas are the Kubernetes project's own OpenAPI-generated models of its
Python client (Debian's python3-kubernetes, API 1.22): every object of every
manifest the kustomization lists is walked against the model of its kind, so
an unknown or misspelt field, a wrong type (a string where an integer goes), a
missing required field (the models refuse None for those) or an unknown
kind/apiVersion fails. Then the facts the product depends on: the agent's
config map is valid TOML with only keys the agent knows (deploy/config/agent.toml
lists them all), every $(VAR) in an argument is a declared environment variable,
every volume mount names a volume, every secret and config map referenced is
documented in deploy/kubernetes/README.md, and the images are kustomize's.

Usage: kubernetes_manifests_check.py REPO_ROOT
"""

import os
import re
import sys
import tomllib

import kubernetes.client as k8s
import yaml

# (apiVersion, kind) -> the model class.
KINDS = {
    ("v1", "Namespace"): k8s.V1Namespace,
    ("v1", "ConfigMap"): k8s.V1ConfigMap,
    ("v1", "Service"): k8s.V1Service,
    ("apps/v1", "Deployment"): k8s.V1Deployment,
    ("apps/v1", "DaemonSet"): k8s.V1DaemonSet,
    ("batch/v1", "CronJob"): k8s.V1CronJob,
}

PRIMITIVES = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object}


def check_value(value, type_name, path, errors):
    """Walks `value` against the OpenAPI type name `type_name`."""
    if type_name.startswith("list["):
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list, got {type(value).__name__}")
            return
        for i, item in enumerate(value):
            check_value(item, type_name[5:-1], f"{path}[{i}]", errors)
        return
    if type_name.startswith("dict("):
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a map, got {type(value).__name__}")
            return
        inner = type_name[5:-1].split(", ", 1)[1]
        for key, item in value.items():
            check_value(item, inner, f"{path}.{key}", errors)
        return
    if type_name in PRIMITIVES:
        expected = PRIMITIVES[type_name]
        # YAML reads 0400 as the integer 256: fine for an int field.
        if type_name == "str" and not isinstance(value, str):
            errors.append(f"{path}: expected a string, got {value!r}")
        elif type_name != "str" and (isinstance(value, bool) and type_name != "bool"):
            errors.append(f"{path}: expected {type_name}, got {value!r}")
        elif not isinstance(value, expected):
            errors.append(f"{path}: expected {type_name}, got {value!r}")
        return
    model = getattr(k8s, type_name, None)
    if model is None:
        errors.append(f"{path}: the checker does not know the type {type_name}")
        return
    check_object(value, model, path, errors)


def check_object(value, model, path, errors):
    if not isinstance(value, dict):
        errors.append(f"{path}: expected an object ({model.__name__}), got {value!r}")
        return
    by_json = {json: attr for attr, json in model.attribute_map.items()}
    # IntOrString fields are typed `object` in the models.
    for key, item in value.items():
        if key not in by_json:
            errors.append(f"{path}.{key}: no such field in {model.__name__}")
            continue
        check_value(item, model.openapi_types[by_json[key]], f"{path}.{key}", errors)
    # Required fields: the generated setters refuse None for them.
    for attr, json in model.attribute_map.items():
        if json in value:
            continue
        try:
            probe = model.__new__(model)
            probe.local_vars_configuration = k8s.Configuration()
            setattr(probe, attr, None)
        except ValueError:
            errors.append(f"{path}: the required field {json} of {model.__name__} is missing")


def load_kustomization(root):
    with open(os.path.join(root, "deploy", "kubernetes", "kustomization.yaml")) as f:
        return yaml.safe_load(f)


def documents(root):
    base = os.path.join(root, "deploy", "kubernetes")
    kustomization = load_kustomization(root)
    for resource in kustomization["resources"]:
        with open(os.path.join(base, resource)) as f:
            for doc in yaml.safe_load_all(f):
                if doc is not None:
                    yield resource, doc


def pod_specs(doc):
    kind = doc.get("kind")
    spec = doc.get("spec", {})
    if kind in ("Deployment", "DaemonSet"):
        yield spec["template"]["spec"]
    elif kind == "CronJob":
        yield spec["jobTemplate"]["spec"]["template"]["spec"]


def flag_value(args, flag):
    """The value of --flag=VALUE or --flag VALUE in a container's args, or None."""
    for i, arg in enumerate(args):
        if arg.startswith(flag + "="):
            return arg[len(flag) + 1:]
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
    return None


def check_pod_policy(where, kind, pod, errors):
    """What a pod of ours must not do, whatever the schema allows (issue 33
    items 13-15): hold GPUs while idle, read another node's key, open host
    device nodes it may not, or run without probes."""
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for c in pod["containers"]:
        name = c["name"]
        resources = c.get("resources") or {}
        security = c.get("securityContext") or {}
        privileged = security.get("privileged", False)
        limits = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
        if kind == "DaemonSet":
            for resource in limits:
                if resource.endswith("/gpu"):
                    errors.append(f"{where}: {name} holds {resource} for its whole life: no workload "
                                  f"can use those GPUs, and a node with another count never starts it")
        mounts = c.get("volumeMounts", [])
        key = flag_value(c.get("args", []), "--tls-key")
        if key is not None and kind == "DaemonSet":
            under = [m for m in mounts if key.startswith(m["mountPath"].rstrip("/") + "/")]
            mount = max(under, key=lambda m: len(m["mountPath"]), default=None)
            volume = volumes.get(mount["name"], {}) if mount else {}
            if "hostPath" not in volume:
                errors.append(f"{where}: {name} reads its key {key} from "
                              f"{'volume ' + mount['name'] if mount else 'its image'}, not from its node "
                              f"(hostPath): every node's pod could read every node's key")
        for m in mounts:
            host = volumes.get(m["name"], {}).get("hostPath", {}).get("path", "")
            if host.startswith("/dev/") and not privileged:
                errors.append(f"{where}: {name} mounts host devices {host} unprivileged: the device "
                              f"cgroup refuses to open them (use a device plugin's resource)")
        if kind in ("Deployment", "DaemonSet"):
            for probe in ("livenessProbe", "readinessProbe"):
                if probe not in c:
                    errors.append(f"{where}: {name} has no {probe}")
        if "IPC_LOCK" in (security.get("capabilities") or {}).get("add", []):
            if not privileged and not any(r.startswith("rdma/") for r in limits):
                errors.append(f"{where}: {name} locks memory for RDMA but gets no RDMA device "
                              f"(an rdma/ resource, or privileged)")


def toml_keys(table, prefix=""):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from toml_keys(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def main():
    root = sys.argv[1]
    errors = []
    with open(os.path.join(root, "deploy", "config", "agent.toml"), "rb") as f:
        known_agent_keys = set(toml_keys(tomllib.load(f)))
    with open(os.path.join(root, "deploy", "kubernetes", "README.md")) as f:
        readme = f.read()
    images = {image["name"] for image in load_kustomization(root).get("images", [])}
    kinds = []
    for name, doc in documents(root):
        where = f"{name} {doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        model = KINDS.get((doc.get("apiVersion"), doc.get("kind")))
        if model is None:
            errors.append(f"{where}: unknown apiVersion/kind {doc.get('apiVersion')}/{doc.get('kind')}")
            continue
        kinds.append(doc["kind"])
        check_object(doc, model, where, errors)
        if doc["kind"] == "ConfigMap" and "agent.toml" in doc.get("data", {}):
            try:
                keys = set(toml_keys(tomllib.loads(doc["data"]["agent.toml"])))
            except tomllib.TOMLDecodeError as e:
                errors.append(f"{where}: agent.toml is not TOML: {e}")
                keys = set()
            for key in sorted(keys - known_agent_keys):
                errors.append(f"{where}: agent.toml key {key} is not an agent setting")
        for pod in pod_specs(doc):
            check_pod_policy(where, doc["kind"], pod, errors)
            volumes = {v["name"]: v for v in pod.get("volumes", [])}
            for volume in volumes.values():
                for source, field in (("secret", "secretName"), ("configMap", "name")):
                    if source in volume and volume[source][field] not in readme:
                        errors.append(f"{where}: {source} {volume[source][field]} is not in README.md")
            for c in pod["containers"]:
                env = {e["name"] for e in c.get("env", [])}
                for arg in c.get("args", []):
                    for var in re.findall(r"\$\((\w+)\)", arg):
                        if var not in env:
                            errors.append(f"{where}: {c['name']} argument {arg} uses undeclared $({var})")
                for mount in c.get("volumeMounts", []):
                    if mount["name"] not in volumes:
                        errors.append(f"{where}: {c['name']} mounts unknown volume {mount['name']}")
                if c["image"] not in images:
                    errors.append(f"{where}: image {c['image']} is not set by the kustomization")
    for wanted in ("Deployment", "Service", "DaemonSet", "CronJob", "ConfigMap"):
        if wanted not in kinds:
            errors.append(f"no {wanted} in the kustomization")
    for error in errors:
        print(f"FAIL {error}")
    print(f"checked {len(kinds)} objects ({', '.join(kinds)}): {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
