#!/usr/bin/env python3
"""The AVX-512 clock of a record, replayed (issue 34, docs/benchmarks/cpu.md "The clock
under each ISA"): for every record with probe runs (peakinfo-measured-*.json) and cpubench
rows of 512-bit FMA kernels, whether the clock explains the rows against their peak.

  check_clock_replay.py [--outside RECORD=R ...] DIR...

For each such record:
  - the probe's 512-bit adds read their whole unit count at the imul clock (vadd512 within
    3% of an integer): the timer and the scalar clock are right for light 512-bit work;
  - the probe's 512-bit FMAs over the count the rows' peak uses give the FMA clock's ratio
    to the scalar clock (fma512 / units);
  - a record whose ratio is 1 (within 3%: no licence, e.g. Zen 4) has every 512-bit FMA
    row at 0.95 of its peak or more at the scalar clock: nothing to explain;
  - a record whose ratio is below (a licence, e.g. the masked Intel server core) has every
    512-bit FMA row below 0.95 at the scalar clock and within [0.95, 1.05] at that clock x
    ratio: the lower clock explains the row, as cpubench's clock=avx512_fma now measures it;
  - --outside RECORD=R (the ratio measured outside the suite on that record's machine:
    512-bit FMA chain over imul chain): the probe's ratio agrees with it within 3%, and a
    record named there that is not found fails (skipped when a folder given is absent).
A record without those files is skipped; none judged is exit 77; a failure exit 1.
"""
import argparse
import json
import os
import statistics
import sys

TOL = 0.03  # PEAK_FREQ_LOAD_TOL and the probe's band above an integer


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def probe_figures(rec: str) -> dict[str, list[float]]:
    """Each figure of the record's probe runs, from peak.uarch_note ("per cycle at ... : fma512 1.85, ...")."""
    figs: dict[str, list[float]] = {}
    for f in sorted(os.listdir(rec)):
        if not f.startswith("peakinfo-measured-"):
            continue
        note = str(load(os.path.join(rec, f))["context"].get("peak.uarch_note", ""))
        for item in note.split(":", 1)[-1].split(","):
            words = item.split()
            if len(words) >= 2:
                try:
                    figs.setdefault(words[0], []).append(float(words[1]))
                except ValueError:
                    pass
    return figs


def rows_of(rec: str) -> list[dict]:
    rows = []
    for f in sorted(os.listdir(rec)):
        if f.startswith("cpubench") and f.endswith(".json"):
            rows += load(os.path.join(rec, f)).get("results", [])
    return rows


def judge(rec: str, outside: float | None) -> tuple[bool | None, list[str]]:
    """(True held / False failed / None not judged, lines to print)."""
    name = os.path.basename(rec)
    figs = probe_figures(rec)
    rows = rows_of(rec)
    fma = [r for r in rows if r["metric"] == "flops" and r["variant"].startswith("avx512_")
           and r["variant"].endswith("_fma") and r.get("theoretical")]
    if not figs.get("fma512") or not figs.get("vadd512") or not fma:
        return None, [f"SKIP: {name}: no probe runs with fma512/vadd512, or no 512-bit FMA rows"]
    out, ok = [], True
    vadd = statistics.median(figs["vadd512"])
    if abs(vadd / round(vadd) - 1) > TOL:
        return False, [f"FAIL: {name}: vadd512 {vadd:.2f} a cycle is no unit count: the scalar clock is in doubt"]
    freq = {(r["variant"], r["threads"]): r["mean"] for r in rows if r["metric"] == "frequency"}
    per_probe = statistics.median(figs["fma512"])
    for r in fma:
        lanes = 16 if "_sp_" in r["variant"] else 8
        clock_row = freq.get((r["variant"], r["threads"]))
        scalar = freq.get(("scalar_dp_fma", r["threads"]))
        if not clock_row or not scalar:
            out.append(f"SKIP: {name}: {r['variant']} {r['threads']}t: no frequency row")
            continue
        # The peak's instructions a cycle over all cores used: theoretical / clock / flops each.
        units_x_cores = r["theoretical"] / clock_row / (2 * lanes)
        cores = r["threads"]
        units = round(units_x_cores / cores)
        ratio = per_probe / units
        eff_scalar = r["mean"] / (units_x_cores * 2 * lanes * scalar)
        eff_fma = eff_scalar / ratio
        line = (f"{name}: {r['variant']} {r['threads']}t: {eff_scalar:.3f} of its peak at the scalar "
                f"clock {scalar:.2f} GHz, {eff_fma:.3f} at the FMA clock {scalar * ratio:.2f} GHz "
                f"(probe fma512 {per_probe:.2f} a cycle of {units}, vadd512 {vadd:.2f})")
        licence = ratio < 1 - TOL
        held = (eff_scalar < 0.95 and 0.95 <= eff_fma <= 1.05) if licence else eff_scalar >= 0.95
        if not held:
            ok = False
        out.append(("ok: " if held else "FAIL: ") + line +
                   ("" if licence else ": no licence (ratio 1), the scalar clock stands"))
    if outside is not None:
        ratio = per_probe / round(per_probe)
        if abs(ratio / outside - 1) > TOL:
            ok = False
            out.append(f"FAIL: {name}: the probe's FMA clock ratio {ratio:.3f} and the outside one {outside:.3f} disagree")
        else:
            out.append(f"ok: {name}: the probe's FMA clock ratio {ratio:.3f} agrees with the outside {outside:.3f}")
    return ok, out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--outside", action="append", default=[], metavar="RECORD=R")
    p.add_argument("dirs", nargs="+")
    a = p.parse_args(argv)
    outside = {}
    for item in a.outside:
        name, _, value = item.partition("=")
        try:
            outside[name] = float(value)
        except ValueError:
            p.error(f"--outside {item}: not RECORD=RATIO")
    judged = failed = 0
    seen = set()
    for d in a.dirs:
        if not os.path.isdir(d):
            print(f"note: {d} does not exist")
            continue
        for rec in sorted(os.path.join(d, x) for x in os.listdir(d)):
            if not os.path.isdir(rec):
                continue
            seen.add(os.path.basename(rec))
            res, lines = judge(rec, outside.get(os.path.basename(rec)))
            print("\n".join(lines))
            if res is None:
                continue
            judged += 1
            failed += 0 if res else 1
    # A record named by --outside that is missing fails, unless a folder given is absent
    # (a tree without ../shared beside it: the shared records are skipped, as elsewhere).
    absent = [d for d in a.dirs if not os.path.isdir(d)]
    for name in sorted(set(outside) - seen):
        if absent:
            print(f"SKIP: {name}: named by --outside, not here ({', '.join(absent)} absent)")
        else:
            print(f"FAIL: {name}: named by --outside, not found")
            failed += 1
    if failed:
        print(f"{failed} record(s) failed")
        return 1
    if not judged:
        print("SKIP: no record to judge")
        return 77
    print(f"ok: {judged} record(s) held")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
