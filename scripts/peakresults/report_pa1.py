"""The report's lead: PA1's table layout. One table per workload (suite, test, variant,
metric): block sizes as rows, thread counts as columns, mean ± stddev per cell; beside,
the best efficiency of the row and the reference tool's figure."""
from .report_fmt import cell, fmt, human, isnum, warnings, workload

# Per-connection detail stays in the appendix: the workload's own row is the figure.
DETAIL_METRICS = frozenset({"throughput_conn"})


def workloads(rows: list[dict]) -> list[tuple]:
    order, by = [], {}
    for r in rows:
        if r.get("metric") in DETAIL_METRICS or r.get("threads") is None:
            continue
        k = (r["suite"], r["test"], r["variant"], r["metric"], r["unit"])
        if k not in by:
            by[k] = []
            order.append(k)
        by[k].append(r)
    return [(k, by[k]) for k in order]


def pa1_table(rows: list[dict]) -> list[str]:
    threads = sorted({int(r["threads"]) for r in rows})
    blocks = sorted({int(r.get("block_bytes") or 0) for r in rows})
    cellv, best_eff, ref, notes = {}, {}, {}, {}
    for r in rows:
        b, t = int(r.get("block_bytes") or 0), int(r["threads"])
        if r.get("n") and isnum(r.get("mean")):
            sd = r.get("stddev") if isnum(r.get("stddev")) else 0
            cellv[b, t] = f"{fmt(r['mean'])} ± {fmt(sd)}"
        else:
            cellv[b, t] = "not measured"
        if isnum(r.get("efficiency")) and r["efficiency"] > best_eff.get(b, (-1, 0))[0]:
            best_eff[b] = (r["efficiency"], t)
        if isnum(r.get("baseline")):
            ref.setdefault(b, []).append(f"{fmt(r['baseline'])} ({r['baseline_tool']}, {t}t)")
        for w in warnings(r.get("flags")):
            notes.setdefault(b, [])
            if w not in notes[b]:
                notes[b].append(w)
    head = "| Block size | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads)
    out = [head + " | Efficiency (best) | Reference | Notes |",
           "| ---: | " + " | ".join("---:" for _ in threads) + " | ---: | ---: | --- |"]
    for b in blocks:
        e = best_eff.get(b)
        out.append(f"| {human(b) if b else '–'} | "
                   + " | ".join(cellv.get((b, t), "–") for t in threads)
                   + f" | {f'{e[0] * 100:.1f}% ({e[1]}t)' if e else '–'} | {'; '.join(ref.get(b, [])) or '–'}"
                   + f" | {', '.join(notes.get(b, []))} |")
    return out


def section(rows: list[dict]) -> list[str]:
    out = []
    for k, rs in workloads(rows):
        r0 = rs[0]
        out += ["", f"#### {cell(workload(r0))}, {r0['metric']} ({r0['unit']}): mean ± stddev over the repetitions", ""]
        out += pa1_table(rs)
    return out
