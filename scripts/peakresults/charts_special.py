"""The charts that are not a metric against threads: latency vs working set, DPDK Mpps by
frame size, best efficiency, peakbench vs the reference tools, the roofline."""
import re

from . import pick
from .charts import Charts, blk, num
from .load import SUITES
from .report_fmt import isnum


def latency_fig(c: Charts, mem: list, context: dict) -> None:
    sid, names, val, xs = {}, [], {}, set()
    for r in mem:
        if r["test"] != "latency" or r["unit"] != "ns" or not r.get("n"):
            continue
        if r.get("threads") not in (None, "", 1):
            continue
        v = r["variant"]
        if v not in sid:
            sid[v] = len(names)
            names.append(v)
        x = int(r["block_bytes"] or 0)
        xs.add(x)
        val[sid[v], x] = r.get("mean")
    if not names:
        return
    lines = ["working_set_bytes" + "".join(f' "{n}"' for n in names)]
    for x in sorted(xs):
        lines.append(str(x) + "".join(" " + num(val.get((s, x))) for s in range(len(names))))
    c.write("memory_latency", lines)

    def size(k):
        v = context.get(k)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
    c.draw("memory_latency", "latency_ws.gp", nser=len(names), l1=size("cache.l1d"),
           l2=size("cache.l2"), l3=size("cache.l3"))


def dpdk_fig(c: Charts, dpdk: list) -> None:
    sid, names, val, xs = {}, [], {}, []
    for r in dpdk:
        if r["unit"] != "Mpps" or not (r["test"] or "").startswith("rx") or not r.get("n"):
            continue
        m = re.search(r"flows[0-9]+", r["variant"] or "")
        fl = m.group(0)[5:] + " flows" if m else "flows?"
        if fl not in sid:
            sid[fl] = len(names)
            names.append(fl)
        x = int(r["block_bytes"] or 0)
        if x not in xs:
            xs.append(x)
        k = (sid[fl], x)
        if k not in val or r["mean"] > val[k]:
            val[k] = r["mean"]
    if not names:
        return
    lines = ["frame_bytes" + "".join(f' "{n}"' for n in names)]
    for x in sorted(xs):
        lines.append(str(x) + "".join(" " + num(val.get((s, x))) for s in range(len(names))))
    c.write("dpdk_mpps", lines)
    c.draw("dpdk_mpps", "bars.gp", nser=len(names), ttl="DPDK: received Mpps by frame size and flows",
           ylab="Mpps", ref=0, xlab="frame size (bytes)")


def efficiency_fig(c: Charts, suites: dict) -> None:
    """One bar per subsystem and test: its best unflagged row (pick.best). A group with no
    unflagged row shows its best flagged one, labelled with the flags and drawn in orange;
    an above_peak row is never the group's bar when another exists, but is drawn too, below
    it, labelled and in red: a figure above the peak says a peak input is wrong, and must
    be seen. Column 3 (mark): 0 an unflagged row, 1 the stand-in of a group of flagged rows,
    2 an above_peak row."""
    groups, order = {}, []
    for s in SUITES:
        for r in suites.get(s, []):
            if not isnum(r.get("efficiency")) or not r.get("n"):
                continue
            k = f"{r['suite']}/{r['test']}"
            if r["test"] in ("flops", "iops"):
                k += "/" + r["variant"].split("_")[0]
            if k not in groups:
                order.append(k)
                groups[k] = []
            groups[k].append(r)
    if not order:
        return
    lines = ["# label best_efficiency_percent mark(0 unflagged, 1 only flagged rows, 2 above_peak)"]
    for k in order:
        top, why = pick.best(groups[k], lambda r: r["efficiency"])
        if why:
            mark = 2 if "above_peak" in why else 1
            lines.append(f'"{k} ({pick.fallback_note(why)})" {top["efficiency"] * 100:.2f} {mark}')
            continue
        lines.append(f'"{k}" {top["efficiency"] * 100:.2f} 0')
        above = [r for r in groups[k] if "above_peak" in pick.doubts(r)]
        if above:
            hi = max(above, key=lambda r: r["efficiency"])
            lines.append(f'"{k} {hi["variant"]} {hi["threads"]}t (above_peak)" {hi["efficiency"] * 100:.2f} 2')
    c.write("efficiency", lines)
    c.draw("efficiency", "hbars.gp", nrows=len(lines) - 1, marks=1,
           ttl="Best unflagged efficiency per subsystem and test (measured / theoretical)",
           xlab="% of the theoretical peak (orange: only flagged rows; red: above_peak)", ref=100, logx=0)


def baseline_fig(c: Charts, matches: list) -> None:
    """matches: (peakbench row, baseline row) pairs; higher is better: ours / tool, and
    tool / ours for latency."""
    lines, seen = [], set()
    for ours, br in matches:
        a, b = br.get("mean"), ours.get("mean")
        if not a or not b or a <= 0 or b <= 0:
            continue
        r = a / b if ours["metric"] == "latency" else b / a
        bl = blk(ours.get("block_bytes"))
        lbl = (f"{br['tool']}: {ours['test']} {ours['variant']} {ours['metric']} {ours['threads']}t"
               + ("" if ours["test"] == "stream" or not bl else " " + bl))
        if lbl in seen:
            continue
        seen.add(lbl)
        lines.append(f'"{lbl}" {r * 100:.1f}')
    if not lines:
        return
    c.write("baseline", ["# label peakbench_as_percent_of_tool"] + lines)
    c.draw("baseline", "hbars.gp", nrows=len(lines),
           ttl="peakbench vs the reference tools (100% = same; above = peakbench faster)",
           xlab="peakbench as % of the tool (latency: tool / peakbench), log scale", ref=100, logx=1)


def _roof_name(what: str, flags: list[str]) -> str:
    """A roof's legend word (underscores for spaces): a stand-in flagged row says so."""
    note = pick.fallback_note(flags)
    return (what + (f" ({note})" if note else "")).replace(" ", "_")


def roofline_fig(c: Charts, cpu: list, levels: list, mem: list) -> None:
    """The theoretical DP peak, the best unflagged DP flops row and the best unflagged read
    bandwidth of each memory level (DRAM: STREAM triad when the levels did not run); a
    flagged row only where no unflagged one exists, named so in the legend."""
    def measured(r):
        return bool(r.get("n")) and isnum(r.get("mean")) and r["mean"] > 0

    dp = [r for r in cpu if r["test"] == "flops" and "_dp_" in r["variant"] and r.get("n")]
    tflops = max((r["theoretical"] for r in dp if isnum(r.get("theoretical"))), default=0.0)
    top, why = pick.best([r for r in dp if measured(r)], lambda r: r["mean"])
    bw = {}
    for lv in ("L1", "L2", "L3", "DRAM"):
        lr, lwhy = pick.best([r for r in levels if r["level"] == lv and isnum(r.get("mean")) and r["mean"] > 0],
                             lambda r: r["mean"])
        if lr:
            bw[lv] = (lr["mean"], lwhy)
    if "DRAM" not in bw:
        tr, twhy = pick.best([r for r in mem if r["test"] == "stream" and r["variant"].startswith("triad")
                              and measured(r)], lambda r: r["mean"])
        if tr:
            bw["DRAM"] = (tr["mean"], twhy)
    if not top and tflops <= 0:
        return
    roofs = []
    if tflops > 0:
        roofs.append(("peak", "theoretical_DP_peak", tflops))
    if top:
        roofs.append(("peak", _roof_name(f"measured {top['variant']} {top['threads']}t", why), top["mean"]))
    for lv in ("L1", "L2", "L3", "DRAM"):
        if lv in bw:
            roofs.append(("bw", _roof_name(f"{lv} bandwidth", bw[lv][1]), bw[lv][0] / 1000))
    lines = ["# roof name value (peak: GFLOPS, bw: GB/s)"] + [f"{k} {n} {v:.3f}" for k, n, v in roofs]
    c.write("roofline", lines)
    c.draw("roofline", "roofline.gp", nlines=len(roofs), kinds=" " + " ".join(k for k, _, _ in roofs),
           vals=" " + " ".join(f"{v:.3f}" for _, _, v in roofs), names=" " + " ".join(n for _, n, _ in roofs))
