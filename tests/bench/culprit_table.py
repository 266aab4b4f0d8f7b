#!/usr/bin/env python3
"""The table of tests/bench/culprit_scoring.sh: one JSON line per run in, one
Markdown row per case out.

A run is right when the report names the faulted part, and nothing in it
names another: the right part is `path`, `rank:R` or `node:N`.
  * A test that ended without a failure: its `culprit` must name the part
    (`path`; `descheduled_rank` R on R's node; `descheduled_host` N).
  * A test that failed: its primary failure must name the part (rank R:
    `worker_hung`, `worker_exited`; node N: `node_lost`; the path: a failure
    naming no rank and no node, `no_progress` or `too_slow`), and its
    `culprit` must not contradict it (naming another part, or the path
    while the failure names a rank or node).
The hosts' counters the culprit names (issue 29 item 6) are scored apart:
a run's `counters` is the node they must name first (`none`: they must
name nothing; `any`: not scored, the first named is listed)."""
import collections
import json
import statistics
import sys

PATH_FAILURES = ("no_progress", "too_slow")


def culprit_part(culprit):
    """The part a report's culprit names: path, rank:R, node:N or None."""
    if not culprit:
        return None
    kind = culprit.get("kind")
    if kind == "path":
        return "path"
    if culprit.get("rank") is not None and kind != "descheduled_host":
        return "rank:%d" % culprit["rank"]
    if culprit.get("node"):
        return "node:%s" % culprit["node"]
    return None  # unknown: names nothing


def failure_part(failure):
    if failure.get("rank", -1) >= 0:
        return "rank:%d" % failure["rank"]
    if failure.get("node"):
        return "node:%s" % failure["node"]
    return "path" if failure.get("kind") in PATH_FAILURES else None


def rank_node(rank_part):
    """Ranks 0-1 are node1's, 2-3 node2's (two workers a node)."""
    return "node%d" % (1 + int(rank_part.split(":")[1]) // 2)


def said(run):
    """What the run named, for the table: 'kind part'."""
    failures = run.get("failures") or []
    culprit = run.get("culprit") or {}
    if failures:
        f = failures[0]
        text = "%s %s" % (f.get("kind", "?"), failure_part(f))
        return text + " / culprit %s %s" % (culprit.get("kind"), culprit_part(culprit))
    return "%s %s" % (culprit.get("kind", "none"), culprit_part(culprit))


def right(run):
    expect = run["expect"]
    failures = run.get("failures") or []
    culprit = run.get("culprit") or {}
    named = culprit_part(culprit)
    if not failures:
        if named != expect:
            return False
        return not expect.startswith("rank:") or culprit.get("node") == rank_node(expect)
    if failure_part(failures[0]) != expect:
        return False
    return named is None or named == expect


def cannot_tell(run):
    """Not right, but naming no other part: `unknown`, or no culprit."""
    failures = run.get("failures") or []
    if failures and failure_part(failures[0]) not in (None, run["expect"]):
        return False
    return culprit_part(run.get("culprit")) is None


def bit(run):
    """False when the fault measurably did nothing (a CPU quota the worker
    never reached, a drop rule that dropped nothing)."""
    numbers = [int(w) for w in run.get("effect", "").split() if w.isdigit()]
    return not numbers or sum(numbers) > 0


def first_counter(run):
    """The node the culprit's counters name first, or 'none'."""
    named = (run.get("culprit") or {}).get("counters") or []
    return named[0]["node"] if named else "none"


def counters_cell(rows):
    """'right of scored (first named: count, ...)'."""
    named = collections.Counter(first_counter(r) for r in rows)
    listed = ", ".join("%s: %d" % kv for kv in sorted(named.items()))
    scored = [r for r in rows if r.get("counters", "any") != "any"]
    if not scored:
        return "- (%s)" % listed
    ok = sum(1 for r in scored if first_counter(r) == r["counters"])
    return "%d of %d (%s)" % (ok, len(scored), listed)


def main(path):
    cases = collections.OrderedDict()
    for line in open(path):
        run = json.loads(line)
        cases.setdefault(run["case"], []).append(run)
    print("| case | right part | runs | right | said when right | cannot tell | wrong (what was said)"
          " | fault did not bite | a failure named (kinds) | time to name s (median / max)"
          " | counters named first |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rows in cases.items():
        ok = [r for r in rows if right(r)]
        unsure = [r for r in rows if not right(r) and cannot_tell(r)]
        wrong = collections.Counter(said(r) for r in rows if not right(r) and not cannot_tell(r))
        kinds = collections.Counter(said(r).split(" ")[0] for r in ok)
        idle = [r for r in rows if not bit(r)]
        expect = rows[0]["expect"].split(":")[0]
        hang = [r["exit_at"] - r["fault_at"] for r in rows if r["fault_at"] > 0]
        # For a case without a hang, any failure is a false hang.
        failed = collections.Counter(r["failures"][0].get("kind", "?") for r in rows
                                     if r.get("failures"))
        failed_text = "%d (%s)" % (sum(failed.values()), ", ".join(
            "%s: %d" % kv for kv in sorted(failed.items()))) if failed else "0"
        times = "%.2f / %.2f" % (statistics.median(hang), max(hang)) if hang else "-"
        print("| %s | %s | %d | %d | %s | %d | %s | %s | %s | %s | %s |" % (
            name, expect, len(rows), len(ok),
            ", ".join("%s: %d" % kv for kv in sorted(kinds.items())) or "-", len(unsure),
            "; ".join("%s: %d" % kv for kv in sorted(wrong.items())) or "-",
            "%d (%s)" % (len(idle), ", ".join(said(r) for r in idle)) if idle else "-",
            failed_text, times, counters_cell(rows)))


if __name__ == "__main__":
    main(sys.argv[1])
