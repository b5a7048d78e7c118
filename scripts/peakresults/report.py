"""report.md (what a student pastes: the PA1 tables, the charts, the machine, the reference
tools, the warnings) and report-appendix.md (every row, one line each)."""
import os

from . import pick, report_cluster, report_dpdk, report_pa1, report_refs, report_tables, schema
from .load import SUITES
from .report_fmt import FLAG_MEANING, fmt, human, warnings
from .report_machine import machine, status_notes, steps

TITLES = {"cpu": "CPU", "memory": "Memory", "disk": "Disk", "network": "Network", "dpdk": "DPDK"}
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


def warnings_section(all_rows, unexplained, problems) -> list[str]:
    out = ["", "## Warnings", ""]
    cnt, where, order = {}, {}, []
    for r in all_rows:
        for w in warnings(r.get("flags")):
            if w not in cnt:
                order.append(w)
                cnt[w], where[w] = 0, []
            cnt[w] += 1
            if r["suite"] not in where[w]:
                where[w].append(r["suite"])
    if order:
        out += ["| Flag | Rows | Suites | Meaning |", "| --- | ---: | --- | --- |"]
        out += [f"| {w} | {cnt[w]} | {', '.join(where[w])} | "
                f"{FLAG_MEANING.get(w, chr(40) + 'no description: see the suite' + chr(39) + 's docs)')} |" for w in order]
    else:
        out.append("No row carries a warning flag.")
    if unexplained:
        out += ["", "Reference ratios outside 0.90-1.10 with no measured cause (unexplained):", ""]
        out += [f"- {u}" for u in unexplained]
    if problems:
        out += ["", "Raw files the results program could not use:", ""] + [f"- {p}" for p in problems]
    return out


def write(out_dir: str, res, charts) -> None:
    """res: finish.Results."""
    status = res.status
    rows = res.merged.rows()
    unexplained: list[str] = []
    md = ["# peakbench report", ""]
    try:
        with open(os.path.join(out_dir, "commands.txt"), encoding="utf-8") as f:
            md += ["- " + ln.rstrip("\n")[2:] for ln in f.readlines()[:2] if ln.startswith("# ")]
    except OSError:
        pass
    md += [f"- Results folder: `{out_dir}` (CSV and JSON per suite, results.csv, baselines.csv, context.json, "
           "charts/, commands.txt)",
           "- Every row, one line each: [report-appendix.md](report-appendix.md)", ""]
    md += steps(status) + ["", "## Summary", "", "### Efficiency (best over the thread counts)", ""]
    md += efficiency_summary(rows) + [""] + chart_lines(charts, ["efficiency"])
    if charts.note:
        md += [f"Charts: {charts.note}."]
    md += [""] + machine(res.merged.context, res.merged.peaks)
    app = ["# peakbench report: every row", "", "[Back to the report](report.md)"]
    for s in SUITES:
        md += ["", f"## {TITLES[s]}", ""]
        app += ["", f"## {TITLES[s]}", ""]
        rs = res.merged.suites.get(s, {}).get("results", [])
        if not rs:
            md += suite_missing(out_dir, status, s)
            app += ["Not run."]
            continue
        md += status_notes(status, s)
        md += report_pa1.section(rs)
        md += [""] + chart_lines(charts, CHARTS[s])
        if s == "dpdk":
            md += report_dpdk.section(out_dir, rs, res.merged.suites.get("network", {}).get("results", []))
        for title, tre, mre, pct, empty in report_tables.SECTIONS[s]:
            t = report_tables.table(report_tables.select(rs, s, tre, mre), pct)
            if title:
                app += [f"### {title}", ""]
            app += (t or ([empty] if empty else [])) + [""]
        if s == "memory":
            app += ["### Load latency vs working set (pointer chase)", ""] + report_tables.latency_table(rs) + [""]
            app += ["### Roofline", ""] + report_tables.levels_table(res.merged.levels)
    md += ["", "## Reference tools", ""] + status_notes(status, "baseline")
    pairs = report_refs.load_pairs(out_dir, res.merged.problems)
    if pairs:
        md += ["Paired rounds: ours and the tool alternate, round by round; the ratio is ours / tool.", ""]
        md += report_refs.pairs_section(pairs, unexplained)
    else:
        md += ["No paired rounds were run."]
    if res.baselines.rows or res.baselines.skipped:
        if pairs:
            md += ["", "### Unpaired reference figures", "",
                   "The tools also ran once over the sweep's points, each row joined to the peakbench row of the",
                   "same key (suite, test, variant, threads, block size, metric, unit). They were taken minutes",
                   "away from ours, so no ratio is given for them: the paired table above is the comparison.", ""]
        else:
            md += ["", "Each tool ran with parameters matched to ours (see docs/benchmarks/suite.md for the mapping);",
                   "the ratio is peakbench / tool (for latency lower is better, so below 100% means peakbench is faster).",
                   "Each reference row is joined to the peakbench row of the same key (suite, test, variant, threads,",
                   "block size, metric, unit).", ""]
        if any(b.get("test") == "seq_write" for b in res.baselines.rows):
            md += report_refs.WRITE_LAYOUTS + [""]
        md += report_refs.baseline_section(res.matches, [b for b in res.baselines.rows if not b.get("matched")],
                                           unexplained, ratios=not pairs)
        if res.baselines.skipped:
            md += ["", "Skipped or failed:", ""]
            md += report_refs.skipped_lines(res.baselines.skipped)
    else:
        md += ["", "No reference tool ran (--no-baselines, or none installed)."]
    md += [""] + chart_lines(charts, ["baseline"])
    md += report_cluster.section(out_dir, charts.dir)  # clusterbench's (docs/cluster.md)
    md += warnings_section(rows + [dict(b, suite="baseline") for b in res.baselines.rows], unexplained, res.merged.problems)
    for name, lines in (("report.md", md), ("report-appendix.md", app)):
        tmp = os.path.join(out_dir, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, os.path.join(out_dir, name))
