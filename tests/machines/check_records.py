#!/usr/bin/env python3
"""Replay the records of real machines through the code as it is now
(docs/machines/README.md): tests that hold on CPUs other than the tester's.

  check_records.py lookup --peakinfo BIN --schema-check BIN [--superseded TSV] DIR...
      For every record, `peakinfo --root RECORD/root` (JSON and CSV) passes the schema
      check and finds what the record's peakinfo.json shows: the CPU's identity and ISA,
      peak.uarch and its source, the FMA units, the cores, and each ISA's ops per cycle.
      TSV (superseded.tsv) names the recorded values now known wrong, or keys the record
      predates, with the value the lookup must find instead and why.
  check_records.py below-peak --kernel-peaks BIN [--floor-1t REC=F]... DIR...
      For every record, no cpubench row (RECORD/cpubench*.json, and held-cpubench*.json:
      rows recorded by code this replay corrects) is above its theoretical peak
      recomputed with the current table: cores used x the row's clock x the kernel's ops
      per cycle as cpubench computes them today (kernel_peaks, which runs cpubench's code
      on the record's /proc and /sys). The row's clock is its frequency row, put through
      today's refusal rule (peak_freq_load.h): a vector class's reading under
      clock_floor of the record's anchor (cpu.clock_ghz.scalar, else cpu.ghz.imul) with no
      heavy 512-bit load's clock below the anchor is refused, and the anchor stands, as cpubench
      now does. --floor-1t REC=F: every undisturbed 1-thread row of that record is at
      least F of its peak, or carries a cause measured in its run (cause=..., probe_short).

  check_records.py probe-check --peakinfo BIN [--expect REC:UARCH:TEXT]... DIR...
      For every record with probe runs (RECORD/peakinfo-measured-*.json), those runs
      replayed as the probe's passes (PEAKBENCH_TEST_PROBE_PASSES) against the record's own
      table entry correct nothing: the table is right for every recorded CPU. --expect
      also replays them against another entry (cpu.uarch=UARCH) and wants TEXT in
      peak.table_corrected: the correction a user sees on that machine.

  check_records.py identity --peakinfo BIN --expect REC:VERDICT:UARCH[:TEXT]... DIR...
      For each record named in an --expect, `peakinfo --root RECORD/root` gives
      cpu.identity VERDICT, peak.uarch UARCH and every TEXT (";"-separated) in
      cpu.identity_note; for every record, a masked model's entry is never the one used.

DIR is a folder whose subfolders are records (each one is a record); they are found when
the test runs. A DIR that does not exist is said and skipped. Exit 0 every record held,
1 one did not, 77 nothing to judge (no record found, or none that could be judged), 2 usage.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

# A row above BOUND x its peak fails. Not a timing threshold but a physics bound, as in
# tests/cpu/check_below_peak.py: once the peaks are right no correct measurement exceeds
# them; the 5% covers the clock being measured a few milliseconds apart from the rate.
BOUND = 1.05

# Kernels a record may hold that cpubench no longer has, judged through the kernel that
# replaced them: (suffix of the old variant, suffix of the new one, ops per cycle of the
# old per ops per cycle of the new). The multiply mix (`x = x*a + b`: one multiply, one
# add, 2 ops a step) was bounded by the multiplier, 2 ops per multiply: twice the pure
# multiply kernel's rate (`x = x*a`, 1 op a step) on the same ISA and lanes.
RETIRED = (("_mulmix", "_mul", 2.0),)

# What a record's peakinfo.json says that a replay from its /proc and /sys must find again
# (cpu.isa: every ISA the record lists; a later peakinfo may list more kinds).
LOOKUP_KEYS = ("cpu.vendor", "cpu.family", "cpu.model_number", "cpu.stepping",
               "peak.uarch", "peak.uarch_source", "peak.fma_units", "peak.fma512_units",
               "peak.cores")


class Tally:
    """What one check found over every record: failures, records judged and not."""

    def __init__(self) -> None:
        self.failed = 0
        self.judged = 0
        self.skipped = 0

    def fail(self, msg: str) -> None:
        print(f"FAIL: {msg}")
        self.failed += 1

    def skip(self, msg: str) -> None:
        print(f"SKIP: {msg}")
        self.skipped += 1

    def exit_code(self, what: str) -> int:
        if self.failed:
            print(f"{self.failed} failure(s)")
            return 1
        if not self.judged:
            print(f"SKIP: nothing to judge: no record {what}")
            return 77
        print(f"ok: {self.judged} record(s) held ({self.skipped} not judged)")
        return 0


def records(dirs: list[str]) -> list[str]:
    found = []
    for d in dirs:
        if not os.path.isdir(d):
            print(f"note: {d} absent: no records from there")
            continue
        subs = sorted(e.path for e in os.scandir(d) if e.is_dir())
        print(f"note: {len(subs)} record(s) in {d}")
        found += subs
    return found


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def per_cycle_by_isa(doc: dict) -> dict[str, str | None]:
    """Each CPU peak row's ops per cycle (its per_cycle= flag; None when it has none)."""
    out = {}
    for r in doc.get("results", []):
        if r.get("test") != "peak" or r.get("metric") not in ("flops", "iops_int"):
            continue
        flags = (r.get("flags") or "").split(";")
        vals = [f.split("=", 1)[1] for f in flags if f.startswith("per_cycle=")]
        out[r["variant"]] = vals[0] if vals else None
    return out


def run_peakinfo(args: argparse.Namespace, root: str, fmt: str, out: str) -> str | None:
    """Run peakinfo --root in one format and schema-check it; the problem, or None."""
    cmd = [args.peakinfo, "--root", root, "--format", fmt, "--output", out]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return f"{' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()}"
    check = subprocess.run([args.schema_check, fmt, out], capture_output=True, text=True,
                           check=False)
    if check.returncode != 0:
        return f"peakinfo --root {root}: {fmt} output fails the schema: {check.stdout.strip()}"
    return None


def load_superseded(path: str | None) -> dict[str, list[tuple[str, str, str, str]]]:
    """superseded.tsv by record: (key, recorded value or "-", value now, why)."""
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    if not path:
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) != 5 or not all(cols):
                raise SystemExit(f"{path}:{n}: want 5 tab-separated fields, got {len(cols)}")
            out.setdefault(cols[0], []).append((cols[1], cols[2], cols[3], cols[4]))
    return out


def apply_superseded(name: str, wctx: dict, gctx: dict, lines: list[tuple[str, str, str, str]],
                     t: Tally) -> set[str] | None:
    """The keys superseded for this record, each checked: the record still says the
    recorded value and the lookup finds the value now. None when one fails."""
    keys = set()
    for key, recorded, now, why in lines:
        had = "-" if key not in wctx else str(wctx[key])
        if had != recorded:
            t.fail(f"{name}: superseded.tsv says the record's {key} is {recorded!r}, it is "
                   f"{had!r}: a stale line")
            return None
        if str(gctx.get(key)) != now:
            t.fail(f"{name}: {key} {gctx.get(key)!r} now, superseded.tsv wants {now!r} ({why})")
            return None
        print(f"note: {name}: {key} {recorded!r} in the record superseded by {now!r}: {why}")
        keys.add(key)
    return keys


def lookup_one(args: argparse.Namespace, rec: str, t: Tally) -> None:
    name = os.path.basename(rec)
    root, want_path = os.path.join(rec, "root"), os.path.join(rec, "peakinfo.json")
    if not os.path.isdir(root) or not os.path.isfile(want_path):
        t.fail(f"{name}: not a complete record (needs root/ and peakinfo.json)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("csv", "json"):
            problem = run_peakinfo(args, root, fmt, os.path.join(tmp, f"out.{fmt}"))
            if problem:
                t.fail(f"{name}: {problem}")
                return
        got = load(os.path.join(tmp, "out.json"))
    want = load(want_path)
    wctx, gctx = want["context"], got["context"]
    if wctx.get("peak.uarch_source") == "measured" and gctx.get("peak.uarch_source") != "table":
        # The probe measured that CPU on the machine; under a fake root nothing is measured.
        t.skip(f"{name}: the record's micro-architecture was measured there and the table "
               f"still has no entry for it (now {gctx.get('peak.uarch')}, "
               f"{gctx.get('peak.uarch_source')}): no lookup to compare")
        return
    superseded = apply_superseded(name, wctx, gctx, args.superseded_lines.get(name, []), t)
    if superseded is None:
        return
    t.judged += 1
    diffs = [f"{k} {wctx.get(k)!r} in the record, {gctx.get(k)!r} now"
             for k in LOOKUP_KEYS if wctx.get(k) != gctx.get(k) and k not in superseded]
    lost = set(str(wctx.get("cpu.isa")).split()) - set(str(gctx.get("cpu.isa")).split())
    if lost:
        diffs.append(f"cpu.isa lacks {' '.join(sorted(lost))} (record: {wctx.get('cpu.isa')!r}, "
                     f"now {gctx.get('cpu.isa')!r})")
    wpc, gpc = per_cycle_by_isa(want), per_cycle_by_isa(got)
    diffs += [f"{isa} per_cycle {wpc.get(isa)} in the record, {gpc.get(isa)} now"
              for isa in sorted(set(wpc) | set(gpc)) if wpc.get(isa) != gpc.get(isa)]
    if diffs:
        corrected = wctx.get("peak.table_corrected")
        note = f" (the record's peak.table_corrected: {corrected})" if corrected else ""
        t.fail(f"{name}: the lookup from its /proc and /sys differs from its peakinfo.json"
               f"{note}: " + "; ".join(diffs))
        return
    print(f"ok: {name}: {gctx.get('cpu.vendor')} family {gctx.get('cpu.family')} model "
          f"{gctx.get('cpu.model_number')} -> {gctx.get('peak.uarch')} "
          f"({gctx.get('peak.uarch_source')}), fma {gctx.get('peak.fma_units')}/"
          f"{gctx.get('peak.fma512_units')}, {len(gpc)} ISA peaks as recorded, "
          "schema ok (csv, json)")


def kernel_peaks(binary: str, root: str) -> tuple[str, str, int, dict[str, float], tuple]:
    """uarch name and source, cores, each kernel's ops per cycle, and the clocks: each
    kernel's clock load and whether its lowering licenses others, with the refusal rule's
    floor."""
    run = subprocess.run([binary, root], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"{binary} {root} exited {run.returncode}: {run.stderr.strip()}")
    uarch, source, cores, per_cycle = "?", "?", 0, {}
    loads: dict[str, tuple[str, bool]] = {}
    floor = 0.0
    for line in run.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "uarch":
            uarch, source = f[1], f[2]
        elif f[0] == "cores":
            cores = int(f[1])
        elif f[0] == "kernel":
            per_cycle[f[1]] = float(f[2])
        elif f[0] == "clock":
            loads[f[1]] = (f[2], f[3] == "1")
        elif f[0] == "clock_floor":
            floor = float(f[1])
    return uarch, source, cores, per_cycle, (loads, floor)


def rec_value(text: str) -> tuple[str, float]:
    """REC=F of --floor-1t."""
    rec, _, value = text.partition("=")
    try:
        return rec, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': want RECORD=FRACTION") from None


def replayed_clock(variant: str, ghz: float, ctx: dict, clocks: tuple) -> tuple[float, str]:
    """The row's clock after today's refusal rule, and a note when it changed."""
    loads, floor = clocks
    load, _ = loads.get(variant, ("scalar", False))
    anchor = ctx.get("cpu.clock_ghz.scalar") or ctx.get("cpu.ghz.imul")
    if load == "scalar" or not isinstance(anchor, (int, float)) or anchor <= 0:
        return ghz, ""
    # A licence: another heavy 512-bit load's clock below the anchor (PEAK_FREQ_LOAD_TOL).
    licence = any(isinstance(v, (int, float)) and v < 1 - 0.03
                  for k, v in ctx.items() if k.startswith("cpu.clock_ratio.")
                  and k[len("cpu.clock_ratio."):] != load
                  and licenses(k[len("cpu.clock_ratio."):], loads))
    if ghz >= floor * anchor or licence:
        return ghz, ""
    return anchor, f"clock {ghz:.3g} refused ({ghz / anchor:.2f} of the anchor {anchor:.4g})"


def licenses(load: str, loads: dict[str, tuple[str, bool]]) -> bool:
    """Whether that load's lowered clock is a licence (kernel_peaks's clock lines)."""
    return any(name == load and lic for name, lic in loads.values())


def ops_per_cycle(variant: str, per_cycle: dict[str, float]) -> tuple[float | None, str]:
    """The kernel's ops per cycle now (None: no such kernel), and how it was found."""
    if variant in per_cycle:
        return per_cycle[variant], ""
    for old, new, factor in RETIRED:
        if variant.endswith(old):
            now = variant[: -len(old)] + new
            if now in per_cycle:
                return factor * per_cycle[now], f"{factor:g} x {now}'s"
    return None, ""


MEASURED_CAUSES = ("cause=", "probe_short")


def judge_rows(name: str, doc: dict, cores: int, per_cycle: dict[str, float], t: Tally,
               clocks: tuple, floor_1t: float | None) -> tuple[int, list[str], list[str]]:
    """Check one cpubench file's rate rows; returns rows judged, changed peaks, not judged."""
    rows = doc.get("results", [])
    ctx = doc.get("context", {})
    clock = {(r["variant"], r["threads"]): r.get("mean") for r in rows
             if r.get("test") == "frequency" and r.get("metric") == "frequency"}
    judged, changed, unjudged = 0, [], []
    for r in rows:
        if r.get("test") not in ("flops", "iops") or r.get("mean") is None:
            continue
        what = f"{r['test']} {r['variant']} {r['threads']} threads"
        ghz = clock.get((r["variant"], r["threads"]))
        opc, via = ops_per_cycle(r["variant"], per_cycle)
        disturbed = {"contended", "steal"} & set((r.get("flags") or "").split(";"))
        if disturbed:
            unjudged.append(f"{what} ({'/'.join(sorted(disturbed))}: its clock may read low)")
            continue
        if not ghz or opc is None:
            unjudged.append(f"{what} ({'no frequency row' if not ghz else 'no such kernel now'})")
            continue
        if math.isnan(opc):
            unjudged.append(f"{what} (no peak: the table cannot say)")
            continue
        ghz, refused = replayed_clock(r["variant"], ghz, ctx, clocks)
        if refused:
            changed.append(f"{what}: {refused}")
        peak = min(r["threads"], cores) * ghz * opc
        judged += 1
        rec = r.get("theoretical")
        if rec is None or abs(peak - rec) > 1e-9 * max(peak, rec):
            changed.append(f"{what} {rec if rec is None else f'{rec:.4g}'} -> {peak:.4g}")
        if r["mean"] > BOUND * peak:
            t.fail(f"{name}: {what}: {r['mean']:.4g} {r['unit']} is {r['mean'] / peak:.3f} of "
                   f"its peak {peak:.4g} with the current table ({opc:g} ops per cycle"
                   f"{', ' + via + ',' if via else ''} x "
                   f"{min(r['threads'], cores)} cores x {ghz:.4g} GHz; recorded peak "
                   f"{rec if rec is None else f'{rec:.4g}'})")
        flags = r.get("flags") or ""
        if (floor_1t is not None and r["threads"] == 1 and r["mean"] < floor_1t * peak
                and not any(c in flags for c in MEASURED_CAUSES)):
            t.fail(f"{name}: {what}: {r['mean'] / peak:.3f} of its peak {peak:.4g} and no "
                   f"cause measured in its run (flags: {flags or 'none'})")
    return judged, changed, unjudged


def below_peak_one(args: argparse.Namespace, rec: str, t: Tally) -> None:
    name = os.path.basename(rec)
    root = os.path.join(rec, "root")
    files = sorted(f for f in os.listdir(rec) if f.endswith(".json")
                   and (f.startswith("cpubench") or f.startswith("held-cpubench")))
    if not os.path.isdir(root):
        t.fail(f"{name}: not a complete record (needs root/)")
        return
    if not files:
        t.skip(f"{name}: no cpubench rows recorded")
        return
    try:
        uarch, source, cores, per_cycle, clocks = kernel_peaks(args.kernel_peaks, root)
    except RuntimeError as e:
        t.fail(f"{name}: {e}")
        return
    if source != "table" or cores < 1:
        t.skip(f"{name}: the current table gives this CPU no peaks (uarch {uarch}, {source}; "
               f"cores {cores}): its rows' peaks were the probe's on that machine")
        return
    judged, changed, unjudged = 0, [], []
    failed_before = t.failed
    floor_1t = dict(args.floor_1t).get(name)
    for f in files:
        j, c, u = judge_rows(f"{name}/{f}", load(os.path.join(rec, f)), cores, per_cycle, t,
                             clocks, floor_1t)
        judged, changed, unjudged = judged + j, changed + c, unjudged + u
    if not judged:
        t.skip(f"{name}: no row could be judged: " + "; ".join(unjudged))
        return
    t.judged += 1
    if changed:
        print(f"note: {name}: {len(changed)} peak(s) differ from the recorded ones: "
              + "; ".join(changed))
    if unjudged:
        print(f"note: {name}: {len(unjudged)} row(s) not judged: " + "; ".join(unjudged))
    if t.failed == failed_before:
        print(f"ok: {name}: {judged} rows at most {BOUND} of their peaks with the current "
              f"table ({uarch}, {cores} cores)")


def probe_passes(rec: str) -> str | None:
    """The record's probe runs as PEAKBENCH_TEST_PROBE_PASSES: "name=run1,run2;...", from
    each run's peak.uarch_note ("per cycle at 3.01 GHz (imul): fma256 1.97, ..."), up to
    the first ";" (after it the note says what was filled from elsewhere, not figures)."""
    runs = sorted(f for f in os.listdir(rec) if f.startswith("peakinfo-measured-"))
    figs: dict[str, list[str]] = {}
    for f in runs:
        note = str(load(os.path.join(rec, f))["context"].get("peak.uarch_note", ""))
        if ":" not in note:
            continue
        for item in note.split(":", 1)[1].split(";", 1)[0].split(","):
            words = item.split()
            if len(words) >= 2:  # "vadd128 3.32 refused" is still a figure
                figs.setdefault(words[0], []).append(words[1])
    return ";".join(f"{k}={','.join(v)}" for k, v in figs.items()) or None


def corrected(args: argparse.Namespace, root: str, spec: str, uarch: str | None) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.json")
        cmd = [args.peakinfo, "--root", root, "--set", "cpu.ghz=3", "--format", "json",
               "--output", out] + (["--set", f"cpu.uarch={uarch}"] if uarch else [])
        env = dict(os.environ, PEAKBENCH_TEST_PROBE_PASSES=spec)
        run = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
        if run.returncode != 0:
            return f"(peakinfo exited {run.returncode}: {run.stderr.strip()})"
        ctx = load(out)["context"]
        notes = str(ctx.get("peak.probe_notes", ""))
        if notes.startswith("probe passes:"):  # not replayed at all: "none" would mean nothing
            return f"(the passes did not parse: {notes})"
        return str(ctx.get("peak.table_corrected"))


def probe_check_one(args: argparse.Namespace, rec: str, t: Tally) -> None:
    name = os.path.basename(rec)
    spec = probe_passes(rec)
    if not spec:
        t.skip(f"{name}: no probe runs (peakinfo-measured-*.json)")
        return
    got = corrected(args, os.path.join(rec, "root"), spec, None)
    if got != "none":
        t.fail(f"{name}: its own table entry is contradicted by its probe runs: {got}")
        return
    for want in args.expect or []:
        rname, uarch, text = want.split(":", 2)
        if rname != name:
            continue
        got = corrected(args, os.path.join(rec, "root"), spec, uarch)
        if text not in got:
            t.fail(f"{name}: cpu.uarch={uarch}: peak.table_corrected {got!r} lacks {text!r}")
            return
        print(f"ok: {name}: cpu.uarch={uarch} corrected: {got}")
    t.judged += 1
    print(f"ok: {name}: the table's entry stands against the probe's runs ({spec})")


def identity_one(args: argparse.Namespace, rec: str, t: Tally) -> None:
    name = os.path.basename(rec)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.json")
        problem = run_peakinfo_plain(args.peakinfo, os.path.join(rec, "root"), out)
        if problem:
            t.fail(f"{name}: {problem}")
            return
        ctx = load(out)["context"]
    verdict, uarch = ctx.get("cpu.identity"), ctx.get("peak.uarch")
    note = str(ctx.get("cpu.identity_note", ""))
    said = note.split(" says ", 1)[1].split(";", 1)[0] if " says " in note else None
    if verdict == "masked" and uarch == said:
        t.fail(f"{name}: the model is masked yet its entry {said} is used ({note})")
        return
    for want in args.expect or []:
        rname, wverdict, wuarch, *texts = want.split(":", 3)
        if rname != name:
            continue
        lacks = [x for x in (texts[0].split(";") if texts else []) if x not in note]
        if verdict != wverdict or uarch != wuarch or lacks:
            t.fail(f"{name}: cpu.identity {verdict!r}, peak.uarch {uarch!r}, note {note!r}; "
                   f"wanted {wverdict!r}, {wuarch!r}" + (f", and {lacks} in the note" if lacks else ""))
            return
    t.judged += 1
    print(f"ok: {name}: cpu.identity={verdict}: {note} -> {uarch}")


def run_peakinfo_plain(peakinfo: str, root: str, out: str) -> str | None:
    cmd = [peakinfo, "--root", root, "--format", "json", "--output", out]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return None if run.returncode == 0 else f"{' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()}"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = p.add_subparsers(dest="check", required=True)
    lk = sub.add_parser("lookup")
    lk.add_argument("--peakinfo", required=True)
    lk.add_argument("--schema-check", required=True)
    lk.add_argument("--superseded")
    lk.add_argument("dirs", nargs="+")
    bp = sub.add_parser("below-peak")
    bp.add_argument("--kernel-peaks", required=True)
    bp.add_argument("--floor-1t", action="append", default=[], type=rec_value,
                    metavar="REC=F")
    bp.add_argument("dirs", nargs="+")
    pc = sub.add_parser("probe-check")
    pc.add_argument("--peakinfo", required=True)
    pc.add_argument("--expect", action="append")
    pc.add_argument("dirs", nargs="+")
    idp = sub.add_parser("identity")
    idp.add_argument("--peakinfo", required=True)
    idp.add_argument("--expect", action="append")
    idp.add_argument("dirs", nargs="+")
    args = p.parse_args(argv)
    args.superseded_lines = load_superseded(getattr(args, "superseded", None))
    t = Tally()
    check = {"lookup": lookup_one, "below-peak": below_peak_one, "probe-check": probe_check_one,
             "identity": identity_one}
    for rec in records(args.dirs):
        check[args.check](args, rec, t)
    return t.exit_code("found" if not t.skipped else "that could be judged")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
