"""The report's lead: PA1's table layout. One table per workload (suite, test, metric):
block sizes as rows, thread counts as columns, mean ± stddev per cell; beside, the row's
best efficiency and the reference tool's figure. When a workload ran several variants
(membench's scalar kernel for 8 B blocks and its SIMD one for larger, diskbench's engines,
cpubench's ISAs), each row names its variant."""
from . import pick
from .report_fmt import METRIC_LABEL, cell, fmt, human, isnum, warnings

# Per-connection detail stays in the appendix: the workload's own row is the figure.
DETAIL_METRICS = frozenset({"throughput_conn"})


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


def pa1_table(rows: list[dict]) -> list[str]:
    threads = sorted({int(r["threads"]) for r in rows})
    variants = _variants(rows)
    many = len(variants) > 1
    keys = sorted({(int(r.get("block_bytes") or 0), variants.index(r.get("variant"))) for r in rows})
    cellv, with_eff, ref, notes = {}, {}, {}, {}
    for r in rows:
        k = (int(r.get("block_bytes") or 0), variants.index(r.get("variant")))
        t = int(r["threads"])
        if r.get("n") and isnum(r.get("mean")):
            sd = r.get("stddev") if isnum(r.get("stddev")) else 0
            cellv[k, t] = f"{fmt(r['mean'])} ± {fmt(sd)}"
        else:
            cellv[k, t] = "not measured"
        if isnum(r.get("efficiency")):
            with_eff.setdefault(k, []).append(r)
        if isnum(r.get("baseline")):
            ref.setdefault(k, []).append(f"{fmt(r['baseline'])} ({r['baseline_tool']}, {t}t)")
        for w in warnings(r.get("flags")):
            if w not in notes.setdefault(k, []):
                notes[k].append(w)
    blockless = all(b == 0 for b, _ in keys)
    first = ("Variant" if blockless else "Block size (variant)") if many else "Block size"
    head = f"| {first} | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads)
    out = [head + " | Efficiency (best) | Reference | Notes |",
           "| ---: | " + " | ".join("---:" for _ in threads) + " | ---: | ---: | --- |"]
    for k in keys:
        b, v = k
        label = human(b) if b else "–"
        if many:
            label = variants[v] if blockless else f"{label} ({variants[v]})"
        out.append(f"| {cell(label)} | " + " | ".join(cellv.get((k, t), "–") for t in threads)
                   + f" | {best_efficiency(with_eff.get(k, []))} | {'; '.join(ref.get(k, [])) or '–'}"
                   + f" | {', '.join(notes.get(k, []))} |")
    return out


def heading(k, rows) -> str:
    suite, test, metric, unit = k
    vs = _variants(rows)
    name = test + (f" ({vs[0]})" if len(vs) == 1 and vs[0] else "")
    what = METRIC_LABEL.get(metric, metric)
    return f"#### {cell(name)}: {what} ({unit}), mean ± stddev over the repetitions"


def section(rows: list[dict]) -> list[str]:
    out = []
    for k, rs in workloads(rows):
        out += ["", heading(k, rs), ""] + pa1_table(rs)
    return out
