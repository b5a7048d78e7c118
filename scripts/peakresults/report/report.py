"""report.md (what a student reads and pastes: the summary on its first screen, then the PA1
tables and the charts, the reference tools, the warnings, the machine), report-appendix.md
(what report.md leaves out: report_appendix) and report.html and report-appendix.html (the
same, self-contained: report_html)."""
import os

from ..core import pick, schema
from ..core.load import SUITES
from . import (report_appendix, report_cluster, report_dpdk, report_formats, report_html, report_pa1, report_refs,
               report_summary, report_warnings, sustain)
from .report_fmt import fmt, human, warnings
from .report_machine import machine, status_notes
from .report_time import lines as time_lines

TITLES = report_appendix.TITLES
CHARTS = {
    "cpu": ["cpu_flops_dp", "cpu_flops_sp", "cpu_iops_i32", "cpu_iops_i64", "cpu_linpack"],
    "memory": ["memory_seq_rw", "memory_rand_rw", "memory_seq_read", "memory_rand_read", "memory_seq_write",
               "memory_rand_write", "memory_stream", "memory_latency", "roofline"],
    "disk": ["disk_seq_rw", "disk_seq_read", "disk_seq_write", "disk_rand_read", "disk_rand_write",
             "disk_iops", "disk_latency"],
    "network": ["network_throughput", "network_latency", "network_loss"],
    "dpdk": ["dpdk_mpps"],
}


def chart_lines(charts, names) -> list[str]:
    return [f"![{n}](charts/{n}.png)\n" for n in names if charts.have(n)]


def efficiency_summary(rows) -> list[str]:
    """Per workload (suite, test, variant, metric), its best unflagged row (pick.best); a
    workload with only flagged rows shows the best of them, its Notes saying so."""
    groups, order = {}, []
    for r in rows:
        if r.get("efficiency") is None or not r.get("n"):
            continue
        k = (r["suite"], r["test"], r["variant"], r["metric"])
        if k not in groups:
            order.append(k)
            groups[k] = []
        groups[k].append(r)
    if not order:
        return ["No row has a theoretical peak to compare with."]
    out = [f"Each line is the workload's best row without a doubt flag ({', '.join(schema.DOUBT_FLAGS)}); "
           "a flagged row stands in only when the workload has no other, and its Notes say so.", "",
           "| Subsystem | Workload | Concurrency | Block size | Value | Theoretical | Efficiency | Notes |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for k in order:
        r, why = pick.best(groups[k], lambda x: x["efficiency"])
        notes = ([pick.fallback_note(why)] if why else []) + [w for w in warnings(r.get("flags")) if w not in why]
        out.append(f"| {r['suite']} | {r['test']} ({r['variant']}) | {r['threads']} | {human(r.get('block_bytes'))} | "
                   f"{fmt(r['mean'])} {r['unit']} | {fmt(r.get('theoretical'))} {r['unit']} | "
                   f"{r['efficiency'] * 100:.1f}% | {', '.join(notes)} |")
    return out


def suite_missing(out_dir, status, suite) -> list[str]:
    notes = status_notes(status, suite)
    if notes:
        return notes
    return [f"- {suite}: not run in this results folder"]


def head(out_dir: str) -> list[str]:
    md = ["# peakbench report", ""]
    try:
        with open(os.path.join(out_dir, "commands.txt"), encoding="utf-8") as f:
            md += ["- " + ln.rstrip("\n")[2:] for ln in f.readlines()[:2] if ln.startswith("# ")]
    except OSError:
        pass
    files = [f for f in ("results.csv", "baselines.csv", "pairs.csv", "context.json")
             if os.path.isfile(os.path.join(out_dir, f))]  # what this run wrote, no more
    return md + [f"- Results folder: `{out_dir}` (CSV and JSON per suite, {', '.join(files + ['charts/'])}, "
                 "[commands.txt](commands.txt))",
                 "- The steps, every context key, the peaks' sources, every row one line each and the reference "
                 "jobs' command lines: [report-appendix.md](report-appendix.md)"] + time_lines(out_dir) + [""]


def formats_part(rs: list[dict], pair_recs: list[dict], charts, peaks: list[dict]) -> list[str]:
    """The CPU's peaks per number format (report_formats; peaks: peakinfo's rows, whose
    format_peak rows state the forms cpubench did not run): [] when there is no format row."""
    t = report_formats.table(rs, pair_recs, peaks)
    if not t:
        return []
    return (["", "### Peaks per number format", "",
             "The best row of each format and unit (vector: SIMD registers; matrix: AMX tiles, Arm's BFMMLA and "
             "SMMLA), against its theoretical peak; a form this CPU cannot run gives its reason. Reference: the "
             "paired library round where one measures the same thing (docs/benchmarks/cpu.md).", ""]
            + t + [""] + chart_lines(charts, ["cpu_formats"]))


def suites_part(out_dir: str, res, charts, pair_recs: list[dict] | None = None) -> list[str]:
    """Per suite: its PA1 tables (report_pa1.MAIN) and its charts."""
    md = ["", "Tables: mean ± stddev over the repetitions; a column with nothing in it is left out; the "
              "appendix has every row (IOPS and latency beside disk throughput, CPU use, the clock per kernel)."]
    for s in SUITES:
        md += ["", f"## {TITLES[s]}", ""]
        rs = res.merged.suites.get(s, {}).get("results", [])
        if not rs:
            md += suite_missing(out_dir, res.status, s)
            continue
        md += status_notes(res.status, s)
        md += report_pa1.section(rs)
        md += [""] + chart_lines(charts, CHARTS[s] + [f"sustain_{r['test']}" for r in sustain.runs(rs)])
        if s == "cpu":
            md += formats_part(rs, pair_recs or [], charts, res.merged.peaks)
        if s == "dpdk":
            md += report_dpdk.section(out_dir, rs, res.merged.suites.get("network", {}).get("results", []))
    return md


def references_part(out_dir: str, res, pair_recs: list[dict], unexplained: list[str], charts) -> list[str]:
    md = ["", "## Reference tools", ""] + status_notes(res.status, "baseline")
    unmatched = [b for b in res.baselines.rows if not b.get("matched")]
    if pair_recs:
        md += ["Paired rounds: ours and the tool alternate, round by round; the ratio is ours / tool (for a "
               "latency, below 1 means ours is faster). Each verdict (in band, its measured cause, or "
               "unexplained) is in the summary; each job's command lines are in the appendix.", ""]
        md += report_refs.pairs_section(pair_recs, unexplained, out_dir, res.merged.rows())
        if res.matches:
            md += ["", "The tools also ran once over the sweep's points, minutes away from ours: those figures "
                       "carry no ratio and are in the appendix."]
    elif res.matches:
        md += ["No paired rounds were run: each tool ran once with parameters matched to ours, joined to the "
               "peakbench row of the same key; the ratio is ours / tool (for a latency, below 1 means ours is "
               "faster). The tools' command lines: the appendix.", ""]
        md += report_refs.joined_section(res.matches, unexplained)
    else:
        md += ["No paired rounds were run."] if res.baselines.rows or res.baselines.skipped else \
            ["No paired rounds were run.", "", "No reference tool ran (--no-baselines, or none installed)."]
    if any(b.get("test") == "seq_write" for b in res.baselines.rows):
        md += [""] + report_refs.WRITE_LAYOUTS
    if unmatched:
        md += ["", "Reference figures with no peakbench row (appendix): " + "; ".join(
            f"{b['tool']} {b['suite']} {b['test']} {b['variant']} {b['metric']}" for b in unmatched) + "."]
    if res.baselines.skipped:
        md += ["", "Skipped or failed:", ""] + report_refs.skipped_lines(res.baselines.skipped)
    return md + [""] + chart_lines(charts, ["baseline"])


def write_files(out_dir: str, docs: dict) -> None:
    for name, lines in docs.items():
        tmp = os.path.join(out_dir, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, os.path.join(out_dir, name))


def write(out_dir: str, res, charts) -> None:
    """res: finish.Results; charts: the charts drawn (charts.Charts)."""
    rows = res.merged.rows()
    pair_recs = report_refs.load_pairs(out_dir, res.merged.problems)
    verdicts = report_refs.pair_verdicts(pair_recs, rows) if pair_recs else report_refs.join_verdicts(res.matches)
    unexplained: list[str] = []  # filled by the Reference tools section, read by the summary's count
    refs = references_part(out_dir, res, pair_recs, unexplained, charts)
    md = head(out_dir) + report_summary.summary(out_dir, res, verdicts, unexplained)
    md += ["", "## Efficiency", "", "Each workload's best efficiency over the thread counts (its table: "
           "[the appendix](report-appendix.md)):"]
    md += [""] + chart_lines(charts, ["efficiency"])
    if charts.note:
        md += [f"Charts: {charts.note}."]
    md += suites_part(out_dir, res, charts, pair_recs) + refs
    md += report_cluster.section(out_dir, charts)  # clusterbench's (docs/cluster.md)
    md += report_warnings.section(rows + [dict(b, suite="baseline") for b in res.baselines.rows], unexplained,
                                  res.merged.problems, res.merged.context, verdicts)
    md += [""] + machine(res.merged.context)
    app = report_appendix.appendix(out_dir, res, efficiency_summary(rows), pair_recs)
    write_files(out_dir, {"report.md": md, "report-appendix.md": app})
    report_html.write(out_dir, {"report.html": md, "report-appendix.html": app})
