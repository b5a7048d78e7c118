"""The report's cluster section: clusterbench's results (OUT/raw/cluster-*.json, written by
scripts/cluster_run.sh) as N x N heatmaps, outlier pairs, a per-node table and one
sentence each for the slowest link and the slowest node (docs/cluster.md)."""
import glob
import json
import os
import shutil
import subprocess

GNUPLOT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gnuplot")
MAX_CELL_VALUES = 16  # above this many nodes the cells are too small for numbers


def _load(out_dir: str, test: str):
    for sub in ("raw", ""):
        path = os.path.join(out_dir, sub, f"cluster-{test}.json")
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as f:
                    return json.load(f)
            except (OSError, ValueError):
                return None
    return None


def _fmt(v, digits=3) -> str:
    if v is None:
        return ""
    return f"{v:.{digits}g}"


def _hosts(doc: dict) -> list[str]:
    names = [n.get("host", "") for n in doc.get("context", {}).get("nodes", [])]
    for r in doc.get("results", []):
        for h in (r.get("host"), r.get("peer")):
            if h and h != "all" and h not in names:
                names.append(h)
    return names


def _matrix(rows: list[dict], variant: str, metric: str, field: str) -> dict:
    return {(r["host"], r["peer"]): r.get(field) for r in rows
            if r.get("test") == "net_matrix" and r.get("variant") == variant
            and r.get("metric") == metric}


def _heatmap(cells: dict, hosts: list[str], charts_dir: str, name: str, title: str,
             cblab: str, reverse: bool) -> str:
    """Draw one heatmap; the PNG's path, or '' (no gnuplot, no cells, gnuplot failed)."""
    if not cells or not shutil.which("gnuplot"):
        return ""
    os.makedirs(charts_dir, exist_ok=True)
    dat = os.path.join(charts_dir, f"{name}.dat")
    png = os.path.join(charts_dir, f"{name}.png")
    idx = {h: i for i, h in enumerate(hosts)}
    with open(dat, "w", encoding="utf-8") as f:
        for (h, p), v in cells.items():
            if v is not None and h in idx and p in idx:
                f.write(f"{idx[p]} {idx[h]} {v} {_fmt(v)}\n")
    # gnuplot's word() splits on blanks: names with blanks are shown with '_'.
    names = " ".join(h.replace(" ", "_").replace('"', "") for h in hosts)
    args = ["gnuplot", "-e", f'data="{dat}"; out="{png}"; n={len(hosts)}; names="{names}"; '
            f'ttl="{title}"; cblab="{cblab}"; reverse={int(reverse)}; '
            f'show_values={int(len(hosts) <= MAX_CELL_VALUES)}',
            os.path.join(GNUPLOT_DIR, "heatmap.gp")]
    res = subprocess.run(args, capture_output=True, text=True, check=False)
    return png if res.returncode == 0 and os.path.isfile(png) else ""


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


def _matrix_lines(doc: dict, out_dir: str, charts_dir: str) -> list[str]:
    rows = doc.get("results", [])
    hosts = _hosts(doc)
    bw = _matrix(rows, "tcp", "throughput", "median")
    lat = _matrix(rows, "tcp", "latency", "p50")
    if not bw and not lat:
        return []
    sched = _flag(next((r["flags"] for r in rows if r.get("test") == "net_matrix"), ""), "schedule")
    lines = [f"### Network matrix ({len(hosts)} nodes, {sched or '?'} schedule)", "",
             "TCP throughput counted at the receiver (median of the repetitions, Gbit/s) and "
             "TCP round-trip latency p50 (us), sender on the rows, receiver in the columns; "
             "measured over netbench's own TCP/UDP code, MPI only starts the rounds.", ""]
    for cells, name, title, unit, rev in ((bw, "cluster-throughput", "TCP throughput", "Gbit/s", False),
                                          (lat, "cluster-latency", "TCP round trip p50", "us", True)):
        png = _heatmap(cells, hosts, charts_dir, name, f"{title} ({unit})", unit, rev)
        if png:
            lines += [f"![{title}]({os.path.relpath(png, out_dir)})", ""]
        lines += [f"{title} ({unit}):", ""] + _table(cells, hosts) + [""]
    outl = [r for r in rows if r.get("test") == "net_matrix" and "outlier=" in (r.get("flags") or "")]
    lines.append("Outlier pairs (latency p50 over the rule's multiple of the smallest, or "
                 "throughput under its fraction of the largest; each re-measured once, alone, "
                 "and reported as re-measured):")
    lines.append("")
    if outl:
        lines += ["| sender | receiver | figure | now | first pass | rule |", "| --- | --- | --- | --- | --- | --- |"]
        for r in outl:
            v = r.get("p50") if r["metric"] == "latency" else r.get("median")
            first = _flag(r["flags"], "first_p50_us" if r["metric"] == "latency" else "first_gbps")
            rule = ",".join(p.split("=", 1)[1] for p in r["flags"].split(";") if p.startswith("outlier="))
            lines.append(f"| {r['host']} | {r['peer']} | {r['variant']} {r['metric']} | "
                         f"{_fmt(v)} {r['unit']} | {first} | {rule} |")
    else:
        lines.append("none.")
    lines.append("")
    loss = [r for r in rows if r.get("metric") == "loss" and (r.get("median") or 0) > 0]
    if loss:
        lines.append("UDP loss at the sender's rate: " + "; ".join(
            f"{r['host']} -> {r['peer']} {_fmt(r['median'])}%" for r in loss) + ".")
        lines.append("")
    if bw:
        (h, p), v = min(((k, v) for k, v in bw.items() if v is not None), key=lambda kv: kv[1])
        best = max(v2 for v2 in bw.values() if v2 is not None)
        lines.append(f"Slowest link: {h} -> {p} at {_fmt(v)} Gbit/s "
                     f"({_fmt(100 * v / best if best else 0)}% of the fastest pair's {_fmt(best)}).")
        lines.append("")
    return lines


def _sweep_lines(doc: dict) -> list[str]:
    rows = [r for r in doc.get("results", []) if r.get("test") == "node_sweep"]
    if not rows:
        return []
    hosts = [h for h in _hosts(doc) if h != "all"]
    points = []
    for r in rows:
        if r["variant"] not in points:
            points.append(r["variant"])
    lines = ["### Per-node sweep", "",
             "The same short points on every node at the same time (medians); "
             "min/median/max/spread across nodes; a node is flagged slow when even its best "
             "repetition trails the nodes' median by more than 5%.", "",
             "| point | unit | " + " | ".join(hosts) + " | min | median | max | spread | slow |",
             "| --- | --- |" + " --- |" * (len(hosts) + 5)]
    slow_count: dict = {}
    worst = None
    for pt in points:
        by = {r["host"]: r for r in rows if r["variant"] == pt}
        agg = by.get("all")
        if agg is None:
            continue
        cells = []
        for h in hosts:
            r = by.get(h)
            if r is None or r.get("median") is None:
                cells.append((r or {}).get("flags", "").split(":")[0] or "-")
                continue
            mark = " (slow)" if "slow_node" in (r.get("flags") or "") else ""
            if mark:
                slow_count[h] = slow_count.get(h, 0) + 1
                rel = float(_flag(r["flags"], "vs_median") or 1)
                gap = abs(1 - rel)
                if worst is None or gap > worst[0]:
                    worst = (gap, h, pt, rel)
            cells.append(_fmt(r["median"]) + mark)
        lines.append(f"| {pt} | {agg['unit']} | " + " | ".join(cells) + f" | {_fmt(agg['min'])} | "
                     f"{_fmt(agg['median'])} | {_fmt(agg['max'])} | "
                     f"{_fmt(100 * float(_flag(agg['flags'], 'spread') or 0))}% | "
                     f"{_flag(agg['flags'], 'slow_nodes')} |")
    lines.append("")
    if worst:
        lines.append(f"Slowest node: {worst[1]}, slow on {slow_count[worst[1]]} point(s); "
                     f"worst {worst[2]} at {_fmt(worst[3])}x the nodes' median.")
    else:
        lines.append("Slowest node: none beyond its own noise.")
    lines.append("")
    return lines


def headlines(out_dir: str) -> list[tuple]:
    """The summary's cluster figures: (label, value, where) for the median and the slowest
    TCP link of the matrix; [] without one."""
    matrix = _load(out_dir, "net_matrix")
    if matrix is None:
        return []
    bw = {k: v for k, v in _matrix(matrix.get("results", []), "tcp", "throughput", "median").items() if v is not None}
    if not bw:
        return []
    vals = sorted(bw.values())
    mid = vals[len(vals) // 2] if len(vals) % 2 else (vals[len(vals) // 2 - 1] + vals[len(vals) // 2]) / 2
    (h, p), low = min(bw.items(), key=lambda kv: kv[1])
    return [("TCP throughput, median link", f"{_fmt(mid)} Gbit/s", f"{len(bw)} links"),
            ("TCP throughput, slowest link", f"{_fmt(low)} Gbit/s", f"{h} -> {p}")]


def section(out_dir: str, charts_dir: str) -> list[str]:
    """Markdown lines of the cluster section; [] when the run has no cluster results."""
    matrix, sweep = _load(out_dir, "net_matrix"), _load(out_dir, "node_sweep")
    if matrix is None and sweep is None:
        return []
    lines = ["## Cluster", ""]
    ctx = (matrix or sweep).get("context", {})
    nodes = ctx.get("nodes", [])
    if nodes:
        lines += ["| node | CPU | kernel | ISA | CPUs |", "| --- | --- | --- | --- | --- |"]
        lines += [f"| {n.get('host')} | {n.get('cpu.model')} | {n.get('kernel')} | {n.get('isa')} | "
                  f"{n.get('cpu.logical')} |" for n in nodes]
        lines.append("")
    for doc in (matrix, sweep):
        warn = (doc or {}).get("context", {}).get("warnings")
        if warn:
            lines += [f"Warning: {w}." for w in warn.split(";")] + [""]
            break
    if matrix is not None:
        lines += _matrix_lines(matrix, out_dir, charts_dir)
    if sweep is not None:
        lines += _sweep_lines(sweep)
    return lines


if __name__ == "__main__":
    import sys
    print("\n".join(section(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else
                             os.path.join(sys.argv[1], "charts"))))
