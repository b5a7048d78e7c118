"""`finish OUT`: the raw files of a run into everything after the binaries, in order:
merge (and pool the second pass), join the baselines, write JSON/CSV, the charts, the report
(report.md, report-appendix.md and their self-contained HTML twins: report.py)."""
import json
import os

from ..charts import charts as charts_mod
from ..charts import charts_special
from ..core import csvout, schema
from ..core.load import SUITES
from ..merge import join, merge
from ..pairs import pairs
from . import report, report_formats, report_machine, report_refs, sustain

LEVEL_COLUMNS = ("level",) + schema.COLUMNS


class Results:
    def __init__(self, out: str):
        self.merged = merge.merge(out)
        rows = self.merged.rows()
        self.baselines = join.load_baselines(out, self.merged.problems, rows)
        join.join(rows, self.baselines)
        # (peakbench row, a reference row of it), in the peakbench rows' order.
        refs: dict = {}
        for b in self.baselines.rows:
            if b.get("mean") is not None:
                refs.setdefault(schema.row_key(b), []).append(b)
        self.matches = [(r, b) for r in rows for b in refs.get(schema.row_key(r), [])]
        self.status = report_machine.read_status(out)


def write_data(out: str, res: Results) -> None:
    m = res.merged
    for s in SUITES:
        if s in m.suites:
            with open(os.path.join(out, f"{s}.json"), "w", encoding="utf-8") as f:
                json.dump(m.suites[s], f, indent=1)
                f.write("\n")
            csvout.write_csv(os.path.join(out, f"{s}.csv"), m.suites[s]["results"])
    csvout.write_csv(os.path.join(out, "results.csv"), m.rows())
    if res.baselines.rows:
        csvout.write_csv(os.path.join(out, "baselines.csv"), res.baselines.rows, schema.BASELINE_COLUMNS)
    if m.levels:
        csvout.write_csv(os.path.join(out, "levels.csv"), m.levels, LEVEL_COLUMNS)
    if m.context:
        with open(os.path.join(out, "context.json"), "w", encoding="utf-8") as f:
            json.dump(m.context, f, indent=1)
            f.write("\n")
    if m.peaks:
        csvout.write_csv(os.path.join(out, "peaks.csv"), m.peaks)
    pairs.write_pairs_csv(report_refs.load_pairs(out), os.path.join(out, "pairs.csv"))


def write_charts(out: str, res: Results, draw: bool) -> charts_mod.Charts:
    c = charts_mod.Charts(out, draw)
    s = {k: v["results"] for k, v in res.merged.suites.items()}
    charts_mod.suite_figs(c, s)
    charts_special.latency_fig(c, s.get("memory", []), res.merged.context)
    charts_special.dpdk_fig(c, s.get("dpdk", []))
    charts_special.efficiency_fig(c, s)
    report_formats.chart(c, s.get("cpu", []))
    charts_special.baseline_fig(c, res.matches)
    charts_special.roofline_fig(c, s.get("cpu", []), res.merged.levels, s.get("memory", []))
    sustain.figs(c, res.merged.suites, res.merged.context)
    return c


def finish(out: str, draw: bool = True) -> tuple[Results, charts_mod.Charts]:
    res = Results(out)
    write_data(out, res)
    c = write_charts(out, res, draw)
    report.write(out, res, c)
    return res, c
