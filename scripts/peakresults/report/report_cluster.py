"""The report's cluster section: clusterbench's results (OUT/raw/cluster-*.json, written by
scripts/cluster_run.sh, read with merge.cluster_step) as N x N heatmaps (chart_gp.Heatmap,
drawn by charts.Charts), outlier pairs, a per-node table and one sentence each for the
slowest link and the slowest node (docs/cluster.md); then the MPI part (report_cluster_mpi:
transport, mpi_p2p and mpi_coll, hpcc's b_eff and HPL across the nodes)."""
import os
import statistics

from ..charts.chart_gp import Heatmap
from ..charts.charts import Charts
from ..core import schema
from ..merge import merge
from . import report_cluster_mpi

MAX_CELL_VALUES = 16  # above this many nodes the cells are too small for numbers


class Doc:
    """One clusterbench file: its context, its node blocks and its rows."""

    def __init__(self, context: dict, rows: list[dict]):
        self.context = context
        self.nodes = context.get(schema.NODES_KEY) or []
        self.rows = rows


def _load(out_dir: str, test: str) -> Doc | None:
    got = merge.cluster_step(out_dir, test, [])
    return Doc(*got) if got else None


def _fmt(v, digits=3) -> str:
    if v is None:
        return ""
    return f"{v:.{digits}g}"


def _hosts(doc: Doc) -> list[str]:
    names = [n.get("host", "") for n in doc.nodes]
    for r in doc.rows:
        for h in schema.hosts_of(r):
            if h and h != "all" and h not in names:
                names.append(h)
    return names


def _matrix(rows: list[dict], variant: str, metric: str, field: str) -> dict:
    return {schema.hosts_of(r): r.get(field) for r in rows
            if r.get("test") == "net_matrix" and r.get("variant") == variant
            and r.get("metric") == metric}


def _heatmap(cells: dict, hosts: list[str], charts: Charts, fig: str, title: str, unit: str,
             low_is_good: bool) -> str:
    """Write one heatmap's data and script and draw it; the PNG's path, or '' (not drawn)."""
    idx = {h: i for i, h in enumerate(hosts)}
    lines = ["# receiver sender value label"]
    lines += [f"{idx[p]} {idx[h]} {v} {_fmt(v)}" for (h, p), v in cells.items()
              if v is not None and h in idx and p in idx]
    if len(lines) == 1:
        return ""
    charts.write(fig, lines)
    charts.heatmap(fig, Heatmap(title=f"{title} ({unit})", names=hosts, cblabel=unit,
                                low_is_good=low_is_good,
                                show_values=len(hosts) <= MAX_CELL_VALUES))
    return os.path.join(charts.dir, fig + ".png") if charts.have(fig) else ""


def _table(cells: dict, hosts: list[str]) -> list[str]:
    lines = ["| sender \\ receiver | " + " | ".join(hosts) + " |",
             "| --- |" + " --- |" * len(hosts)]
    for h in hosts:
        lines.append(f"| {h} | " + " | ".join("-" if h == p else _fmt(cells.get((h, p)))
                                              for p in hosts) + " |")
    return lines


def _flag(flags: str, key: str) -> str:
    for part in (flags or "").split(";"):
        if part.startswith(key + "="):
            return part[len(key) + 1:]
    return ""


def _outlier_lines(rows: list[dict]) -> list[str]:
    outl = [r for r in rows if r.get("test") == "net_matrix" and "outlier" in schema.flags_of(r)]
    lines = ["Outlier pairs (latency p50 over the rule's multiple of the smallest, or "
             "throughput under its fraction of the largest; each re-measured once, alone, "
             "and reported as re-measured):", ""]
    if not outl:
        return lines + ["none.", ""]
    lines += ["| sender | receiver | figure | now | first pass | rule |", "| --- | --- | --- | --- | --- | --- |"]
    for r in outl:
        lat = r["metric"] == "latency"
        v = r.get("p50") if lat else r.get("median")
        first = _flag(r["flags"], "first_p50_us" if lat else "first_gbps")
        rule = ",".join(p.split("=", 1)[1] for p in r["flags"].split(";") if p.startswith("outlier="))
        lines.append(f"| {r['host']} | {r['peer']} | {r['variant']} {r['metric']} | "
                     f"{_fmt(v)} {r['unit']} | {first} | {rule} |")
    return lines + [""]


def _matrix_lines(doc: Doc, out_dir: str, charts: Charts) -> list[str]:
    rows, hosts = doc.rows, _hosts(doc)
    bw = _matrix(rows, "tcp", "throughput", "median")
    lat = _matrix(rows, "tcp", "latency", "p50")
    if not bw and not lat:
        return []
    sched = doc.context.get("cluster.schedule") or _flag(
        next((r["flags"] for r in rows if r.get("test") == "net_matrix"), ""), "schedule")
    lines = [f"### Network matrix ({len(hosts)} nodes, {sched or '?'} schedule)", "",
             "TCP throughput counted at the receiver (median of the repetitions, Gbit/s) and "
             "TCP round-trip latency p50 (us), sender on the rows, receiver in the columns; "
             "measured over netbench's own TCP/UDP code, MPI only starts the rounds.", ""]
    for cells, fig, title, unit, low in ((bw, "cluster-throughput", "TCP throughput", "Gbit/s", False),
                                         (lat, "cluster-latency", "TCP round trip p50", "us", True)):
        png = _heatmap(cells, hosts, charts, fig, title, unit, low)
        if png:
            lines += [f"![{title}]({os.path.relpath(png, out_dir)})", ""]
        lines += [f"{title} ({unit}):", ""] + _table(cells, hosts) + [""]
    lines += _outlier_lines(rows)
    loss = [r for r in rows if r.get("metric") == "loss" and (r.get("median") or 0) > 0]
    if loss:
        lines += ["UDP loss at the sender's rate: " + "; ".join(
            f"{r['host']} -> {r['peer']} {_fmt(r['median'])}%" for r in loss) + ".", ""]
    known = {k: v for k, v in bw.items() if v is not None}
    if known:
        (h, p), v = min(known.items(), key=lambda kv: kv[1])
        best = max(known.values())
        lines += [f"Slowest link: {h} -> {p} at {_fmt(v)} Gbit/s "
                  f"({_fmt(100 * v / best if best else 0)}% of the fastest pair's {_fmt(best)}).", ""]
    return lines


def _sweep_cell(r: dict | None, slow: dict, worst: list, pt: str) -> str:
    if r is None or r.get("median") is None:
        return ((r or {}).get("flags") or "").split(":")[0] or "-"
    if "slow_node" not in schema.flags_of(r):
        return _fmt(r["median"])
    slow[r["host"]] = slow.get(r["host"], 0) + 1
    rel = float(_flag(r["flags"], "vs_median") or 1)
    if not worst or abs(1 - rel) > worst[0]:
        worst[:] = [abs(1 - rel), r["host"], pt, rel]
    return _fmt(r["median"]) + " (slow)"


def _sweep_lines(doc: Doc) -> list[str]:
    rows = [r for r in doc.rows if r.get("test") == "node_sweep"]
    if not rows:
        return []
    hosts = [h for h in _hosts(doc) if h != "all"]
    points = list(dict.fromkeys(r["variant"] for r in rows))
    lines = ["### Per-node sweep", "",
             "The same short points on every node at the same time (medians); "
             "min/median/max/spread across nodes; a node is flagged slow when even its best "
             "repetition trails the nodes' median by more than 5%.", "",
             "| point | unit | " + " | ".join(hosts) + " | min | median | max | spread | slow |",
             "| --- | --- |" + " --- |" * (len(hosts) + 5)]
    slow: dict = {}
    worst: list = []
    for pt in points:
        by = {r["host"]: r for r in rows if r["variant"] == pt}
        agg = by.get("all")
        if agg is None:
            continue
        cells = [_sweep_cell(by.get(h), slow, worst, pt) for h in hosts]
        slow_here = [h for h in hosts if "slow_node" in schema.flags_of(by.get(h) or {})]
        lines.append(f"| {pt} | {agg['unit']} | " + " | ".join(cells) + f" | {_fmt(agg['min'])} | "
                     f"{_fmt(agg['median'])} | {_fmt(agg['max'])} | "
                     f"{_fmt(100 * float(_flag(agg['flags'], 'spread') or 0))}% | "
                     f"{','.join(slow_here)} |")
    lines.append("")
    if worst:
        lines.append(f"Slowest node: {worst[1]}, slow on {slow[worst[1]]} point(s); "
                     f"worst {worst[2]} at {_fmt(worst[3])}x the nodes' median.")
    else:
        lines.append("Slowest node: none beyond its own noise.")
    return lines + [""]


def headlines(out_dir: str) -> list[tuple]:
    """The summary's cluster figures: (label, value, where) for the median and the slowest
    TCP link of the matrix, and HPL across the nodes (hpcc) with its efficiency against the
    sum of their peaks; [] without either."""
    out = report_cluster_mpi.hpl_headline(out_dir)
    matrix = _load(out_dir, "net_matrix")
    if matrix is None:
        return out
    bw = {k: v for k, v in _matrix(matrix.rows, "tcp", "throughput", "median").items() if v is not None}
    if not bw:
        return out
    (h, p), low = min(bw.items(), key=lambda kv: kv[1])
    return [("TCP throughput, median link", f"{_fmt(statistics.median(bw.values()))} Gbit/s", f"{len(bw)} links"),
            ("TCP throughput, slowest link", f"{_fmt(low)} Gbit/s", f"{h} -> {p}")] + out


def _node_lines(doc: Doc) -> list[str]:
    if not doc.nodes:
        return []
    lines = ["| node | CPU | kernel | ISA | CPUs |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {n.get('host')} | {n.get('cpu.model')} | {n.get('os.kernel')} | {n.get('cpu.isa')} | "
              f"{n.get('cpu.logical')} |" for n in doc.nodes]
    return lines + [""]


def section(out_dir: str, charts) -> list[str]:
    """Markdown lines of the cluster section; [] when the run has no cluster results.
    charts is the report's Charts, or the charts directory (drawn when gnuplot is there)."""
    matrix, sweep = _load(out_dir, "net_matrix"), _load(out_dir, "node_sweep")
    if not isinstance(charts, Charts):
        charts = Charts(os.path.dirname(os.path.abspath(charts)), True)
    mpi = report_cluster_mpi.section(out_dir, charts)
    if matrix is None and sweep is None and not mpi:
        return []
    lines = ["## Cluster", ""] + (_node_lines(matrix or sweep) if matrix or sweep else [])
    for doc in (matrix, sweep):
        warn = doc.context.get("warnings") if doc else None
        if warn:
            lines += [f"Warning: {w}." for w in warn.split(";")] + [""]
            break
    if matrix is not None:
        lines += _matrix_lines(matrix, out_dir, charts)
    if sweep is not None:
        lines += _sweep_lines(sweep)
    return lines + mpi


if __name__ == "__main__":
    import sys
    print("\n".join(section(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else
                             os.path.join(sys.argv[1], "charts"))))
