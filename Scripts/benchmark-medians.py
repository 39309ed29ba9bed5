#!/usr/bin/env python3
"""Medians of several `Benchmarks --json` runs, row by row, as a Markdown table.

    Scripts/benchmark-medians.py run1.json run2.json run3.json [--filter TEXT]

Each row shows the median of ours per operation, of the ratio (baseline / ours, measured
round by round in each run), the target, and whether the median ratio meets it.
"""
import json
import statistics
import sys


def fmt_time(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def met(target, ratio, extra, output):
    parts = [p.strip() for p in target.split(",") if p.strip()]
    if not parts:
        return ""
    results = []
    for part in parts:
        words = part.split()
        if words[0] == "≥" and words[1].endswith("x") and ratio is not None:
            results.append(ratio >= float(words[1][:-1]))
        elif words[0] == "extra" and extra is not None and output:
            results.append(extra <= float(words[2][:-1]) * output)
        else:
            return ""
    return "yes" if all(results) else "MISSED"


def main():
    args = sys.argv[1:]
    text = None
    if "--filter" in args:
        index = args.index("--filter")
        text = args[index + 1]
        del args[index:index + 2]
    runs = [json.load(open(path))["rows"] for path in args]
    names = [f'{row["group"]}: {row["name"]}' for row in runs[0]]
    print("| row | ours / op | baseline | ratio (median of %d) | peak (+ beyond input) | target | met |" % len(runs))
    print("|---|---:|---|---:|---:|---|---|")
    for name in names:
        if text and text.lower() not in name.lower():
            continue
        rows = [row for run in runs for row in run if f'{row["group"]}: {row["name"]}' == name]
        ours = statistics.median(row["oursNanosecondsPerOperation"] for row in rows)
        ratios = [row["ratio"] for row in rows if row.get("ratio") is not None]
        ratio = statistics.median(ratios) if ratios else None
        peaks = [row["peakMemoryBytes"] for row in rows if row.get("peakMemoryBytes")]
        extras = [row["extraMemoryBytes"] for row in rows if row.get("extraMemoryBytes") is not None]
        extra = statistics.median(extras) if extras else None
        output = rows[0].get("outputBytes")
        memory = "-"
        if peaks:
            memory = f"{statistics.median(peaks) / 1048576:.1f} MiB"
            if extra is not None:
                memory += f" (+{extra / 1048576:.1f})"
        target = rows[0].get("target", "")
        ratio_text = "-" if ratio is None else (f"{ratio:.2f}x" if ratio < 10 else f"{ratio:.1f}x")
        print(f'| {name} | {fmt_time(ours)} | {rows[0]["baselineName"]} | {ratio_text} | {memory} | {target} | {met(target, ratio, extra, output)} |')


if __name__ == "__main__":
    main()
