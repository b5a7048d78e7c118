"""The report's MPI part of the cluster section: the transport line, clusterbench's mpi_p2p
(per message size: latency p50/p99, bandwidth, bidirectional bandwidth, message rate) and
mpi_coll tables, a latency-vs-size and a bandwidth-vs-size chart, beside hpcc's b_eff
(raw/cluster-hpcc.json, scripts/cluster_hpcc.sh) and OSU or IMB where they ran
(raw/cluster-osu.json, cluster_osu.py), and HPL across the nodes against the sum of their
FP64 peaks (docs/cluster.md)."""
import json
import os
import statistics

from ..charts.chart_gp import LineChart, Series, log2_axis, value_axis
from ..charts.charts import Charts, blk, num
from ..core import schema
from ..merge import merge

# clusterbench's MPI rows (suite cluster, variant mpi, block_bytes = message size).
P2P = (("mpi_p2p_latency", "latency p50 (us)", "p50", statistics.median),
       ("mpi_p2p_latency", "latency p99 (us)", "p99", max),
       ("mpi_p2p_bw", "bandwidth (MB/s)", "median", statistics.median),
       ("mpi_p2p_bibw", "bidirectional (MB/s)", "median", statistics.median),
       ("mpi_p2p_msgrate", "message rate (Mmsg/s)", "median", statistics.median))
REF_FILES = ("cluster-hpcc.json", "cluster-osu.json")
# The sizes the side-by-side table shows (the charts show every size): the small-message
# latency, b_eff's 2,000,000-byte bandwidth point and the largest message.
BESIDE_SIZES = (8, 2000000, 2097152, 4194304)
NEAR = 0.05  # a reference size within 5% of one of ours is that size (b_eff's 2,000,000 B)


def _fmt(v, digits=3) -> str:
    return "-" if v is None else f"{v:.{digits}g}"


def _value(r: dict, field: str):
    v = r.get(field)
    return v if isinstance(v, (int, float)) else r.get("mean")


def load(out_dir: str, test: str) -> tuple:
    """(context, rows) of clusterbench's raw/cluster-<test>.json, or ({}, [])."""
    got = merge.cluster_step(out_dir, test, [])
    return got if got else ({}, [])


def references(out_dir: str) -> tuple:
    """(rows, docs) of the reference tools' cluster files (hpcc, OSU/IMB): rows carry "tool"."""
    rows, docs = [], []
    for name in REF_FILES:
        for d in (os.path.join(out_dir, "raw"), out_dir):
            path = os.path.join(d, name)
            if os.path.isfile(path):
                try:
                    with open(path) as f:
                        doc = json.load(f)
                except (OSError, ValueError):
                    break
                docs.append(doc)
                rows += [r for r in doc.get("rows") or [] if isinstance(r, dict)]
                break
    return rows, docs


def by_size(rows: list, test: str, field: str, agg) -> dict:
    """{message bytes: the figure over every pair (agg of each pair's field)}."""
    vals: dict = {}
    for r in rows:
        v = _value(r, field)
        if r.get("test") == test and r.get("block_bytes") is not None and isinstance(v, (int, float)):
            vals.setdefault(int(r["block_bytes"]), []).append(v)
    return {k: agg(v) for k, v in vals.items()}


def transport_lines(ctxs: list) -> list:
    """One line: what MPI ran over (mpi.transport) per node, the PML and BTLs, any fallback."""
    ctx = next((c for c in ctxs if c.get("mpi.transport")), None)
    if ctx is None:
        return []
    nodes = [n for n in ctx.get(schema.NODES_KEY) or [] if n.get("mpi.transport")]
    ways = sorted({n["mpi.transport"] for n in nodes}) or [ctx["mpi.transport"]]
    line = (f"Transport: {'; '.join(ways)} (pml {ctx.get('mpi.pml', '?')}, btl {ctx.get('mpi.btl', '?')}"
            f"; the interface whose byte counter moved by the bytes MPI sent)")
    out = [line + ".", ""]
    falls = [w for w in (ctx.get("warnings") or "").split(";") if "fell back to TCP" in w]
    out += [f"Warning: {w.strip()}." for w in falls] + ([""] if falls else [])
    return out


def p2p_table(rows: list) -> list:
    sizes = sorted({int(r["block_bytes"]) for r in rows if r.get("test", "").startswith("mpi_p2p")
                    and r.get("block_bytes") is not None})
    if not sizes:
        return []
    cols = [by_size(rows, t, f, agg) for t, _, f, agg in P2P]
    pairs = {(r.get("host"), r.get("peer")) for r in rows if r.get("test", "").startswith("mpi_p2p")}
    lines = [f"MPI point-to-point ({len(pairs)} pair(s); latency is half the round trip; MB = 10^6 B; "
             "p50 is the median over the pairs of each pair's p50, p99 the worst pair's):", "",
             "| size | " + " | ".join(w for _, w, _, _ in P2P) + " |", "| --- |" + " --- |" * len(P2P)]
    for s in sizes:
        lines.append(f"| {blk(s)} | " + " | ".join(_fmt(c.get(s)) for c in cols) + " |")
    return lines + [""]


def coll_table(rows: list) -> list:
    ops = sorted({r["test"] for r in rows if r.get("test", "").startswith("mpi_coll_")})
    if not ops:
        return []
    sizes = sorted({int(r["block_bytes"] or 0) for r in rows if r.get("test") in ops})
    cells = {op: by_size([dict(r, block_bytes=r.get("block_bytes") or 0) for r in rows], op, "p50",
                         statistics.median) for op in ops}
    lines = ["MPI collectives (each iteration timed as the slowest rank's; p50 in us):", "",
             "| size | " + " | ".join(op[len("mpi_coll_"):] for op in ops) + " |",
             "| --- |" + " --- |" * len(ops)]
    for s in sizes:
        lines.append(f"| {blk(s) if s else '-'} | " + " | ".join(_fmt(cells[op].get(s)) for op in ops) + " |")
    return lines + [""]


def _tool_series(refs: list, test: str) -> dict:
    """{tool: {bytes: figure}} of the reference rows for our test."""
    out: dict = {}
    for r in refs:
        if r.get("test") == test and r.get("block_bytes") and isinstance(r.get("mean"), (int, float)):
            out.setdefault(r.get("tool", "?"), {})[int(r["block_bytes"])] = r["mean"]
    return out


def _chart(charts: Charts, fig: str, title: str, ylabel: str, series: list) -> str:
    """series: [(name, {bytes: value})]; the PNG's path, or '' when nothing to draw."""
    series = [(n, s) for n, s in series if s]
    if not series:
        return ""
    xs = sorted({x for _, s in series for x in s})
    lines = ["message_bytes" + "".join(f' "{n}"' for n, _ in series)]
    lines += [str(x) + "".join(" " + num(s.get(x)) for _, s in series) for x in xs]
    charts.write(fig, lines)
    vals = [v for _, s in series for v in s.values()]
    chart = LineChart(title, log2_axis(xs, "message size (bytes)", blk), value_axis(vals, ylabel),
                      [Series(n, 2 + i, n) for i, (n, _) in enumerate(series)])
    charts.line_chart(fig, chart)
    return os.path.join(charts.dir, fig + ".png") if charts.have(fig) else ""


def charts_lines(rows: list, refs: list, out_dir: str, charts: Charts) -> list:
    lat = [("ours p50", by_size(rows, "mpi_p2p_latency", "p50", statistics.median)),
           ("ours p99", by_size(rows, "mpi_p2p_latency", "p99", max))]
    lat += [(t, s) for t, s in _tool_series(refs, "mpi_p2p_latency").items()]
    bw = [("ours bw", by_size(rows, "mpi_p2p_bw", "median", statistics.median)),
          ("ours bibw", by_size(rows, "mpi_p2p_bibw", "median", statistics.median))]
    bw += [(t, s) for t, s in _tool_series(refs, "mpi_p2p_bw").items()]
    bw += [(t + " bibw", s) for t, s in _tool_series(refs, "mpi_p2p_bibw").items()]
    lines = []
    for fig, title, unit, series in (
            ("cluster-mpi-latency", "MPI latency vs message size (half round trip)", "latency (us)", lat),
            ("cluster-mpi-bandwidth", "MPI bandwidth vs message size (MB = 10^6 B)", "MB/s", bw)):
        png = _chart(charts, fig, title, unit, series)
        if png:
            lines += [f"![{title}]({os.path.relpath(png, out_dir)})", ""]
    return lines


def beside_lines(rows: list, refs: list) -> list:
    """Every reference figure keyed to a test of ours, ours at the same (or nearest) size."""
    ours = {t: by_size(rows, t, "p50" if "latency" in t else "median", statistics.median)
            for t in ("mpi_p2p_latency", "mpi_p2p_bw", "mpi_p2p_bibw")}
    lines = []
    for r in refs:
        t, b = r.get("test"), r.get("block_bytes")
        if t not in ours or b not in BESIDE_SIZES or not isinstance(r.get("mean"), (int, float)):
            continue
        have = ours[t]
        near = min(have, key=lambda s: abs(s - int(b))) if have else None
        if near is not None and abs(near - int(b)) > NEAR * int(b):
            near = None
        v = have.get(near) if near is not None else None
        ratio = v / r["mean"] if v and r["mean"] else None
        at = f" (ours at {blk(near)})" if near is not None and near != int(b) else ""
        lines.append(f"| {t[len('mpi_p2p_'):]} | {blk(b)}{at} | {_fmt(v)} | {r.get('tool')} | "
                     f"{_fmt(r['mean'])} | {_fmt(ratio)} | {r.get('unit')} |")
    if not lines:
        return []
    return (["Beside the reference tools (ours: the median over the pairs; hpcc's b_eff: its "
             "average over the pairs it picks):", "",
             "| figure | size | ours | tool | tool's | ours / tool | unit |",
             "| --- | --- | --- | --- | --- | --- | --- |"] + lines + [""])


def ring_lines(refs: list) -> list:
    rings = [r for r in refs if str(r.get("test", "")).startswith("hpcc_ring_")]
    if not rings:
        return []
    lines = ["hpcc's b_eff rings (per process; no figure of ours measures a ring): " + "; ".join(
        f"{r['test'][len('hpcc_ring_'):]} {r['metric']} {_fmt(r['mean'])} {r['unit']}" for r in rings) + ".", ""]
    return lines


def hpl_lines(refs: list, docs: list) -> list:
    hpl = next((r for r in refs if r.get("test") == "hpl"), None)
    skipped = [s for d in docs if d.get("tool") == "hpcc" for s in d.get("skipped") or []]
    if hpl is None:
        return [f"HPL across the nodes: not run ({skipped[0].get('reason')}).", ""] if skipped else []
    nodes = next((d.get("nodes") for d in docs if d.get("tool") == "hpcc" and d.get("nodes")), []) or []
    peaks = ", ".join(f"{n.get('host')} {_fmt(n.get('fp64_gflops'))}" for n in nodes)
    eff = hpl.get("efficiency")
    lines = [f"HPL across the nodes ({hpl.get('job')}): **{_fmt(hpl['mean'])} GFLOPS** of "
             f"{_fmt(hpl.get('theoretical'))} GFLOPS, the sum of the nodes' FP64 peaks ({peaks}): "
             f"efficiency {_fmt(100 * eff) + '%' if eff is not None else 'unknown (' + hpl.get('flags', '') + ')'}.", ""]
    return lines


def hpl_headline(out_dir: str) -> list:
    """[(label, value, where)] of HPL across the nodes for the summary; [] when not run."""
    refs, docs = references(out_dir)
    hpl = next((r for r in refs if r.get("test") == "hpl" and isinstance(r.get("mean"), (int, float))), None)
    if hpl is None:
        return []
    nodes = next((d.get("nodes") for d in docs if d.get("tool") == "hpcc" and d.get("nodes")), []) or []
    eff = hpl.get("efficiency")
    value = f"{_fmt(hpl['mean'])} GFLOPS" + (f" ({_fmt(100 * eff)}% of the nodes' summed peak)" if eff else "")
    return [(f"HPL across {len(nodes) or '?'} nodes (hpcc)", value, hpl.get("config") or "")]


def section(out_dir: str, charts) -> list:
    """Markdown lines of the MPI part; [] when the run has neither MPI rows nor hpcc's."""
    p2p_ctx, p2p = load(out_dir, "mpi_p2p")
    coll_ctx, coll = load(out_dir, "mpi_coll")
    refs, docs = references(out_dir)
    if not p2p and not coll and not docs:
        return []
    if not isinstance(charts, Charts):
        charts = Charts(os.path.dirname(os.path.abspath(charts)), True)
    ctxs = [p2p_ctx, coll_ctx] + [load(out_dir, t)[0] for t in ("net_matrix", "node_sweep")]
    lines = ["### MPI: point-to-point, collectives, hpcc", ""] + transport_lines(ctxs)
    rows = p2p + coll
    lines += p2p_table(rows) + charts_lines(rows, refs, out_dir, charts) + beside_lines(rows, refs)
    lines += ring_lines(refs) + coll_table(rows) + hpl_lines(refs, docs)
    return lines


if __name__ == "__main__":
    import sys
    print("\n".join(section(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else
                             os.path.join(sys.argv[1], "charts"))))
