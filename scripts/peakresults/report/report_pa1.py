"""The report's lead: PA1's table layout. One table per workload (suite, test, metric):
block sizes as rows, thread counts as columns, mean ± stddev per cell; beside, the row's
best efficiency and the reference tool's figure (columns with nothing in them are left out).
When a workload ran several variants (membench's scalar kernel for 8 B blocks and its SIMD
one for larger, cpubench's ISAs), each row names its variant; diskbench's engines are
alternatives for the same point, so a disk cell holds the best engine's figure, named; a
workload of one thread count (the latency sweep, dpdkbench) has its variants as columns.
report.md shows each suite's main figures (MAIN); the rest is in the appendix."""
from ..core import pick, schema
from .report_fmt import METRIC_LABEL, cell, fmt, human, isnum, warnings

# Per-connection detail stays in the appendix: the workload's own row is the figure.
DETAIL_METRICS = frozenset({"throughput_conn"})
# What report.md shows per suite, as (test prefix or "", metric, unit or ""); everything else
# (the clock per kernel, cycles beside ns, IOPS and latency beside disk throughput, CPU use
# and transactions beside a transfer, dpdk's tester side and Gbit/s beside Mpps) is in the
# appendix's per-row tables.
MAIN = {
    "cpu": [("", "flops", ""), ("", "iops_int", "")],
    "memory": [("", "throughput", ""), ("", "latency", "ns")],
    "disk": [("", "throughput", "")],
    "network": [("", "throughput", ""), ("", "latency", ""), ("", "loss", "")],
    "dpdk": [("rx_loopback", "throughput", "Mpps"), ("rx_dut", "throughput", "Mpps"),
             ("latency_loopback", "latency", ""), ("latency_roundtrip", "latency", "")],
}
# A sweep of more sizes than this (membench's latency curve: 4 points per power of two up to
# 1 GiB) shows its powers of two in report.md; every point is in the appendix and the chart.
MAX_SWEEP_ROWS = 24
# What block_bytes is, where it is not a block: the pointer chase's working set, a frame.
SIZE_NAMES = {("memory", "latency"): "Working set", "dpdk": "Frame"}
# Suites whose variants are alternative ways to measure the same point (a cell shows the best).
BEST_OF_VARIANTS = frozenset({"disk"})


def is_main(r: dict) -> bool:
    rules = MAIN.get(r["suite"])
    if rules is None:
        return True
    return any((r["test"] or "").startswith(t) and r["metric"] == m and (not u or r["unit"] == u) for t, m, u in rules)


def workloads(rows: list[dict]) -> list[tuple]:
    order, by = [], {}
    for r in rows:
        if r.get("metric") in DETAIL_METRICS or r.get("threads") is None:
            continue
        k = (r["suite"], r["test"], r["metric"], r["unit"])
        if k not in by:
            by[k] = []
            order.append(k)
        by[k].append(r)
    return [(k, by[k]) for k in order]


def _variants(rows):
    out = []
    for r in rows:
        if r.get("variant") not in out:
            out.append(r.get("variant"))
    return out


def best_efficiency(rows: list[dict]) -> str:
    """The Efficiency (best) cell: the best unflagged row's, or the best flagged one's named so."""
    r, why = pick.best(rows, lambda x: x["efficiency"])
    if r is None:
        return "–"
    return f"{r['efficiency'] * 100:.1f}% ({int(r['threads'])}t" + (f", {pick.fallback_note(why)})" if why else ")")


def _measured(r: dict) -> bool:
    return bool(r.get("n")) and isnum(r.get("mean"))


def _value(r: dict) -> str:
    if not _measured(r):
        return "not measured"
    return f"{fmt(r['mean'])} ± {fmt(r['stddev'] if isnum(r.get('stddev')) else 0)}"


def _best_of(rows: list[dict]) -> dict:
    """The row that stands for a cell of alternatives: the best measured one (pick.best)."""
    sign = -1 if schema.lower_is_better(rows[0]) else 1
    got = [r for r in rows if _measured(r)]
    return pick.best(got, lambda x: sign * x["mean"])[0] if got else rows[0]


def layout(suite: str, rows: list[dict]) -> str:
    """"threads" (thread counts as columns), "best" (the same, a cell the best variant) or
    "variants" (one thread count: the variants as columns, block sizes as rows)."""
    variants = _variants(rows)
    if suite in BEST_OF_VARIANTS and len(variants) > 1:
        return "best"
    blockless = all(not r.get("block_bytes") for r in rows)
    if len(variants) > 1 and not blockless and len({r["threads"] for r in rows}) == 1:
        return "variants"
    return "threads"


def pa1_table(rows: list[dict], how: str = "threads") -> list[str]:
    variants = _variants(rows)
    threads = sorted({int(r["threads"]) for r in rows})
    blockless = all(not r.get("block_bytes") for r in rows)
    many = len(variants) > 1 and how == "threads"
    cols = variants if how == "variants" else threads

    def rkey(r):  # the table row of a result row
        b = int(r.get("block_bytes") or 0)
        return (b, variants.index(r.get("variant"))) if many else (b, 0)

    def ckey(r):
        return r.get("variant") if how == "variants" else int(r["threads"])

    group, with_eff, ref, notes = {}, {}, {}, {}
    for r in rows:
        k = rkey(r)
        group.setdefault((k, ckey(r)), []).append(r)
        if isnum(r.get("efficiency")):
            with_eff.setdefault(k, []).append(r)
        if isnum(r.get("baseline")):
            who = r["baseline_tool"] + (f" vs {r['variant']}" if how == "best" else "")  # which engine's
            ref.setdefault(k, []).append(f"{fmt(r['baseline'])} ({who}, {int(r['threads'])}t)")
        for w in warnings(r.get("flags")):
            if w not in notes.setdefault(k, []):
                notes[k].append(w)
    cellv = {}
    for (k, c), rs in group.items():
        r = _best_of(rs) if how == "best" else rs[0]
        cellv[k, c] = _value(r) + (f" ({r['variant']})" if how == "best" and _measured(r) else "")
    keys = sorted({k for k, _ in group})
    if how == "variants" and len(keys) > MAX_SWEEP_ROWS:
        top = keys[-1]
        keys = [k for k in keys if k == top or (k[0] > 0 and k[0] & (k[0] - 1) == 0)]
    size = SIZE_NAMES.get((rows[0]["suite"], rows[0]["test"]), SIZE_NAMES.get(rows[0]["suite"], "Block size"))
    if blockless and many:
        first = "Variant"
    else:
        first = f"{size} (variant)" if many else size
    heads = [f"{t} thread{'s' if t > 1 else ''}" for t in threads] if how != "variants" else [str(v) for v in variants]
    extra = [("Efficiency (best)", {k: best_efficiency(with_eff[k]) for k in with_eff}),
             ("Reference", {k: "; ".join(v) for k, v in ref.items()}),
             ("Notes", {k: ", ".join(v) for k, v in notes.items() if v})]
    extra = [(h, vals) for h, vals in extra if vals]  # a column with nothing in it is left out
    # names to the left, sizes and figures to the right
    rule = ["---" if first == "Variant" else "---:"] + ["---:"] * len(heads) + \
        ["---" if h == "Notes" else "---:" for h, _ in extra]
    out = ["| " + " | ".join([first] + heads + [h for h, _ in extra]) + " |", "| " + " | ".join(rule) + " |"]
    for k in keys:
        b, v = k
        label = human(b) if b else "–"
        if many:
            label = variants[v] if blockless else f"{label} ({variants[v]})"
        out.append("| " + " | ".join([cell(label)] + [cellv.get((k, c), "–") for c in cols]
                                     + [vals.get(k, "–" if h != "Notes" else "") for h, vals in extra]) + " |")
    return out


def heading(k, rows, how: str = "threads") -> str:
    suite, test, metric, unit = k
    vs = _variants(rows)
    name = test + (f" ({vs[0]})" if len(vs) == 1 and vs[0] else "")
    what = METRIC_LABEL.get(metric, metric)
    tail = {"best": ", the best engine per cell", "variants": f", {int(rows[0]['threads'])} thread(s)"}.get(how, "")
    if how == "variants" and len({r.get("block_bytes") for r in rows}) > MAX_SWEEP_ROWS:
        tail += ", powers of two (every point: the appendix)"
    return f"#### {cell(name)}: {what} ({unit}){tail}"


def section(rows: list[dict], main_only: bool = True) -> list[str]:
    """The suite's PA1 tables (main_only: the figures MAIN names)."""
    out = []
    for k, rs in workloads([r for r in rows if is_main(r) or not main_only]):
        how = layout(k[0], rs)
        out += ["", heading(k, rs, how), ""] + pa1_table(rs, how)
    return out
