"""report-appendix.md: what report.md leaves out so that it reads in one page: the steps,
every context key, the theoretical peaks and their sources, every row one line each (per
suite, report_tables), the efficiency of every workload, and the reference jobs' full
command lines and every reference row."""
from ..core.load import SUITES
from . import report_dpdk, report_refs, report_tables
from .report_machine import context_keys, peaks_table, steps

TITLES = {"cpu": "CPU", "memory": "Memory", "disk": "Disk", "network": "Network", "dpdk": "DPDK"}


def suite_tables(suite: str, rows: list[dict], levels: list[dict]) -> list[str]:
    out = []
    for title, tre, mre, pct, empty in report_tables.SECTIONS[suite]:
        t = report_tables.table(report_tables.select(rows, suite, tre, mre), pct)
        if title:
            out += [f"### {title}", ""]
        out += (t or ([empty] if empty else [])) + [""]
    if suite == "memory":
        out += ["### Load latency vs working set (pointer chase)", ""] + report_tables.latency_table(rows) + [""]
        out += ["### Roofline", ""] + report_tables.levels_table(levels)
    return out


def appendix(out_dir: str, res, efficiency: list[str], pair_recs: list[dict]) -> list[str]:
    """res: finish.Results; efficiency: the per-workload efficiency table (report.py);
    pair_recs: pairs.py's records."""
    m = res.merged
    app = ["# peakbench report: the appendix", "",
           "[Back to the report](report.md). The commands of every step: [commands.txt](commands.txt).", "",
           "## Steps", ""] + steps(res.status)[2:]
    app += ["", "## Efficiency of every workload (best over the thread counts)", ""] + efficiency
    app += ["", "## Machine: every context key", ""] + context_keys(m.context)
    app += ["", "## Theoretical peaks and their sources", ""] + peaks_table(m.peaks)
    for s in SUITES:
        app += ["", f"## {TITLES[s]}: every row", ""]
        rs = m.suites.get(s, {}).get("results", [])
        app += suite_tables(s, rs, m.levels) if rs else ["Not run."]
        if s == "dpdk" and rs:
            app += ["", "### EAL memory of each step", ""] + report_dpdk.eal_memory(out_dir)
    app += ["", "## Reference tools: jobs and every reference row", ""]
    unmatched = [b for b in res.baselines.rows if not b.get("matched")]
    body = report_refs.commands_section(pair_recs, res.matches, unmatched)
    app += body or ["No reference tool ran."]
    return app
