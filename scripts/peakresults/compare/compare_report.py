"""compare's output: Markdown (context differences first), CSV, JSON, and a chart."""
import csv
import io
import json
import math
import os
import shutil
import subprocess

from ..core import schema
from . import compare_shift
from .compare import Comparison


def _name(key: tuple) -> str:
    d = dict(zip(schema.KEY, key))
    parts = [str(d["suite"]), str(d["test"]), str(d["variant"] or "")]
    if d["threads"] is not None:
        parts.append(f"{d['threads']}t")
    if d["block_bytes"] is not None:
        parts.append(f"{d['block_bytes']}B")
    parts.append(f"{d['metric']} ({d['unit']})")
    return " ".join(p for p in parts if p)


def _ci(c) -> str:
    return "–" if c is None else f"{c[0]:+.1f} .. {c[1]:+.1f}"


def markdown(cmp: Comparison, old: str, new: str, tolerance: float) -> str:
    out = [f"# peakbench compare\n\nOLD `{old}`, NEW `{new}`; change = NEW / OLD - 1, with the 95% "
           f"interval of the change (Welch's t over the repetitions); tolerance {tolerance:g}%.\n"]
    if cmp.machine_diffs:
        out.append("**Not comparable: the runs come from different machines.** Every row below is "
                   "marked so; the changes are shown for information only.\n")
    if cmp.machine_diffs or cmp.setup_diffs:
        out.append("## Context differences\n\n| key | OLD | NEW |\n| --- | --- | --- |")
        for k, a, b in cmp.machine_diffs + cmp.setup_diffs:
            out.append(f"| {k} | {a} | {b} |")
        out.append("")
    else:
        out.append("Context: same machine and setup (CPU, kernel, governor, THP, compiler, "
                   "OpenBLAS core, placement).\n")
    counts: dict = {}
    for r in cmp.rows:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    out.append("## Summary\n\n" + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
               + f" (of {len(cmp.rows)} rows in both runs).\n")
    judged = [r for r in cmp.rows if r.lost_pct is not None]
    if judged:
        out.append(f"{len(judged)} row(s) flagged steal, contended or preempted were judged against "
                   "the share of CPU each side lost (recorded beside the flag): a change counts only "
                   "when its whole interval lies beyond what that share explains; their note says "
                   "so (docs/methodology.md, \"Comparing noisy rows\").\n")
    alike: dict = {}
    for r in cmp.rows:
        for f in r.alike:
            alike[f] = alike.get(f, 0) + 1
    if alike:
        counted = ", ".join(f"{f} {n}" for f, n in sorted(alike.items()))
        out.append(f"Rows flagged alike in both runs ({counted}) were judged as any row: the same "
                   "flag on the same job in both runs keeps nothing apart (docs/methodology.md, "
                   "\"Comparing flagged rows\").\n")
    out += _shift_lines(cmp, tolerance)
    regs = cmp.regressions(tolerance)
    if regs:
        out.append(f"**{len(regs)} regression(s) beyond {tolerance:g}%.**\n")
    out.append("## Rows\n\n| row | OLD | NEW | change % | 95% interval % | verdict | note |\n"
               "| --- | ---: | ---: | ---: | --- | --- | --- |")
    order = {"slower": 0, "faster": 1, "more CPU": 2, "less CPU": 2, "not judged": 3, "not comparable": 4,
             "no change beyond noise": 5}
    for r in sorted(cmp.rows, key=lambda r: (order.get(r.verdict, 9), -abs(r.change_pct))):
        out.append(f"| {_name(r.key)} | {r.old_mean:.4g} | {r.new_mean:.4g} | {r.change_pct:+.1f} | "
                   f"{_ci(r.ci_pct)} | {r.verdict} | {r.note} |")
    for title, keys in (("Only in OLD", cmp.only_old), ("Only in NEW", cmp.only_new)):
        if keys:
            out.append(f"\n## {title}\n")
            out.extend(f"- {_name(k)}" for k in keys)
    return "\n".join(out) + "\n"


def _shift_lines(cmp: Comparison, tolerance: float) -> list:
    """Each suite's median change (better positive), and whether the whole machine moved
    (compare_shift): the host, not the code, when every suite moved one way."""
    if cmp.machine_diffs:
        return []
    med = compare_shift.suite_medians(cmp.rows)
    if not med:
        return []
    out = ["Median change of each suite's comparable rows (positive: better): "
           + ", ".join(f"{s} {g:+.1f}% ({n} rows)" for s, (n, g) in med.items()) + ".\n"]
    moved = compare_shift.machine_moved(cmp.rows, tolerance)
    if moved is not None:
        out.append(f"**The whole machine moved: most suites {'gained' if moved > 0 else 'lost'} about "
                   f"{abs(moved):.0f}%, none the other way.** A change of code moves the suites it touches; a host's load "
                   "moves them all. Rerun both builds in alternating rounds before reading the rows "
                   "below as the code's (docs/methodology.md, \"Comparing runs\").\n")
    return out


def as_csv(cmp: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(schema.KEY) + ["old_mean", "new_mean", "change_pct", "ci_low_pct",
                                   "ci_high_pct", "verdict", "note", "old_lost_pct", "new_lost_pct"])
    for r in cmp.rows:
        lo, hi = r.ci_pct if r.ci_pct else ("", "")
        lost = r.lost_pct if r.lost_pct else ("", "")
        w.writerow(list(r.key) + [r.old_mean, r.new_mean, r.change_pct, lo, hi, r.verdict, r.note,
                                  *lost])
    return buf.getvalue()


def _finite(x: float) -> float | None:
    """A change from zero is infinite: JSON has no such number (nor NaN), so it is null
    there, with "from_zero": true beside it."""
    return x if math.isfinite(x) else None


def as_json(cmp: Comparison, tolerance: float = 5.0) -> str:
    return json.dumps({
        "machine_differences": [{"key": k, "old": a, "new": b} for k, a, b in cmp.machine_diffs],
        "setup_differences": [{"key": k, "old": a, "new": b} for k, a, b in cmp.setup_diffs],
        "rows": [dict(zip(schema.KEY, r.key), old_mean=r.old_mean, new_mean=r.new_mean,
                      change_pct=_finite(r.change_pct), from_zero=not math.isfinite(r.change_pct),
                      ci_pct=r.ci_pct, verdict=r.verdict, note=r.note, lost_pct=r.lost_pct)
                 for r in cmp.rows],
        "only_old": [dict(zip(schema.KEY, k)) for k in cmp.only_old],
        "only_new": [dict(zip(schema.KEY, k)) for k in cmp.only_new],
        "suite_median_gain_pct": {s: g for s, (_, g) in compare_shift.suite_medians(cmp.rows).items()},
        "machine_moved_pct": None if cmp.machine_diffs else compare_shift.machine_moved(cmp.rows, tolerance),
    }, indent=1, allow_nan=False)


def chart(cmp: Comparison, png: str) -> str:
    """Bars of change % with the interval, one per row that moved or was compared. Writes
    PNG's data file beside it; returns a note (drawn, or why not)."""
    dat = os.path.splitext(png)[0] + ".dat"
    rows = [r for r in cmp.rows if r.verdict != "not comparable" and math.isfinite(r.change_pct)]
    with open(dat, "w", encoding="utf-8") as f:
        f.write("# index change_pct ci_low_pct ci_high_pct label\n")
        for i, r in enumerate(rows):
            lo, hi = r.ci_pct if r.ci_pct else (r.change_pct, r.change_pct)
            label = _name(r.key).replace('"', "'")
            f.write(f'{i} {r.change_pct:.4f} {lo:.4f} {hi:.4f} "{label}"\n')
    if not rows:
        return f"chart: no comparable rows (data file {dat})"
    if not shutil.which("gnuplot"):
        return f"chart: gnuplot not installed; data in {dat}"
    height = max(300, 18 * len(rows) + 120)
    script = (f'set terminal pngcairo size 1100,{height} font ",9"\nset output "{png}"\n'
              'set termoption noenhanced\nset title "Change NEW vs OLD (%), with the 95% interval"\nset grid xtics\n'
              'set xzeroaxis\nset style fill solid 0.6\nunset key\nset offsets 0,0,0.5,0.5\n'
              f'plot "{dat}" using 2:1:(0):2:($1-0.35):($1+0.35):ytic(5) with boxxyerror, '
              f'"" using 2:1:3:4 with xerrorbars pt 7 ps 0.4\n')
    res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True, check=False)
    if res.returncode != 0:
        return f"chart: gnuplot failed: {res.stderr.strip().splitlines()[-1:]}"
    return f"chart: {png}"
