#!/usr/bin/env python3
"""One value per peak: every row's theoretical is the peaks table's figure for that item
(peaks.csv, from peakinfo in the same run), scaled by what the row used.

- network: a loopback row's peak is the table's loopback figure; a remote row's, the link's;
- memory: the table's DRAM figure (rows in MB/s carry it x 1000);
- disk: the table's rated MB/s or IOPS;
- cpu: theoretical / (cores used x the row's own clock) is the table's per-cycle figure
  for that ISA and precision (or lane width); a row whose clock reading was corrected to
  the anchor (flag clock_corrected: its load read low beside a rate that proves the core
  faster) takes cpubench's anchor, cpu.clock_ghz.scalar of raw/cpu-cpubench.json;
- any row: efficiency is empty exactly when theoretical is, and is mean / theoretical.

Usage: check_one_peak.py RESULTS_DIR. Exit 0 when all hold, 1 with one line per break.
"""
import csv
import json
import math
import os
import re
import sys

REL = 1e-6


def num(text: str) -> float:
    return float(text) if text not in ("", None) else math.nan


def close(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= REL * max(abs(a), abs(b))


def load(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main(results: str) -> int:
    peaks = {(r["suite"], r["variant"], r["metric"]): r for r in load(f"{results}/peaks.csv")}
    if not peaks:
        print(f"FAIL: no peaks.csv in {results}")
        return 1
    with open(f"{results}/context.json", encoding="utf-8") as f:
        ctx = json.load(f)
    cores = num(str(ctx.get("peak.cores", "")))
    anchor = math.nan
    try:
        with open(f"{results}/raw/cpu-cpubench.json", encoding="utf-8") as f:
            anchor = num(str(json.load(f).get("context", {}).get("cpu.clock_ghz.scalar", "")))
    except (OSError, ValueError):
        pass
    errors, checked = [], 0

    def want(label: str, got: float, expect: float) -> None:
        nonlocal checked
        checked += 1
        if not close(got, expect):
            errors.append(f"{label}: theoretical {got!r}, peaks table {expect!r}")

    for suite in ("cpu", "memory", "disk", "network", "dpdk"):
        rows = load(f"{results}/{suite}.csv")
        freq = {(r["variant"], r["threads"]): num(r["mean"]) for r in rows
                if r["test"] == "frequency"}
        for r in rows:
            theo, eff, mean = num(r["theoretical"]), num(r["efficiency"]), num(r["mean"])
            label = f"{suite} {r['test']} {r['variant']} {r['threads']}t {r['block_bytes']}B"
            if math.isfinite(theo) != math.isfinite(eff) and theo > 0:
                errors.append(f"{label}: theoretical {r['theoretical']!r} but efficiency "
                              f"{r['efficiency']!r}")
            if math.isfinite(eff) and not close(eff, mean / theo):
                errors.append(f"{label}: efficiency {eff} is not mean / theoretical")
            if not math.isfinite(theo):
                continue
            flags = r["flags"]
            if suite == "network":
                if "theoretical=memcpy" in flags:
                    want(label, theo, num(peaks[("network", "loopback", "throughput")]
                                          ["theoretical"]))
                elif "theoretical=link" in flags or "theoretical=config" in flags:
                    link = [p for k, p in peaks.items()
                            if k[0] == "network" and k[1] != "loopback"]
                    want(label, theo, num(link[0]["theoretical"]) if link else math.nan)
            elif suite == "memory":
                scale = 1000.0 if r["unit"] == "MB/s" else 1.0
                want(label, theo, scale * num(peaks[("memory", "dram", "throughput")]
                                              ["theoretical"]))
            elif suite == "disk":
                want(label, theo, num(peaks[("disk", "rated", r["metric"])]["theoretical"]))
            elif suite == "cpu" and r["test"] in ("flops", "iops"):
                m = re.fullmatch(r"(\w+?)_(sp|dp|i32|i64)_(fma|addmul|add)", r["variant"])
                if not m:
                    continue  # scalar FMA and multiply mixes: not in the peaks table
                isa, elem, kind = m.groups()
                fma_isa = isa in ("avx2", "avx512")
                if (kind == "fma") != fma_isa and kind != "add":
                    continue  # the table's scalar/sse/avx peak is add+mul, avx2/avx512 FMA
                p = peaks.get(("cpu", f"{isa}_{elem}", r["metric"]))
                per_cycle = re.search(r"per_cycle=([0-9.]+)", p["flags"]) if p else None
                clock = freq.get((r["variant"], r["threads"]), math.nan)
                if "clock_corrected" in flags.split(";"):
                    clock = anchor
                used = min(float(r["threads"]), cores)
                want(label, theo / (used * clock),
                     float(per_cycle.group(1)) if per_cycle else math.nan)
    for e in errors:
        print(f"FAIL: {e}")
    if errors:
        return 1
    print(f"ok: {checked} rows hold the peaks table's figure")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_one_peak.py RESULTS_DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
