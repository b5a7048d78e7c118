#!/usr/bin/env python3
"""The binaries' output against a recorded run (issue 14: "the output of every binary stays
what it is today, checked with a test over recorded results").

tests/fixtures/results/tiny/commands.txt holds the commands a tiny run_all.sh gave every
binary at commit e4daef8, before the harness, and raw/<name>.json what each wrote (trimmed by
mkfix.py). This runs the same commands with the binaries of BUILD (one repetition: the shape
does not depend on it), trims their output the same way, and checks, per binary:
- the rows: the same keys (suite, test, variant, threads, block, metric, unit), in the same
  order (ORDER_CHANGED would list a binary whose order changed on purpose, and why);
- the flags of each row by name, except those that depend on the machine or the moment
  (MOMENT_FLAGS);
- the context: every key the recorded run had is still there.
A binary that is not built (an optional feature) is skipped with the reason; the ISA-named
rows of peakinfo, cpubench and membench are compared only on a machine like the recorded one.
Usage: check_output_shape.py REPO BUILD   (exit 0 ok, 1 a difference, 77 nothing compared)"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "results"))
from trim import trim_rows  # noqa: E402  (the fixture's own trimming: one definition)

KEY = ("suite", "test", "variant", "threads", "block_bytes", "metric", "unit")
BIN_DIR = {"cpubench": "cpu", "linpack": "cpu", "membench": "memory", "diskbench": "disk",
           "netbench": "network", "dpdkbench": "dpdk", "peakinfo": "peakinfo"}
# Flags set by what the machine is (its caches, peaks, kernel, speed) or was doing while it
# ran, not by the binary's code: not compared.
MOMENT_FLAGS = {"steal", "contended", "oversubscribed", "unpinned", "preempted", "above_peak", "zero",
                "bimodal", "no_peak", "clock_unknown",      # the moment, the peaks known here
                "cached", "small_arrays", "level", "thp_partial",  # this machine's caches and pages
                "time_based", "iodepth_capped", "buffer_pages",   # this disk's speed, the hugetlb pool
                "udp_gso"}                                  # this kernel's UDP segmentation offload
# Binaries whose row order changed on purpose (name: why); none today.
ORDER_CHANGED = {}
# Binaries whose rows name this machine's ISAs, CPU count or interfaces: compared only on a
# machine like the recorded one (2 CPUs with AVX-512); peakinfo's flags describe the machine
# (its micro-architecture, clock, interfaces) and are not compared.
MACHINE_BOUND = {"peakinfo", "cpu-cpubench", "memory-membench", "levels-L1", "levels-L2", "levels-L3",
                 "levels-DRAM"}
FLAGS_DESCRIBE_MACHINE = {"peakinfo"}
RECORDED_CPUS = 2


# Rows of an optional feature the recorded build had: compared when this build has the
# feature (some row of that variant in the new output), else skipped with the reason.
OPTIONAL_ROWS = {"disk-diskbench": ("uring", "this build has no io_uring engine (liburing)")}


def flag_names(row: dict) -> set:
    return {f.split("=", 1)[0] for f in (row.get("flags") or "").split(";") if f} - MOMENT_FLAGS


def cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("flags"):
                    return set(ln.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def compare(name: str, old: dict, new: dict) -> list:
    """Differences between the recorded and the new output of one binary, one line each."""
    errs = []
    orows, nrows = old.get("results", []), trim_rows(name, new.get("results", []))
    prefix, why = OPTIONAL_ROWS.get(name, (None, ""))
    if prefix and not any(str(r["variant"]).startswith(prefix) for r in nrows):
        print(f"skip {name}: its {prefix}* rows: {why}")
        orows = [r for r in orows if not str(r["variant"]).startswith(prefix)]
    ok = [tuple(r[k] for k in KEY) for r in orows]
    nk = [tuple(r[k] for k in KEY) for r in nrows]
    for k in ok:
        if k not in nk:
            errs.append(f"row {k} is gone")
    for k in nk:
        if k not in ok:
            errs.append(f"row {k} is new")
    same = [k for k in nk if k in ok]
    if name not in ORDER_CHANGED and same != [k for k in ok if k in nk]:
        errs.append("rows come in another order")
    if name in ORDER_CHANGED and sorted(same) != sorted(k for k in ok if k in nk):
        errs.append("rows differ beyond the documented order change")
    nflags = {tuple(r[k] for k in KEY): flag_names(r) for r in nrows}
    for r in orows if name not in FLAGS_DESCRIBE_MACHINE else ():
        k = tuple(r[k] for k in KEY)
        if k in nflags and flag_names(r) != nflags[k]:
            errs.append(f"row {k}: flags {sorted(flag_names(r))} became {sorted(nflags[k])}")
    missing = sorted(set(old.get("context", {})) - set(new.get("context", {})))
    if missing:
        errs.append(f"context keys gone: {', '.join(missing)}")
    return errs, len(orows)


def self_check() -> list:
    """compare() must see each kind of difference: a check that cannot fail checks nothing."""
    row = dict(zip(KEY, ("disk", "seq_read", "psync", 1, 4096, "throughput", "MB/s")), flags="time_based;unverified")
    other = dict(row, test="seq_write")
    old = {"results": [row, other], "context": {"disk.engine": "psync"}}
    cases = {"a row gone": {"results": [row], "context": old["context"]},
             "another order": {"results": [other, row], "context": old["context"]},
             "a flag gone": {"results": [dict(row, flags="time_based"), other], "context": old["context"]},
             "a context key gone": {"results": [row, other], "context": {}}}
    bad = [what for what, new in cases.items() if not compare("x-self", old, new)[0]]
    if compare("x-self", old, {"results": [dict(row, flags="steal"), other], "context": old["context"]})[0] != \
            [f"row {tuple(row[k] for k in KEY)}: flags ['unverified'] became []"]:
        bad.append("moment flags ignored, others compared")
    return bad


def main(argv: list) -> int:
    if len(argv) != 3:
        print("usage: check_output_shape.py REPO BUILD", file=sys.stderr)
        return 2
    repo, build = argv[1], argv[2]
    blind = self_check()
    if blind:
        print(f"FAIL the comparison does not see: {', '.join(blind)}")
        return 1
    fx = os.path.join(repo, "tests", "fixtures", "results", "tiny")
    like_recorded = "avx512f" in cpu_flags() and len(os.sched_getaffinity(0)) == RECORDED_CPUS
    failed = compared = 0
    with open(os.path.join(fx, "commands.txt")) as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")]
    for ln in lines:
        name, cmd = ln.split(":", 1)
        argv_ = shlex.split(cmd)
        recorded = os.path.join(fx, "raw", name + ".json")
        if argv_[0] not in BIN_DIR or not os.path.exists(recorded) or name == "placement":
            continue
        binary = os.path.join(build, BIN_DIR[argv_[0]], argv_[0])
        if not os.access(binary, os.X_OK):
            print(f"skip {name}: {argv_[0]} is not built here (an optional feature)")
            continue
        if name in MACHINE_BOUND and not like_recorded:
            print(f"skip {name}: its rows name the machine's ISAs and CPUs; the recorded run had "
                  f"{RECORDED_CPUS} CPUs with AVX-512, this one has not")
            continue
        with tempfile.TemporaryDirectory() as d:
            args = [binary] + [a.replace("/tmp/res-oldb/disk-tmp", d) for a in argv_[1:]]
            if "--reps" in args:
                args[args.index("--reps") + 1] = "1"
            out = os.path.join(d, "out.json")
            r = subprocess.run(args + ["--format", "json", "--output", out], capture_output=True, text=True,
                               timeout=300)
            if r.returncode == 3:
                print(f"skip {name}: not supported here: {r.stderr.strip().splitlines()[-1:]}")
                continue
            if r.returncode != 0:
                print(f"FAIL {name}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
                failed += 1
                continue
            with open(out) as f:
                new = json.load(f)
        with open(recorded) as f:
            old = json.load(f)
        compared += 1
        errs, nrows = compare(name, old, new)
        for e in errs:
            print(f"FAIL {name}: {e}")
        failed += bool(errs)
        if not errs:
            print(f"ok {name}: {nrows} rows, same keys, flags and context keys")
    if failed:
        return 1
    return 0 if compared else 77


if __name__ == "__main__":
    sys.exit(main(sys.argv))
