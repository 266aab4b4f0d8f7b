#!/usr/bin/python3
"""Checks the Grafana dashboard and the alert rules against real scrapes.

Every PromQL expression of deploy/grafana/ebnccl-dashboard.json (each panel's
targets, nested rows included, and the templating queries) and of
deploy/prometheus/ebnccl-alerts.yml must name at least one metric, and every
metric it names must be in the scrape of a running coordinator or agent
(a family's TYPE line, or a histogram's _bucket, _sum and _count): a renamed
or misspelt metric fails here, not on an empty panel in production. Every
alert rule also needs a non-empty summary and description. The dashboard
must be one that Grafana imports: a title, a uid, panels each with a unique
id, a type and a gridPos, and targets with a refId and an expression.

Usage: metric_names_check.py [--dashboard JSON] [--alerts YML] SCRAPE_FILE...
Exit 0 when everything holds, 1 with one line per finding.
"""

import argparse
import json
import re
import sys

import yaml

# Our metric names: ebnccl_* and the process_* of Prometheus' client
# libraries. Label names and functions never start with these.
METRIC = re.compile(r"\b((?:ebnccl|process)_[a-zA-Z0-9_]*)\b")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


def exported_names(scrape_paths):
    """The sample names the scrapes can answer: families and histogram series."""
    names = set()
    for path in scrape_paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("# TYPE "):
                    _, _, name, kind = line.split()[:4]
                    names.add(name)
                    if kind == "histogram":
                        names.update(name + s for s in ("_bucket", "_sum", "_count"))
                elif line.strip() and not line.startswith("#"):
                    names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def metrics_in(expr):
    """Metric names of a PromQL expression, string literals left out."""
    return set(METRIC.findall(STRING.sub('""', expr)))


def dashboard_exprs(dashboard, findings):
    """(where, expr) of every query of the dashboard; structure findings."""
    for key in ("title", "uid", "panels"):
        if not dashboard.get(key):
            findings.append(f"dashboard: no {key}")
    exprs = []
    ids = set()

    def walk(panels):
        for panel in panels:
            where = f"panel {panel.get('id')} ({panel.get('title', '?')})"
            if panel.get("id") in ids or not isinstance(panel.get("id"), int):
                findings.append(f"{where}: missing or duplicate id")
            ids.add(panel.get("id"))
            for key in ("type", "gridPos", "title"):
                if not panel.get(key):
                    findings.append(f"{where}: no {key}")
            walk(panel.get("panels", []))
            if panel.get("type") == "row":
                continue
            if not panel.get("targets"):
                findings.append(f"{where}: no targets")
            for target in panel.get("targets", []):
                if not target.get("refId") or not target.get("expr"):
                    findings.append(f"{where}: a target without refId or expr")
                    continue
                exprs.append((f"{where} {target['refId']}", target["expr"]))

    walk(dashboard.get("panels", []))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            query = variable.get("query")
            query = query.get("query", "") if isinstance(query, dict) else query or ""
            exprs.append((f"variable ${variable.get('name')}", query))
    return exprs


def alert_exprs(alerts, findings):
    exprs = []
    for group in alerts.get("groups", []):
        for rule in group.get("rules", []):
            name = rule.get("alert") or rule.get("record") or "?"
            if "alert" in rule:
                annotations = rule.get("annotations") or {}
                for key in ("summary", "description"):
                    if not str(annotations.get(key, "")).strip():
                        findings.append(f"alert {name}: no {key} annotation")
            exprs.append((f"alert {name}", rule.get("expr", "")))
    return exprs


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--dashboard", help="a Grafana dashboard (JSON)")
    parser.add_argument("--alerts", help="Prometheus alerting rules (YAML)")
    parser.add_argument("scrapes", nargs="+", help="/metrics scrapes of running daemons")
    args = parser.parse_args(argv[1:])
    findings = []
    exprs = []
    if args.dashboard:
        with open(args.dashboard, encoding="utf-8") as f:
            exprs += dashboard_exprs(json.load(f), findings)
    if args.alerts:
        with open(args.alerts, encoding="utf-8") as f:
            exprs += alert_exprs(yaml.safe_load(f), findings)
    exported = exported_names(args.scrapes)
    for where, expr in exprs:
        names = metrics_in(expr)
        if not names:
            findings.append(f"{where}: names no ebnccl_ or process_ metric: {expr}")
        for name in sorted(names - exported):
            findings.append(f"{where}: {name} is in no scrape")
    for finding in findings:
        print(f"metric_names_check: {finding}")
    if not findings:
        print(f"metric_names_check: ok ({len(exprs)} expressions, {len(exported)} exported names)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
