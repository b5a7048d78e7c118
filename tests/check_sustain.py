#!/usr/bin/env python3
"""Check a --sustain run's JSON (netbench or diskbench) against the rates a test set: the
rows of TEST, "burst" then "baseline" with their levels (each row's median, in its unit)
within TOL of the configured rates and the knee within KNEE_TOL seconds of where the bucket
says it is; or, with --no-knee, one "baseline" row at --baseline and no knee.
Usage: check_sustain.py FILE TEST [--burst R] --baseline R [--knee S] [--no-knee]
       [--tol 0.10] [--knee-tol 2]
Exit 0 when it holds, 1 with the reason on stderr."""
import argparse
import json
import sys


def flag(flags: str, key: str):
    for item in flags.split(";"):
        if item.startswith(key + "="):
            return float(item.split("=", 1)[1])
    return None


def check(a) -> str:
    with open(a.file, encoding="utf-8") as f:
        doc = json.load(f)
    rows = [r for r in doc["results"] if r["test"] == a.test]
    got = [r["variant"] for r in rows]
    want = ["baseline"] if a.no_knee else ["burst", "baseline"]
    if got != want:
        return f"rows of {a.test}: {got}, expected {want}: {[r['flags'] for r in rows]}"
    series = [v for r in rows for v in r["samples"]]
    levels = {"burst": a.burst, "baseline": a.baseline}
    for r in rows:
        level, want_level = r["median"], levels[r["variant"]]
        if abs(level - want_level) > a.tol * want_level:
            return (f"{r['variant']} level {level:.4g} {r['unit']}, configured {want_level:.4g}"
                    f" (more than {a.tol:.0%} off); series {series}")
        if flag(r["flags"], "sustain_s") is None or flag(r["flags"], "level_s") != len(r["samples"]):
            return f"{r['variant']}: flags {r['flags']} do not say its seconds"
    if a.no_knee:
        if "no_knee" not in rows[0]["flags"].split(";"):
            return f"a flat run without the no_knee flag: {rows[0]['flags']}"
        print(f"measured: baseline {rows[0]['median']:.4g} {rows[0]['unit']}")
        return ""
    knee = flag(rows[0]["flags"], "knee_s")
    if knee is None or abs(knee - a.knee) > a.knee_tol:
        return f"knee at {knee} s, expected {a.knee:.2f} +- {a.knee_tol} s; series {series}"
    print(f"measured: burst {rows[0]['median']:.4g}, baseline {rows[1]['median']:.4g} {rows[0]['unit']}, "
          f"knee at {knee} s")
    return ""


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("test")
    p.add_argument("--burst", type=float)
    p.add_argument("--baseline", type=float, required=True)
    p.add_argument("--knee", type=float)
    p.add_argument("--no-knee", action="store_true")
    p.add_argument("--tol", type=float, default=0.10)
    p.add_argument("--knee-tol", type=float, default=2.0)
    a = p.parse_args()
    if not a.no_knee and (a.burst is None or a.knee is None):
        p.error("--burst and --knee, or --no-knee")
    why = check(a)
    if why:
        print(f"FAIL: {why}", file=sys.stderr)
        return 1
    print(f"ok: {a.test}: " + ("one baseline, no knee" if a.no_knee else
                               f"burst {a.burst}, baseline {a.baseline}, knee near {a.knee:.2f} s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
