#!/usr/bin/env python3
"""Run a benchmark on this machine (tiny sizes) and fail if any row beats its own
theoretical peak by more than 5%, or any cpubench kernel (the probe's own loop) lacks a
well-formed vs_probe flag while the probe ran.

A physics bound, not a timing threshold: once the peaks are right, no correct
measurement on any CPU exceeds them, and a row above its peak means a wrong peak
(a micro-architecture count too low, a clock read too low). The 5% covers the clock
being measured a few milliseconds apart from the rate.

Usage: check_below_peak.py [--expect-context KEY=VALUE]... -- BINARY [ARGS...]
Exit 0 held, 1 a row above the bound, 77 nothing could be judged (every row contended, or
the binary ran translated by qemu: CI's runs as another CPU, tests/machines/emulate.sh).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BOUND = 1.05


def flags_of(row: dict) -> list[str]:
    return (row.get("flags") or "").split(";")


def disturbed(row: dict) -> bool:
    """Another process or the hypervisor took part of the CPU during the repetitions."""
    return any(f in ("contended", "steal") for f in flags_of(row))


def check_vs_probe(rows: list[dict], ctx: dict) -> list[str]:
    """When the probe ran, every cpubench kernel with a class says how far it is from the
    probe's loop for that class (vs_probe=F, a positive finite number).

    F itself is not bounded here: kernel and probe are two timings a few milliseconds
    apart on a shared core (the same loop, test_kernel_is_probe_loop), so F above 1 is
    that moment's noise, not physics. The physics bound is the row's efficiency against
    the corrected peak, checked in main()."""
    probed = str(ctx.get("peak.probe", "not run")) != "not run"
    bad = []
    for r in rows:
        if r.get("test") not in ("flops", "iops") or r.get("suite") != "cpu":
            continue
        if any(f.startswith("unsupported") for f in flags_of(r)):
            continue  # a kernel this CPU cannot run: a row with its reason, nothing measured
        vs = [f.split("=", 1)[1] for f in flags_of(r) if f.startswith("vs_probe=")]
        name = f"{r['test']} {r['variant']} {r['threads']} threads"
        if not vs:
            # no class: vpmullq and the 64-bit lane multiplies, the AMX tiles
            # (peak_uarch_probe.h), and aarch64's BF16/INT8 forms (docs/arm64.md)
            if probed and not re.search(r"_i64_mul$|^amx_|^neon_(bf16|int8)_", r["variant"]):
                bad.append(f"FAIL: {name} carries no vs_probe flag (flags {r.get('flags')})")
            continue
        try:
            value = float(vs[0])
        except ValueError:
            value = float("nan")
        if not (0 < value < float("inf")):
            bad.append(f"FAIL: {name} has vs_probe={vs[0]}, not a positive number")
    for line in bad:
        print(line)
    return bad


def main(argv: list[str]) -> int:
    if "--" not in argv:
        print("usage: check_below_peak.py [--expect-context KEY=VALUE]... -- BINARY [ARGS...]",
              file=sys.stderr)
        return 2
    sep = argv.index("--")
    opts, cmd = argv[:sep], argv[sep + 1:]
    expect = [o.split("=", 1) for o in opts[1::2]] if opts else []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        run = subprocess.run(cmd + ["--format", "json", "--output", out],
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            print(f"FAIL: {' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()}")
            return 1
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    ctx = doc["context"]
    for key, value in expect:
        if str(ctx.get(key)) != value:
            print(f"FAIL: context {key} is {ctx.get(key)!r}, expected {value!r}")
            return 1
    # Translated (qemu TCG reports itself in cpuid): rates and clocks are the translator's,
    # not a CPU's, so a row against its peak says nothing either way.
    if ctx.get("hypervisor") == "qemu-tcg":
        print(f"SKIP: {os.path.basename(cmd[0])} ran translated by qemu (hypervisor qemu-tcg): "
              "its rates and clocks are the translator's, not a CPU's: nothing to judge")
        return 77
    rows = doc["results"]
    with_peak = [r for r in rows if r.get("efficiency") is not None]
    # Another process on our CPU during the repetitions ("contended": under 97% of the
    # CPU, or "steal": the hypervisor's): the clock read after them may come out low, so
    # the row says nothing about the peak. Tests run in parallel, so such rows are
    # expected; they are counted.
    shared = [r for r in with_peak if disturbed(r)]
    with_peak = [r for r in with_peak if r not in shared]
    bad = [r for r in with_peak if r["efficiency"] > BOUND]
    bad_probe = check_vs_probe(rows, ctx)
    if bad_probe:
        return 1
    for r in bad:
        print(f"FAIL: {r['test']} {r['variant']} {r['threads']} threads: {r['mean']:.4g} "
              f"{r['unit']} is {r['efficiency']:.3f} of its peak {r['theoretical']:.4g} "
              f"(flags {r.get('flags')}); uarch {ctx.get('peak.uarch')} "
              f"({ctx.get('peak.uarch_source')}): {ctx.get('peak.uarch_note', '')}")
    if bad:
        return 1
    if shared and not with_peak:
        print(f"SKIP: all {len(shared)} rows with a peak ran contended (the machine was shared): "
              "nothing to judge")
        return 77
    print(f"ok: {len(rows)} rows, {len(with_peak)} with a peak, none above {BOUND} of its peak; "
          f"{len(shared)} contended or steal rows not judged "
          f"(uarch {ctx.get('peak.uarch')}, {ctx.get('peak.uarch_source')})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
