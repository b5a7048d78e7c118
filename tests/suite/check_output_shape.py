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
A binary that is not built (an optional feature) is skipped with the reason. The fixture was
recorded on one CPU (its ISAs and CPU count are raw/peakinfo.json's cpu.isa and cpu.allowed), so
what only some CPUs produce is compared only on a CPU like it: a row or context key that names a
SIMD ISA (dgesv_vs_avx2, linpack.t2.ghz_avx512) only where the binary reports the recorded
ISAs, and peakinfo, cpubench and membench, whose rows all name the machine's ISAs and CPUs, only
there with the recorded CPU count. Everything else is compared on every CPU.
With TINY (the shared `run_all.sh --tiny` run, ctest fixture suite_tiny), a binary's output is
read from there when the tiny run gave it the recorded command (SAME_SHAPE_OPTS and
SAME_SHAPE_BESIDE aside: they change how long a point runs, not what it writes) and its
rows do not follow the cache sizes the run handed down (CACHE_SIZED), instead of running it
again (issue 42).
Usage: check_output_shape.py REPO BUILD [TINY]   (exit 0 ok, 1 a difference, 77 nothing compared)"""
import json
import os
import re
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
                "steal_pct", "cpu_share_pct",               # the share beside steal, contended, preempted
                "bimodal", "no_peak", "clock_unknown",      # the moment, the peaks known here
                "ci_wide",                                  # how far its repetitions agreed
                "cached", "small_arrays", "level", "thp_partial",  # this machine's caches and pages
                "time_based", "iodepth_capped", "buffer_pages",   # this disk's speed, the hugetlb pool
                "udp_gso",                                  # this kernel's UDP segmentation offload
                "table_corrected", "vs_probe", "probe_short",  # this CPU's table entry against its probe
                "clock", "cause",                           # the chain its clock checks chose, what was measured below 0.95
                "clock_refused", "clock_corrected"}         # what this run's loads read against the anchor
# Options that set how long and how often a point is measured, never which rows and keys
# are written (their flags are MOMENT_FLAGS): a command is the recorded one without them.
SAME_SHAPE_OPTS = {"--reps", "--min-time", "--ci"}
# Options of that kind only beside another: netbench's --time beside --bytes sets how long
# its latency tests run (the throughput tests move --bytes), not what they write.
SAME_SHAPE_BESIDE = {"--time": "--bytes"}
# Binaries whose rows follow the cache sizes run_all.sh hands down (PEAKBENCH_CACHE_EFFECTIVE:
# membench sizes its STREAM arrays from the effective LLC, 5,592,320 bytes a row here from the
# reported 32 MiB, other sizes from the measured 4.9 MiB): the tiny run's output is not the
# recorded command's alone, so they are run here.
CACHE_SIZED = {"membench"}
# Binaries whose row order changed on purpose (name: why); none today.
ORDER_CHANGED = {}
# Binaries whose rows name this machine's ISAs, CPU count or interfaces: compared only on a
# machine like the recorded one (its ISAs, its CPU count); peakinfo's flags describe the
# machine (its micro-architecture, clock, interfaces) and are not compared.
MACHINE_BOUND = {"peakinfo", "cpu-cpubench", "memory-membench", "levels-L1", "levels-L2", "levels-L3",
                 "levels-DRAM"}
FLAGS_DESCRIBE_MACHINE = {"peakinfo"}
# A name part naming a SIMD ISA that not every x86-64 CPU has (SSE and SSE2 are the baseline):
# the row or key exists only on some CPUs (linpack's dgesv_vs_avx2 and linpack.t<N>.ghz_avx512
# only with AVX-512). Such names are compared only where the ISAs are the recorded ones.
ISA_PART = re.compile(r"avx[0-9a-z]*|sse3|ssse3|sse4[0-9a-z]*|amx[0-9a-z]*")


# Rows of an optional feature the recorded build had: compared when this build has the
# feature (some row of that variant in the new output), else skipped with the reason.
OPTIONAL_ROWS = {"disk-diskbench": ("uring", "this build has no io_uring engine (liburing)")}


# Rows renamed after the recording on purpose: (binary, recorded variant) -> (variant now, why).
# Compared under the new name, so a renamed row is neither "gone" nor "new" but keeps its
# place, keys and flags.
RENAMED = {("cpu-cpubench", f"avx512_i{w}_mulmix"): (f"avx512_i{w}_mul",
                                                     "b4cd47d: the pure multiply kernels replaced the "
                                                     "add+multiply mix (the probe's own loops)")
           for w in (32, 64)}


# Rows added after the recording on purpose: (binary, test) -> why. Set aside in the new
# output (they are checked by their own tests), so they are not "new"; a recorded row is
# never among them.
ADDED_ROWS = {("peakinfo", "format_peak"): "issue 37: the peak of every number format "
                                           "(tests/cpu: peakinfo_formats_*)"}


# Flags added after the recording on purpose (name: why): not compared.
ADDED_FLAGS = {"comparison": "issue 34: linpack's dgesv_vs_avx2 says it is a comparison row"}


def flag_names(row: dict) -> set:
    return {f.split("=", 1)[0] for f in (row.get("flags") or "").split(";") if f} - MOMENT_FLAGS - set(ADDED_FLAGS)


def cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("flags"):
                    return set(ln.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def names_isa(text) -> bool:
    """Whether a row field or context key names an ISA only some x86-64 CPUs have."""
    return any(ISA_PART.fullmatch(p) for p in re.split(r"[._\-]", str(text).lower()))


def recorded_machine(fx: str) -> tuple:
    """(ISAs, allowed CPUs) of the CPU the fixture was recorded on: its peakinfo's context."""
    with open(os.path.join(fx, "raw", "peakinfo.json")) as f:
        ctx = json.load(f)["context"]
    return set(str(ctx["cpu.isa"]).split()), int(ctx["cpu.allowed"])


def compare(name: str, old: dict, new: dict, same_isa: bool = True) -> tuple:
    """(differences, one line each; rows compared; what was set aside and why) between the
    recorded and the new output of one binary. same_isa: this CPU has exactly the recorded
    one's ISAs; if not, rows and context keys that name an ISA are set aside on both sides."""
    errs, aside_notes = [], []
    orows, nrows = old.get("results", []), trim_rows(name, new.get("results", []))
    orows = [dict(r, variant=RENAMED[(name, r["variant"])][0]) if (name, r["variant"]) in RENAMED else r
             for r in orows]
    added = [r for r in nrows if (name, r["test"]) in ADDED_ROWS]
    if added:
        aside_notes.append(f"{len(added)} row(s) added since the recording: "
                           + "; ".join(sorted({ADDED_ROWS[(name, r['test'])] for r in added})))
        nrows = [r for r in nrows if r not in added]
    prefix, why = OPTIONAL_ROWS.get(name, (None, ""))
    if prefix and not any(str(r["variant"]).startswith(prefix) for r in nrows):
        aside_notes.append(f"its {prefix}* rows: {why}")
        orows = [r for r in orows if not str(r["variant"]).startswith(prefix)]
    okeys = set(old.get("context", {}))
    if not same_isa:
        aside = [r for r in orows if any(names_isa(r[k]) for k in KEY)]
        keys_aside = sorted(k for k in okeys if names_isa(k))
        if aside or keys_aside:
            named = [str(r["variant"]) for r in aside] + keys_aside
            aside_notes.append(f"{len(aside)} row(s) and {len(keys_aside)} context key(s) that name ISAs "
                               f"({', '.join(named[:6])}{', ...' if len(named) > 6 else ''}): this CPU's ISAs "
                               "are not the recorded ones")
        orows = [r for r in orows if r not in aside]
        nrows = [r for r in nrows if not any(names_isa(r[k]) for k in KEY)]
        okeys -= set(keys_aside)
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
    missing = sorted(okeys - set(new.get("context", {})))
    if missing:
        errs.append(f"context keys gone: {', '.join(missing)}")
    return errs, len(orows), aside_notes


def self_check() -> list:
    """compare() must see each kind of difference: a check that cannot fail checks nothing."""
    row = dict(zip(KEY, ("disk", "seq_read", "psync", 1, 4096, "throughput", "MB/s")), flags="time_based;unverified")
    other = dict(row, test="seq_write")
    old = {"results": [row, other], "context": {"disk.engine": "psync"}}
    cases = {"a row gone": {"results": [row], "context": old["context"]},
             "another order": {"results": [other, row], "context": old["context"]},
             "a flag gone": {"results": [dict(row, flags="time_based"), other], "context": old["context"]},
             "a context key gone": {"results": [row, other], "context": {}}}
    # On a CPU unlike the recorded one, what names no ISA is still compared.
    bad = [what for what, new in cases.items() if not compare("x-self", old, new, same_isa=False)[0]]
    if compare("x-self", old, {"results": [dict(row, flags="steal"), other], "context": old["context"]})[0] != \
            [f"row {tuple(row[k] for k in KEY)}: flags ['unverified'] became []"]:
        bad.append("moment flags ignored, others compared")
    # An ISA-named row or key: compared on a CPU with the recorded ISAs, set aside elsewhere.
    twin = dict(row, suite="cpu", test="linpack", variant="dgesv_vs_avx2")
    wide = {"results": [row, twin], "context": {"linpack.t2.ghz_avx512": 3.7, "linpack.n": 200}}
    narrow = {"results": [row], "context": {"linpack.n": 200}}
    if len(compare("x-self", wide, narrow, same_isa=True)[0]) != 2:
        bad.append("an ISA-named row and key gone on a CPU like the recorded one")
    if compare("x-self", wide, narrow, same_isa=False)[0]:
        bad.append("ISA-named rows and keys set aside on another CPU")
    if not compare("x-self", wide, {"results": [twin], "context": {}}, same_isa=False)[0]:
        bad.append("a row and a key that name no ISA gone on another CPU")
    # A renamed row is compared under its new name: neither gone nor new, its flags compared.
    mulmix = dict(row, suite="cpu", test="iops", variant="avx512_i32_mulmix", flags="unverified")
    renamed = {"results": [dict(mulmix, variant="avx512_i32_mul")], "context": {}}
    if compare("cpu-cpubench", {"results": [mulmix], "context": {}}, renamed)[0]:
        bad.append("a renamed row under its new name")
    if not compare("cpu-cpubench", {"results": [mulmix], "context": {}},
                   {"results": [dict(mulmix, variant="avx512_i32_mul", flags="")], "context": {}})[0]:
        bad.append("a renamed row's flags")
    # A row kind added on purpose is set aside; another new row in the same binary is not.
    fmt = dict(row, suite="cpu", test="format_peak", variant="avx512_bf16_dot")
    if compare("peakinfo", {"results": [row], "context": {}}, {"results": [row, fmt], "context": {}})[0]:
        bad.append("an added row kind set aside")
    if not compare("peakinfo", {"results": [row], "context": {}},
                   {"results": [row, fmt, dict(row, test="other")], "context": {}})[0]:
        bad.append("a new row beside an added kind")
    # A tiny run's output stands for the recorded command's only when nothing but how long
    # and how often differs.
    rec = ["netbench", "loopback", "--test", "all", "--reps", "3", "--min-time", "0.05"]
    if shape_args(rec, "D") != shape_args(rec[:4] + ["--reps", "1", "--ci", "0"], "D"):
        bad.append("a command that differs in --reps, --min-time, --ci only")
    if shape_args(rec, "D") == shape_args(["netbench", "loopback", "--test", "tcp_latency", "--reps", "3"], "D"):
        bad.append("a command that runs other tests")
    nb = ["netbench", "loopback", "--test", "all", "--bytes", "1MiB"]
    if shape_args(nb, "D") != shape_args(nb + ["--time", "0.05"], "D"):
        bad.append("netbench's --time beside --bytes (how long its latency tests run)")
    if shape_args(nb, "D") == shape_args(nb[:4] + ["--time", "0.05"], "D"):
        bad.append("netbench's --time instead of --bytes (time-bound throughput)")
    return bad


def shape_args(argv_: list, scratch: str) -> list:
    """A command's arguments as far as they set the output's shape: without SAME_SHAPE_OPTS
    and their values, a folder's path (the run's own disk-tmp) replaced by one word."""
    out, skip = [], False
    for a in argv_:
        if skip:
            skip = False
        elif a in SAME_SHAPE_OPTS or SAME_SHAPE_BESIDE.get(a) in argv_:
            skip = True
        else:
            out.append(scratch if a.endswith("/disk-tmp") else a)
    return out


def tiny_outputs(tiny: str) -> dict:
    """name -> (shape arguments, raw JSON path) of each step of the shared tiny run."""
    out = {}
    try:
        with open(os.path.join(tiny, "commands.txt")) as f:
            for ln in f:
                if ln.startswith("#") or ":" not in ln:
                    continue
                name, cmd = ln.rstrip("\n").split(":", 1)
                out[name] = (shape_args(shlex.split(cmd), "DIR"), os.path.join(tiny, "raw", name + ".json"))
    except (OSError, ValueError):
        pass
    return out


def run_binary(binary: str, argv_: list) -> tuple:
    """(exit status, stderr, the output's JSON or None): one repetition of a recorded command."""
    with tempfile.TemporaryDirectory() as d:
        args = [binary] + [a.replace("/tmp/res-oldb/disk-tmp", d) for a in argv_[1:]]
        if "--reps" in args:
            args[args.index("--reps") + 1] = "1"
        if argv_[0] != "peakinfo" and "--ci" not in args:
            args += ["--ci", "0"]  # one repetition, not repeated to a 2% interval
        out = os.path.join(d, "out.json")
        r = subprocess.run(args + ["--format", "json", "--output", out], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            return r.returncode, r.stderr, None
        with open(out) as f:
            return 0, r.stderr, json.load(f)


def main(argv: list) -> int:
    if len(argv) not in (3, 4):
        print("usage: check_output_shape.py REPO BUILD [TINY]", file=sys.stderr)
        return 2
    repo, build = argv[1], argv[2]
    tiny = tiny_outputs(argv[3]) if len(argv) == 4 else {}
    blind = self_check()
    if blind:
        print(f"FAIL the comparison does not see: {', '.join(blind)}")
        return 1
    fx = os.path.join(repo, "tests", "fixtures", "results", "tiny")
    rec_isa, rec_cpus = recorded_machine(fx)
    # Only a CPU with at least the recorded ISAs and its CPU count can be like it; each
    # binary's own cpu.isa then says whether its ISAs are exactly the recorded ones.
    may_be_like = rec_isa <= cpu_flags() and len(os.sched_getaffinity(0)) == rec_cpus
    unlike = (f"its rows name the machine's ISAs and CPUs; the recorded run had {rec_cpus} CPUs with "
              f"{' '.join(sorted(rec_isa))}, this one has not")
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
        if name in MACHINE_BOUND and not may_be_like:
            print(f"skip {name}: {unlike}")
            continue
        shared, source = tiny.get(name), "run here"
        new = None
        if shared and shared[0] == shape_args(argv_, "DIR") and argv_[0] not in CACHE_SIZED:
            try:
                with open(shared[1]) as f:
                    new, source = json.load(f), "the shared tiny run's"
            except (OSError, ValueError):
                new = None  # that step wrote nothing whole: run it here
        if new is None:
            rc, err, new = run_binary(binary, argv_)
            if rc == 3:
                print(f"skip {name}: not supported here: {err.strip().splitlines()[-1:]}")
                continue
            if rc != 0:
                print(f"FAIL {name}: exit {rc}: {err.strip()[-300:]}")
                failed += 1
                continue
        with open(recorded) as f:
            old = json.load(f)
        isa = new.get("context", {}).get("cpu.isa")
        same_isa = set(str(isa).split()) == rec_isa if isa else rec_isa <= cpu_flags()
        if name in MACHINE_BOUND and not same_isa:
            print(f"skip {name}: {unlike}")
            continue
        compared += 1
        errs, nrows, aside = compare(name, old, new, same_isa)
        for a in aside:
            print(f"skip {name}: {a}")
        for e in errs:
            print(f"FAIL {name}: {e}")
        failed += bool(errs)
        if not errs:
            print(f"ok {name} ({source}): {nrows} rows, same keys, flags and context keys")
    if failed:
        return 1
    return 0 if compared else 77


if __name__ == "__main__":
    sys.exit(main(sys.argv))
