#!/usr/bin/env python3
"""Side-by-side of an ebctl table and an nccl-tests table of the same sweep.

    tests/bench/compare_tables.py OURS.txt NCCL_TESTS.txt [--markdown]

Both print the nccl-tests layout; rows are matched by size. For each size it
prints both out-of-place and in-place times (us), their ratio (ours /
nccl-tests, < 1 means ours measured less), both bus bandwidths, and a summary:
the worst ratio at sizes >= 1 MiB (where the reference takes >= 10 us; below
that a ratio of two no-ops means nothing and the gap in us is reported
instead) and the largest small-size latency gap.
"""
import sys


def rows(path):
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


def main():
    ours, ref = rows(sys.argv[1]), rows(sys.argv[2])
    print("| size (B) | ours oop (us) | nccl-tests oop (us) | ratio | ours ip (us) | nccl-tests ip (us) | ratio | ours busbw | nccl-tests busbw |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    worst_large, worst_small_gap = 0.0, 0.0
    for size in sorted(set(ours) & set(ref)):
        a, b = ours[size], ref[size]
        r_oop = a["oop_time"] / b["oop_time"] if b["oop_time"] else float("nan")
        r_ip = a["ip_time"] / b["ip_time"] if b["ip_time"] else float("nan")
        if size >= 1 << 20:
            for mine, theirs, ratio in ((a["oop_time"], b["oop_time"], r_oop),
                                        (a["ip_time"], b["ip_time"], r_ip)):
                if theirs >= 10:
                    worst_large = max(worst_large, ratio)
                else:
                    worst_small_gap = max(worst_small_gap, mine - theirs)
        else:
            worst_small_gap = max(worst_small_gap, a["oop_time"] - b["oop_time"],
                                  a["ip_time"] - b["ip_time"])
        print(f"| {size} | {a['oop_time']:.2f} | {b['oop_time']:.2f} | {r_oop:.3f} | "
              f"{a['ip_time']:.2f} | {b['ip_time']:.2f} | {r_ip:.3f} | {a['oop_busbw']:.2f} | "
              f"{b['oop_busbw']:.2f} |")
    print()
    print(f"worst time ratio at >= 1 MiB: {worst_large:.3f}; "
          f"largest gap below 10 us or 1 MiB (ours - nccl-tests): {worst_small_gap:+.2f} us")


if __name__ == "__main__":
    main()
