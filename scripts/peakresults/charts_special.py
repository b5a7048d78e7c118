"""The charts that are not a metric against threads: latency vs working set, DPDK Mpps by
frame size, best efficiency, peakbench vs the reference tools, the roofline."""
import re

from .charts import Charts, blk, num
from .load import SUITES


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
    best, order = {}, []
    for s in SUITES:
        for r in suites.get(s, []):
            e = r.get("efficiency")
            if e is None or not r.get("n"):
                continue
            k = f"{r['suite']}/{r['test']}"
            if r["test"] in ("flops", "iops"):
                k += "/" + r["variant"].split("_")[0]
            if k not in best:
                order.append(k)
                best[k] = e
            elif e > best[k]:
                best[k] = e
    if not order:
        return
    lines = ["# label best_efficiency_percent"] + [f'"{k}" {best[k] * 100:.2f}' for k in order]
    c.write("efficiency", lines)
    c.draw("efficiency", "hbars.gp", nrows=len(order),
           ttl="Best efficiency per subsystem and test (measured / theoretical)",
           xlab="% of the theoretical peak", ref=100, logx=0)


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


def roofline_fig(c: Charts, cpu: list, levels: list, mem: list) -> None:
    mflops = tflops = triad = 0.0
    mvar = mthr = ""
    for r in cpu:
        if r["test"] == "flops" and "_dp_" in r["variant"] and r.get("n"):
            if (r.get("mean") or 0) > mflops:
                mflops, mvar, mthr = r["mean"], r["variant"], r["threads"]
            if (r.get("theoretical") or 0) > tflops:
                tflops = r["theoretical"]
    bw = {}
    for r in levels:
        if (r.get("mean") or 0) > bw.get(r["level"], 0):
            bw[r["level"]] = r["mean"]
    for r in mem:
        if r["test"] == "stream" and r["variant"].startswith("triad") and (r.get("mean") or 0) > triad:
            triad = r["mean"]
    if mflops == 0 and tflops == 0:
        return
    if not bw.get("DRAM") and triad > 0:
        bw["DRAM"] = triad
    roofs = []
    if tflops > 0:
        roofs.append(("peak", "theoretical_DP_peak", tflops))
    if mflops > 0:
        roofs.append(("peak", f"measured_{mvar}_{mthr}t", mflops))
    for lv in ("L1", "L2", "L3", "DRAM"):
        if bw.get(lv, 0) > 0:
            roofs.append(("bw", f"{lv}_bandwidth", bw[lv] / 1000))
    lines = ["# roof name value (peak: GFLOPS, bw: GB/s)"] + [f"{k} {n} {v:.3f}" for k, n, v in roofs]
    c.write("roofline", lines)
    c.draw("roofline", "roofline.gp", nlines=len(roofs), kinds=" " + " ".join(k for k, _, _ in roofs),
           vals=" " + " ".join(f"{v:.3f}" for _, _, v in roofs), names=" " + " ".join(n for _, n, _ in roofs))
