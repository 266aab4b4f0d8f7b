#!/usr/bin/env python3
"""Side-by-side of ebctl tables and nccl-tests tables of the same sweeps.

    tests/bench/compare_tables.py OURS.txt NCCL_TESTS.txt
    tests/bench/compare_tables.py OURS1.txt,OURS2.txt,... NCCL1.txt,NCCL2.txt,...
    tests/bench/compare_tables.py --all DIR > DIR/TABLES.md

Both tools print the nccl-tests layout; rows are matched by size. The first
form prints one markdown table (per size: both out-of-place and in-place
times in us, their ratio ours / nccl-tests where < 1 means ours measured
less, both out-of-place bus bandwidths) and a summary line. The second takes
every DIR/ours_N_C.txt with its DIR/nccltests_N_C.txt (N = world size, C =
collective) and prints a summary table followed by every per-size table.

Which target a sample (one size, one placement) is held to:
  * bandwidth-bound: nccl-tests' time is more than twice its latency floor
    (its smallest time for that placement over the sweep's non-empty sizes)
    and at least 10 us. Judged by the ratio ours / nccl-tests (target:
    within 2%), both ways: the worst (highest) ratio shows where ours is
    slower, the lowest where ours measured less, which is as suspect (a
    different measurement, e.g. data left in a cache).
  * latency-bound: every other sample. Judged by the gap ours - nccl-tests
    in us (target: at most +2 us). A negative worst gap means ours was below
    nccl-tests at every latency-bound sample.
Size-0 rows (count 0, e.g. alltoall 8 B over 2 ranks: nothing is launched)
are printed but left out of the summary.
"""
import argparse
import os
import re
import statistics
import sys

LATENCY_FACTOR = 2.0    # x the latency floor
BANDWIDTH_MIN_US = 10.0  # below this nothing is bandwidth-bound on these GPUs
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall",
               "sendrecv"]


def rows(path):
    """Rows by size; PATH may be several comma-separated files (repeated runs
    of one sweep), whose every field is then the per-size median."""
    paths = path.split(",")
    if len(paths) > 1:
        tables = [rows(p) for p in paths]
        sizes = set.intersection(*(set(t) for t in tables))
        return {size: {key: statistics.median(t[size][key] for t in tables)
                       for key in tables[0][size]} for size in sizes}
    table = {}
    for line in open(path):
        parts = line.split()
        if len(parts) < 13 or line.startswith("#") or not parts[0].isdigit():
            continue
        try:
            table[int(parts[0])] = {
                "oop_time": float(parts[5]), "oop_busbw": float(parts[7]),
                "ip_time": float(parts[9]), "ip_busbw": float(parts[11]),
            }
        except ValueError:
            continue
    return table


def avg_busbw(path):
    paths = path.split(",")
    if len(paths) > 1:
        values = [avg_busbw(p) for p in paths]
        return None if None in values else statistics.median(values)
    for line in open(path):
        m = re.match(r"#\s*Avg bus bandwidth\s*:\s*([0-9.]+)", line)
        if m:
            return float(m.group(1))
    return None


def human(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def compare(ours_path, ref_path):
    """Per-size table lines and the summary of one pair of files."""
    ours, ref = rows(ours_path), rows(ref_path)
    sizes = sorted(set(ours) & set(ref))
    floors = {}
    for variant in ("oop", "ip"):
        key = variant + "_time"
        times = [ref[s][key] for s in sizes if s > 0 and ref[s][key] > 0]
        floors[variant] = min(times) if times else 0.0
    table = [
        "| size (B) | ours oop (us) | nccl-tests oop (us) | ratio | ours ip (us) | "
        "nccl-tests ip (us) | ratio | ours busbw | nccl-tests busbw |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    worst_ratio, lowest_ratio, worst_gap = None, None, None  # (value, size, variant)
    counts = {"bandwidth": 0, "latency": 0}
    for size in sizes:
        a, b = ours[size], ref[size]
        ratios = {}
        for variant in ("oop", "ip"):
            mine, theirs = a[variant + "_time"], b[variant + "_time"]
            ratios[variant] = mine / theirs if theirs else float("nan")
            if size == 0:
                continue
            bandwidth_bound = (theirs > LATENCY_FACTOR * floors[variant]
                               and theirs >= BANDWIDTH_MIN_US)
            if bandwidth_bound:
                counts["bandwidth"] += 1
                if worst_ratio is None or ratios[variant] > worst_ratio[0]:
                    worst_ratio = (ratios[variant], size, variant)
                if lowest_ratio is None or ratios[variant] < lowest_ratio[0]:
                    lowest_ratio = (ratios[variant], size, variant)
            else:
                counts["latency"] += 1
                if worst_gap is None or mine - theirs > worst_gap[0]:
                    worst_gap = (mine - theirs, size, variant)
        table.append(f"| {size} | {a['oop_time']:.2f} | {b['oop_time']:.2f} | "
                     f"{ratios['oop']:.3f} | {a['ip_time']:.2f} | {b['ip_time']:.2f} | "
                     f"{ratios['ip']:.3f} | "
                     f"{a['oop_busbw']:.2f} | {b['oop_busbw']:.2f} |")
    return table, {
        "floors": floors, "worst_ratio": worst_ratio, "lowest_ratio": lowest_ratio,
        "worst_gap": worst_gap, "counts": counts,
        "busbw": (avg_busbw(ours_path), avg_busbw(ref_path)),
    }


def fmt_ratio(summary, key="worst_ratio"):
    w = summary[key]
    return "n/a (none)" if w is None else f"{w[0]:.3f} ({human(w[1])} {w[2]})"


def fmt_gap(summary):
    w = summary["worst_gap"]
    return "n/a (none)" if w is None else f"{w[0]:+.2f} us ({human(w[1])} {w[2]})"


def summary_line(summary):
    c, f = summary["counts"], summary["floors"]
    return (f"worst ratio, bandwidth-bound samples ({c['bandwidth']}): {fmt_ratio(summary)}; "
            f"lowest ratio: {fmt_ratio(summary, 'lowest_ratio')}; "
            f"worst gap, latency-bound samples ({c['latency']}): {fmt_gap(summary)}; "
            f"nccl-tests latency floor {f['oop']:.2f} us oop, {f['ip']:.2f} us ip")


def main_pair(ours_path, ref_path):
    table, summary = compare(ours_path, ref_path)
    print("\n".join(table))
    print()
    print(summary_line(summary))


def main_all(directory):
    # (N, collective) -> ([ours files], [nccl-tests files]); repeated runs
    # (repeatR_ours_N_C.txt beside repeatR_nccltests_N_C.txt) are grouped and
    # compared by their per-size medians.
    groups = {}
    for name in sorted(os.listdir(directory)):
        m = re.fullmatch(r"((?:repeat\d+_)?)ours_(\d+)_(\w+)\.txt", name)
        ref = os.path.join(directory, f"{m.group(1)}nccltests_{m.group(2)}_{m.group(3)}.txt") \
            if m else None
        if m and os.path.exists(ref):
            group = groups.setdefault((int(m.group(2)), m.group(3)), ([], []))
            group[0].append(os.path.join(directory, name))
            group[1].append(ref)
    pairs = {key: (",".join(ours), ",".join(refs)) for key, (ours, refs) in groups.items()}
    repeats = {len(ours) for ours, _ in groups.values()}
    worlds = sorted({n for n, _ in pairs})
    names = {c for _, c in pairs}
    collectives = [c for c in COLLECTIVES if c in names] + sorted(names - set(COLLECTIVES))
    results = {key: compare(*paths) for key, paths in pairs.items()}

    name = os.path.basename(os.path.normpath(directory))
    print(f"# Per-size tables: ours vs nccl-tests ({name})")
    print()
    print("Generated by `tests/bench/compare_tables.py --all "
          f"{os.path.normpath(directory)}` from the raw files beside this one; do not edit by "
          "hand.")
    print("A sample (one size, one placement) is bandwidth-bound when nccl-tests' time exceeds "
          f"both {LATENCY_FACTOR:g}x its latency floor (its smallest time for that placement over "
          f"the non-empty sizes) and {BANDWIDTH_MIN_US:g} us; it is then judged by the ratio "
          "ours / nccl-tests (< 1: ours measured less). Every other sample is latency-bound and "
          "judged by the gap ours - nccl-tests in us (negative: ours below nccl-tests at every "
          "such sample). "
          "Size-0 rows launch nothing and are left out of the summary. oop = out-of-place, "
          "ip = in-place. Average bus bandwidth is the files' footer (the mean over all sizes); "
          "at N=1 it means nothing: the busbw factor is 0 for all_reduce, all_gather, "
          "reduce_scatter and alltoall, and for broadcast, reduce and sendrecv the mean is "
          "dominated by in-place no-ops.")
    if repeats != {1}:
        print()
        print(f"Each tool ran each sweep {' or '.join(str(r) for r in sorted(repeats))} times, "
              "alternating; every figure below is the per-size median over those runs.")
    print()
    header = "| collective | N | worst ratio (bandwidth-bound) | lowest ratio (bandwidth-bound) | " \
             "worst gap (latency-bound) | nccl-tests floor oop / ip (us) | " \
             "avg busbw ours / nccl-tests (GB/s) |"
    print(header)
    print("|---|---:|---|---|---|---|---|")
    for c in collectives:
        for n in worlds:
            if (n, c) not in results:
                continue
            s = results[(n, c)][1]
            ours_bw, ref_bw = s["busbw"]
            if n == 1:
                bw = "n/a at N=1"  # (n-1)/n = 0, or in-place no-ops of a few us
            elif ours_bw is None or ref_bw is None:
                bw = "n/a"
            else:
                bw = f"{ours_bw:.1f} / {ref_bw:.1f}"
            print(f"| {c} | {n} | {fmt_ratio(s)} | {fmt_ratio(s, 'lowest_ratio')} | {fmt_gap(s)} | "
                  f"{s['floors']['oop']:.2f} / {s['floors']['ip']:.2f} | {bw} |")
    for c in collectives:
        for n in worlds:
            if (n, c) not in results:
                continue
            table, s = results[(n, c)]
            print()
            print(f"## {c}, N={n}")
            print()
            ours_files, ref_files = groups[(n, c)]
            print(" vs ".join(
                ", ".join(f"`{os.path.basename(f)}`" for f in files) if len(files) < 3
                else f"the median of {len(files)} runs, `{os.path.basename(files[0])}` ..."
                for files in (ours_files, ref_files)))
            print()
            print("\n".join(table))
            print()
            print(summary_line(s))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", metavar="DIR",
                        help="every ours_N_C.txt / nccltests_N_C.txt in DIR")
    parser.add_argument("files", nargs="*", metavar="FILE", help="OURS.txt NCCL_TESTS.txt")
    args = parser.parse_args()
    if args.all:
        main_all(args.all)
    elif len(args.files) == 2:
        main_pair(*args.files)
    else:
        parser.error("give OURS.txt NCCL_TESTS.txt, or --all DIR")


if __name__ == "__main__":
    sys.exit(main())
