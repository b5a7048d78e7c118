"""The per-row tables (one line per row, as report.sh wrote them): the appendix's body."""
import re

from .report_fmt import cell, eff, fmt, human, isnum, value, warnings, workload


def select(rows, suite, test_re="", metric_re="", vre="", xre=None):
    return [r for r in rows if r["suite"] == suite and re.search(test_re, r["test"] or "")
            and re.search(metric_re, r["metric"] or "") and re.search(vre, r["variant"] or "")
            and not (xre and re.search(xre, r["variant"] or ""))]


def table(rows: list[dict], pct: bool = False) -> list[str]:
    """PA1 order: each workload in the order the suite reported it, then block, then threads."""
    if not rows:
        return []
    wid = {}
    keyed = []
    for i, r in enumerate(rows):
        wk = (r["test"], r["variant"], r["metric"], r["unit"])
        wid.setdefault(wk, len(wid))
        keyed.append(((wid[wk], int(r.get("block_bytes") or 0), int(r.get("threads") or 0), i), r))
    keyed.sort(key=lambda t: t[0])
    head = "| Workload | Concurrency | Block size | Value (mean ± stddev, N runs) |"
    rule = "| --- | ---: | ---: | ---: |"
    if pct:
        head += " p50 | p99 | p99.9 |"
        rule += " ---: | ---: | ---: |"
    out = [head + " Theoretical | Efficiency | Baseline | Baseline ratio | Notes |",
           rule + " ---: | ---: | ---: | ---: | --- |"]
    for _, r in keyed:
        u = r["unit"]
        line = (f"| {cell(workload(r))} | {r['threads'] if r.get('threads') is not None else '–'} | "
                f"{human(r.get('block_bytes'))} | {value(r)} |")
        if pct:
            line += f" {fmt(r.get('p50'))} | {fmt(r.get('p99'))} | {fmt(r.get('p999'))} |"
        theo = "unknown" if r.get("theoretical") is None else f"{fmt(r['theoretical'])} {u}"
        b = r.get("baseline")
        base = f"{fmt(b)} {u} ({r['baseline_tool']})" if isnum(b) else "–"
        ratio = f"{r['mean'] / b * 100:.0f}%" if isnum(b) and b > 0 and isnum(r.get("mean")) else "–"
        out.append(f"{line} {theo} | {eff(r)} | {base} | {ratio} | {', '.join(warnings(r.get('flags')))} |")
    return out


def latency_table(mem: list[dict], levels_of=None) -> list[str]:
    seen, order = {}, []
    for r in mem:
        if r["test"] != "latency" or not r.get("n"):
            continue
        k = (r["variant"], r.get("block_bytes"), r.get("threads"))
        if k not in seen:
            seen[k] = {"r": r, "ns": None, "cy": None}
            order.append(k)
        if r["unit"] == "ns":
            seen[k]["ns"] = r
        elif r["unit"] == "cycles":
            seen[k]["cy"] = r
    if not order:
        return ["No latency rows."]
    out = ["| Variant | Concurrency | Working set | Level | Latency ns (mean ± stddev, N) | Cycles | Notes |",
           "| --- | ---: | ---: | --- | ---: | ---: | --- |"]
    for k in order:
        e = seen[k]
        r, ns, cy = e["r"], e["ns"], e["cy"]
        lv = next((f.split("=", 1)[1] for f in (r.get("flags") or "").split(";") if f.startswith("level=")), "")
        nsv = f"{fmt(ns['mean'])} ± {fmt(ns.get('stddev'))} ({ns['n']})" if ns else " ()"
        out.append(f"| {r['variant']} | {r['threads']} | {human(r.get('block_bytes'))} | {lv} | {nsv} | "
                   f"{fmt(cy['mean']) if cy else '–'} | {', '.join(warnings(r.get('flags')))} |")
    return out


def levels_table(levels: list[dict]) -> list[str]:
    if not levels:
        return []
    out = ["Read bandwidth of each memory level (every CPU reading a buffer that fits the level):", "",
           "| Level | Buffer per run | Concurrency | Read bandwidth | Notes |", "| --- | --- | ---: | ---: | --- |"]
    for r in levels:
        gb = r["mean"] / 1000 if isnum(r.get("mean")) else None
        out.append(f"| {r['level']} | {r['test']} ({r['variant']}, {human(r.get('block_bytes'))} blocks) | "
                   f"{r['threads']} | {fmt(gb)} GB/s | {', '.join(warnings(r.get('flags')))} |")
    return out


# Per suite: (heading, test_re, metric_re, pct, empty text) of its per-row tables.
SECTIONS = {
    "cpu": [("Floating point (GFLOPS)", "^flops$", "^flops$", False, "No flops rows."),
            ("Integer (GIOPS)", "^iops$", "", False, "No iops rows."),
            ("Linpack (LAPACKE dgesv)", "^linpack$", "^flops$", False, "No linpack rows.")],
    "memory": [("Throughput (bytes read + bytes written, per second)", "^(seq|rand)_", "^throughput$", False,
                "No throughput rows."),
               ("STREAM", "^stream$", "^throughput$", False, "No STREAM rows.")],
    "disk": [("Throughput (MB/s)", "", "^throughput$", False, "No throughput rows."),
             ("IOPS", "", "^iops$", False, "No IOPS rows."),
             ("Latency per I/O (us)", "", "^latency$", True, "No latency rows.")],
    "network": [("Throughput at the receiver (Gbit/s)", "_throughput$", "^throughput$", False, "No throughput rows."),
                ("UDP loss", "", "^loss$", False, "No loss rows."),
                ("Round-trip latency (us)", "_latency$", "^latency$", True, "No latency rows."),
                ("Transactions per second and CPU use (sender = client, receiver = server)", "",
                 "^(transaction_rate|cpu_sender|cpu_receiver)$", False, "No rows.")],
    "dpdk": [("Packet rate and bit rate", "", "^throughput$", False, "No throughput rows."),
             ("Latency and loss", "", "^latency$", True, "No latency rows."),
             ("", "", "^loss$", False, "")],
}
