"""report.md's first screen: how fast the machine is (one headline figure or two per
subsystem), how close to its peak, whether the reference tools agree (one verdict per
job), the warnings that change a conclusion, and what a --quick or --tiny run shortened.
At most about 60 lines: the rest of the report and the appendix hold the detail."""
from ..core import physics, pick
from . import (report_causes, report_clock, report_cloud, report_cluster, report_formats, report_mode, report_refs,
               sustain)
from .report_fmt import FLAG_MEANING, cell, fmt, human, isnum, warnings
from .report_machine import core_lines, status_problems

# Flags that change what a headline figure means: the doubt flags (pick.py) and those that
# say the figure is not the device's (a cache, tmpfs, page cache, a virtual NIC).
CONCLUSION_FLAGS = ("oversubscribed", "contended", "preempted", "steal", "above_peak", "unverified",
                    "bimodal", "cached", "small_arrays", "tmpfs", "buffered", "vdev")


class Headline:
    """One summary figure: the best row (pick.best) among a suite's rows that match."""

    def __init__(self, suite, label, test, metric, unit="", variant="", lower=False, peak_note="", largest=False):
        self.suite, self.label, self.test, self.metric, self.unit = suite, label, test, metric, unit
        self.variant, self.lower, self.peak_note, self.largest = variant, lower, peak_note, largest

    def rows(self, rows: list[dict]) -> list[dict]:
        """The rows the figure is chosen from: never a comparison row (physics.py), whose
        peak is another one than the figure's."""
        got = [r for r in rows if r["suite"] == self.suite and not physics.is_comparison(r) and (r["test"] or "").startswith(self.test)
               and r["metric"] == self.metric and (not self.unit or r["unit"] == self.unit)
               and self.variant in (r["variant"] or "") and r.get("n") and isnum(r.get("mean"))]
        if self.largest and got:  # the figure at the largest size measured (DRAM, not a cache)
            top = max(int(r.get("block_bytes") or 0) for r in got)
            got = [r for r in got if int(r.get("block_bytes") or 0) == top]
        return got


HEADLINES = (
    Headline("cpu", "FLOPS, double precision", "flops", "flops", variant="_dp"),
    Headline("cpu", "Linpack (dgesv)", "linpack", "flops", variant="dgesv"),
    Headline("memory", "STREAM triad", "stream", "throughput", variant="triad", peak_note="peak.mem_gbps_note"),
    Headline("memory", "Load latency, largest working set", "latency", "latency", unit="ns", lower=True, largest=True),
    Headline("disk", "Sequential read", "seq_read", "throughput", peak_note="peak.disk_mbps_note"),
    Headline("disk", "Sequential write", "seq_write", "throughput", peak_note="peak.disk_mbps_note"),
    Headline("disk", "Random read", "rand_read", "iops", peak_note="peak.disk_iops_note"),
    Headline("network", "TCP throughput", "tcp_throughput", "throughput", peak_note="peak.net_gbps_note"),
    Headline("network", "TCP round trip", "tcp_latency", "latency", lower=True),
    Headline("dpdk", "Packet rate", "rx_", "throughput", unit="Mpps"),
)


def machine_line(c: dict) -> list[str]:
    """The machine in one row."""
    if not c:
        return ["No machine description: peakinfo did not run."]

    def v(k):
        x = c.get(k)
        return "unknown" if x is None else str(x)
    gib = c.get("mem.total_bytes")
    mem = f"{gib / 1073741824:.1f} GiB" if isnum(gib) else "unknown"
    clock = f"{fmt(c['cpu.ghz.measured'])} GHz measured" if isnum(c.get("cpu.ghz.measured")) else "unknown"
    return ["| CPU | Family/model | Cores | Memory | Kernel | Hypervisor | Clock |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            f"| {cell(v('cpu.model'))} | {v('cpu.family')}/{v('cpu.model_number')} | {v('cpu.cores')} cores, "
            f"{v('cpu.allowed')} of {v('cpu.logical')} CPUs allowed | {mem} | {cell(v('os.kernel'))} | "
            f"{cell(v('hypervisor'))} | {clock} |"] + core_lines(c)


def _peak_cell(h: Headline, r: dict, c: dict) -> str:
    if isnum(r.get("theoretical")):
        return f"{fmt(r['theoretical'])} {r['unit']}"
    if h.lower or "vdev" in warnings(r.get("flags")):
        return "–"
    note = str(c.get(h.peak_note) or "") if h.peak_note else ""
    return "unknown" + (f": {note.rsplit(': ', 1)[-1]}" if note else "")


def headlines(rows: list[dict], c: dict, out_dir: str, suites: dict | None = None) -> tuple[list[str], list[tuple]]:
    """(table lines, [(flag, figure label)] of the conclusion flags the figures carry).
    suites: the merged suites (their contexts say when a peak is a published cloud limit)."""
    cloud_used = {}
    out = ["| Subsystem | Figure | Measured | Peak | Efficiency | Where | Notes |",
           "| --- | --- | ---: | ---: | ---: | --- | --- |"]
    flagged = []
    for h in HEADLINES:
        got = h.rows(rows)
        if not got:
            continue
        sign = -1 if h.lower else 1
        r, why = pick.best(got, lambda x: sign * x["mean"])
        where = ", ".join(x for x in (f"{r['threads']}t" if r.get("threads") is not None else "",
                                      human(r["block_bytes"]) if r.get("block_bytes") else "",
                                      r.get("variant") or "") if x)
        flags = [w for w in warnings(r.get("flags")) if w in CONCLUSION_FLAGS]
        flagged += [(w, f"{h.suite} {h.label}") for w in flags]
        notes = ([pick.fallback_note(why)] if why else []) + [w for w in flags if w not in why]
        known = report_causes.far_below_notes(r, rows, c) if not h.lower else []
        if known:  # the cause the run knows of a figure far below its peak
            notes.append("; ".join(known))
        eff = f"{r['efficiency'] * 100:.1f}%" if isnum(r.get("efficiency")) and not h.lower else "–"
        peak = _peak_cell(h, r, c)
        ctx = {**c, **((suites or {}).get(h.suite, {}).get("context") or {})}
        if report_cloud.is_published(r, ctx):  # against the instance type's published limits
            peak, eff = report_cloud.peak_words(r, ctx), report_cloud.efficiency_words(r, ctx)
            cloud_used = ctx
        out.append(f"| {h.suite} | {h.label} | {fmt(r['mean'])} {r['unit']} | {cell(peak)} | {cell(eff)} | "
                   f"{cell(where)} | {cell(', '.join(notes))} |")
    for label, value, note in report_cluster.headlines(out_dir):
        out.append(f"| cluster | {label} | {value} | – | – | {cell(note)} |  |")
    if len(out) > 2:
        out += report_cloud.source_line(cloud_used)
    return (out if len(out) > 2 else ["No headline figure was measured."]), flagged


def conclusion_warnings(res, flagged: list[tuple], unexplained: list[str], verdicts: list[dict]) -> list[str]:
    """The warnings that change a conclusion, one line each."""
    out = []
    bad = status_problems(res.status)
    if bad:
        out.append(f"- Steps that did not run or failed: {', '.join(bad[:6])}"
                   + (f" and {len(bad) - 6} more" if len(bad) > 6 else "") + " (the appendix's Steps say why).")
    if res.merged.context.get("c2c.moved") is True:
        out.append("- **The host moved the vCPUs during the run**: figures taken minutes apart ran on different "
                   "placements (Machine, VM placement).")
    by_flag: dict = {}
    for flag, label in flagged:
        by_flag.setdefault(flag, [])
        if label not in by_flag[flag]:
            by_flag[flag].append(label)
    # Rows whose own figure is above their peak (a comparison row never is: physics.py), by
    # the cause their flag names: what was found, not a riddle.
    above = report_causes.above_peak_lines(res.merged.rows())
    for flag in CONCLUSION_FLAGS:
        if flag in by_flag and not (flag == "above_peak" and above):
            out.append(f"- `{flag}` on {', '.join(by_flag[flag])}: {FLAG_MEANING.get(flag, 'see the suite docs')}.")
    if above and "above_peak" in by_flag:
        out.append(f"- `above_peak` on {', '.join(by_flag['above_peak'])}: the rows above their peak, by cause:")
        above = ["  " + ln for ln in above]
    out += above
    if unexplained:
        out.append(f"- {len(unexplained)} of {len(verdicts)} reference ratios outside {report_refs.BAND_TEXT}"
                   f"{report_refs.interval_words(verdicts)} with no measured cause (listed under Warnings).")
    if res.merged.problems:
        out.append(f"- {len(res.merged.problems)} raw file(s) could not be used (listed under Warnings).")
    return out or ["- None: every step ran, no headline figure carries a doubt flag, every reference ratio is in "
                   "band or explained."]


def mode_lines(out_dir: str) -> list[str]:
    mode = report_mode.run_mode(out_dir)
    if mode == "full":
        return ["Mode: the full protocol.", ""]
    if not mode:
        return []
    what = {"tiny": "tiny sizes for tests: **the numbers mean nothing**",
            "quick": "a reduced plan of a few minutes"}[mode]
    return [f"Mode: **{mode}** (`run_all.sh --{mode}`, {what}); against the full protocol it shortened:", ""] \
        + report_mode.shortened(out_dir, mode) + [""]


def run_state_lines(status: list, out_dir: str) -> list[str]:
    """A run that stopped (Ctrl-C, SIGTERM) or was resumed says so before anything else:
    its figures are those of the steps that ran."""
    out = []
    for s in status:
        if s[2] == "resumed":
            out.append(f"- Resumed: {s[4]}" if len(s) > 4 and s[4] else "- Resumed (./run_all.sh --resume).")
    stopped = [s for s in status if s[2] == "interrupted"]
    if stopped:
        s = stopped[-1]
        why = f" ({s[4]})" if len(s) > 4 and s[4] else ""
        out.append(f"- **Interrupted** during step {s[0]} ({s[1]}){why}: the figures below are those of the steps "
                   f"that ran; `./run_all.sh --resume {out_dir}` continues the run.")
    return out + ([""] if out else [])


def _formats_line(cpu_rows: list[dict], peaks: list[dict]) -> list[str]:
    """The best low-precision unit in one line, under the table (report_formats)."""
    line = report_formats.summary_line(cpu_rows, peaks)
    return [""] + line if line else []


def summary(out_dir: str, res, verdicts: list[dict], unexplained: list[str]) -> list[str]:
    """res: finish.Results; verdicts: report_refs' (pairs or joined rows); unexplained: the
    references outside the band without a cause (report_refs fills it)."""
    table, flagged = headlines(res.merged.rows(), res.merged.context, out_dir, res.merged.suites)
    return (["## Summary", ""] + run_state_lines(res.status, out_dir) + mode_lines(out_dir)
            + machine_line(res.merged.context)
            + report_clock.clock_lines(res.merged.suites.get("cpu", {}).get("context") or {})
            + ["", "### Figures against their peaks", ""] + table
            + _formats_line(res.merged.suites.get("cpu", {}).get("results", []), res.merged.peaks)
            + sustain.summary_lines(res.merged.suites)
            + ["", "### Reference tools (ratio = ours / tool)", ""] + report_refs.summary_lines(verdicts)
            + report_refs.judged_notes(verdicts)
            + ["", "### Warnings that change a conclusion", ""]
            + conclusion_warnings(res, flagged, unexplained, verdicts))
