#!/usr/bin/env python3
"""Every recorded row's physics flags agree with its own figure (issue 34).

  check_flags.py [--as-recorded] PATH...

PATH is a results file or a folder searched for them (recursively; a record's fake root/
is left out): every CSV with the schema's columns (cpu-full-run.csv, memory-full-run.csv,
suite CSVs) and every JSON with a "results" list (cpubench*.json, raw/*.json). The records
were written by older code, so each row's flags are taken as the results program makes
them today (physics.refreshed_flags, libpeak's rule: PEAK_ABOVE_PEAK_RATIO of
common/harness/peak_result.h); --as-recorded judges the flags as written instead (the old code's,
to see the check catch it).

A row fails when:
- its efficiency is not its own mean over its own theoretical (the figure it reports);
- it carries above_peak and its mean is not above the ratio of its theoretical, or is and
  does not (a measured rate row with a theoretical, not a comparison);
- it is a comparison row (flag comparison, or linpack's twin by its name or the
  same_run_as_dgesv it carried before) and carries above_peak, or is a twin not marked so.

Exit 0 every row held, 1 one did not, 77 no row found, 2 usage.
"""
import argparse
import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))

from peakresults.core import physics, schema  # noqa: E402

NEEDED = ("suite", "test", "variant", "threads", "metric", "n", "mean", "theoretical", "efficiency", "flags")


def num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def files(paths: list[str]) -> list[str]:
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        if not os.path.isdir(p):
            print(f"note: {p} absent: no rows from there")
            continue
        for top, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if d != "root")  # a record's fake /proc and /sys
            out += [os.path.join(top, n) for n in sorted(names) if n.endswith((".csv", ".json"))]
    return out


def rows_of(path: str) -> list[dict]:
    """The schema rows of a file; [] for any other file."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            if path.endswith(".csv"):
                got = list(csv.DictReader(f))
            else:
                doc = json.load(f)
                got = doc.get("results") if isinstance(doc, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return []
    if not isinstance(got, list):
        return []
    return [r for r in got if isinstance(r, dict) and all(k in r for k in NEEDED)]


def is_twin(row: dict) -> bool:
    """linpack's row against another ISA's peak (dgesv_vs_avx2)."""
    return row.get("test") == "linpack" and "_vs_" in (row.get("variant") or "")


def problems(row: dict, as_recorded: bool) -> list[str]:
    flags = row.get("flags") or ""
    if not as_recorded:
        flags = physics.refreshed_flags(row)
    names = schema.flags_of({"flags": flags})
    mean, theo, eff = num(row.get("mean")), num(row.get("theoretical")), num(row.get("efficiency"))
    own = mean / theo if num(row.get("n")) > 0 and theo > 0 and math.isfinite(mean) else math.nan
    out = []
    if math.isfinite(own) != math.isfinite(eff) or (math.isfinite(own) and not math.isclose(own, eff, rel_tol=1e-6)):
        out.append(f"efficiency {eff:.4g} is not its mean over its theoretical ({own:.4g})")
    comparison = "comparison" in names or bool(names & physics.LEGACY_COMPARISON_FLAGS)
    if is_twin(row) and not comparison:
        out.append("a comparison row (against another peak) not marked comparison")
    due = (math.isfinite(own) and own > physics.ABOVE_PEAK_RATIO and not comparison
           and row.get("metric") not in physics.NOT_ABOVE_METRICS)
    if "above_peak" in names and not due:
        why = "a comparison row" if comparison else f"rule: above {physics.ABOVE_PEAK_RATIO}"
        out.append(f"above_peak at efficiency {own:.3f} ({why})")
    if due and "above_peak" not in names:
        out.append(f"no above_peak at efficiency {own:.3f} (rule: above {physics.ABOVE_PEAK_RATIO})")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--as-recorded", action="store_true", help="judge the flags as written, not as refreshed")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    failed = judged = changed = 0
    for path in files(args.paths):
        for r in rows_of(path):
            judged += 1
            changed += physics.refreshed_flags(r) != (r.get("flags") or "")
            for p in problems(r, args.as_recorded):
                failed += 1
                print(f"FAIL: {path}: {r['suite']} {r['test']} {r['variant']} {r['threads']} threads: {p}")
    if not judged:
        print("SKIP: no result rows found")
        return 77
    print(f"{judged} row(s) judged, {failed} failure(s); the rule changes the recorded flags of {changed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
