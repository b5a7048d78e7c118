"""The charts that are not a metric against threads: latency vs working set, DPDK Mpps by
frame size, best efficiency, peakbench vs the reference tools, the roofline."""
import re

from ..core import physics, pick
from ..core.load import SUITES
from ..core.schema import isnum
from . import chart_bars
from .chart_gp import Axis, LineChart, Series, log2_axis, value_axis
from .chart_styles import quote, ref_gp, style, terminal
from .charts import Charts, blk, num


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
    xs = sorted(x for x in xs if x > 0)
    # A tick at every power of two over a short sweep, every power of four over a long one.
    step = 1 if xs and xs[-1] <= xs[0] << 10 else 2
    x = Axis("working set", 2, xs[0] / 1.3, xs[-1] * 1.3,
             [(blk(1 << e), 1 << e) for e in range(0, 41, step)
              if xs[0] / 1.3 <= (1 << e) <= xs[-1] * 1.3]) if xs else Axis("working set", 2)
    extra = cache_marks(size)
    series = [Series(n, 2 + i, n) for i, n in enumerate(names)]
    chart = LineChart("Memory load latency vs working set (dependent pointer chase, 1 thread)", x,
                      value_axis(list(val.values()), "latency per load (ns)"), series, extra)
    c.line_chart("memory_latency", chart)


def cache_marks(size) -> list:
    """gnuplot commands marking each cache level on the latency chart: its reported size
    (hwloc, sysfs) a dotted grey vertical named at the top; where the run's latency knee
    says less (cache.*_effective), the effective size a solid red vertical too, both named
    ("L3 reported", "L3 effective"), so the reader sees the machine's claim and the curve's
    answer. size(key) is the context's number for a key, 0 when unknown."""
    out, n = [], 0
    for lv, k in (("L1", "l1d"), ("L2", "l2"), ("L3", "l3")):
        rep = size(f"cache.{k}_reported") or size(f"cache.{k}")
        eff = size(f"cache.{k}_effective")
        differs = 0 < eff < rep
        for x, name, look, y in ((rep, f"{lv} reported" if differs else lv, "dt 3 lc rgb 'gray30'", 0.96),
                                 (eff if differs else 0, f"{lv} effective", "dt 1 lw 2 lc rgb '#c0392b'", 0.90)):
            if x > 0:
                n += 1
                out += [f"set arrow {n} from {x}, graph 0 to {x}, graph 1 nohead {look} back",
                        f"set label {n} {quote(name)} at {x}, graph {y} offset 0.5, 0"]
    return out


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
    series = [Series(n[:-1] if n.startswith("1 ") else n, 2 + i, n) for i, n in enumerate(names)]
    chart = LineChart("DPDK: received Mpps vs frame size, per flow count", log2_axis(xs, "frame size (bytes)"),
                      value_axis(list(val.values()), "Mpps"), series)
    c.line_chart("dpdk_mpps", chart)


def efficiency_fig(c: Charts, suites: dict) -> None:
    """One bar per subsystem and test: its best unflagged row (pick.best). A group with no
    unflagged row shows its best flagged one, labelled with the flags and drawn in orange;
    an above_peak row is never the group's bar when another exists, but is drawn too, below
    it, labelled and in red: a figure above the peak says a peak input is wrong, and must
    be seen. Column 3 (mark): 0 an unflagged row, 1 the stand-in of a group of flagged rows,
    2 an above_peak row. A comparison row (physics.py) is left out: its efficiency is a
    ratio to another peak than its own, neither an efficiency nor an alarm."""
    groups, order = {}, []
    for s in SUITES:
        for r in suites.get(s, []):
            if not isnum(r.get("efficiency")) or not r.get("n") or physics.is_comparison(r):
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
    vals = [float(ln.rsplit(" ", 2)[1]) for ln in lines[1:]]
    marks = [int(ln.rsplit(" ", 1)[1]) for ln in lines[1:]]
    bars = chart_bars.HBars("Best unflagged efficiency per subsystem and test (measured / theoretical)",
                            "% of the theoretical peak (dashed: 100%)", vals, 100.0, marks=marks)
    c.plot("efficiency", bars.title, chart_bars.script(bars, "data/efficiency.dat", "efficiency.png"))


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
    vals = [float(ln.rsplit(" ", 1)[1]) for ln in lines]
    bars = chart_bars.HBars("peakbench vs the reference tools (right of 100%: peakbench faster)",
                            "peakbench as % of the tool, log scale (latency: tool / peakbench; dashed: 100%)",
                            vals, 100.0, base=100.0, log=True, bar_title="peakbench / tool")
    c.plot("baseline", bars.title, chart_bars.script(bars, "data/baseline.dat", "baseline.png"))


def _roof_name(what: str, flags: list[str]) -> str:
    """A roof's legend words: a stand-in flagged row says so."""
    note = pick.fallback_note(flags)
    return what + (f" ({note})" if note else "")


PEAK_ROOF = "theoretical DP peak"  # the reference roof's name (drawn dashed, last)


def roofline_fig(c: Charts, cpu: list, levels: list, mem: list) -> None:
    """The theoretical DP peak, the best unflagged DP flops row and the best unflagged read
    bandwidth of each memory level (DRAM: STREAM triad when the levels did not run); a
    flagged row only where no unflagged one exists, named so in the legend."""
    def measured(r):
        return bool(r.get("n")) and isnum(r.get("mean")) and r["mean"] > 0

    dp = [r for r in cpu if r["test"] == "flops" and "_dp_" in r["variant"] and r.get("n")]
    top, why = pick.best([r for r in dp if measured(r)], lambda r: r["mean"])
    # One clock per figure: the peak of the row drawn (the summary's DP headline, the same
    # pick), at that row's clock; the highest of the rows' peaks only when it has none (a
    # row measured at another thread count or moment has another clock: 228.9 against the
    # summary's 225.8 GFLOPS on the Zen 5 record).
    own = bool(top) and isnum(top.get("theoretical"))
    tflops = top["theoretical"] if own else max((r["theoretical"] for r in dp if isnum(r.get("theoretical"))),
                                                default=0.0)
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
        roofs.append(("peak", PEAK_ROOF + (f" ({top['variant']} {top['threads']}t)" if own else ""), tflops))
    if top:
        roofs.append(("peak", _roof_name(f"measured {top['variant']} {top['threads']}t", why), top["mean"]))
    for lv in ("L1", "L2", "L3", "DRAM"):
        if lv in bw:
            roofs.append(("bw", _roof_name(f"{lv} bandwidth", bw[lv][1]), bw[lv][0] / 1000))
    lines = ["# roof name value (peak: GFLOPS, bw: GB/s)"] + [f"{k} {n.replace(' ', '_')} {v:.3f}" for k, n, v in roofs]
    c.write("roofline", lines)
    title = "Roofline: attainable GFLOPS vs arithmetic intensity (double precision)"
    c.plot("roofline", title, roofline_script(title, roofs))


def roofline_script(title: str, roofs: list) -> str:
    """attainable GFLOPS = min(peak, bandwidth x intensity) per memory level, log-log: each
    bandwidth roof rises until it meets the highest peak (drawn dashed, the reference, last
    so that the roofs ending on it leave it seen), each roof in a style of its own."""
    top = max([v for k, _, v in roofs if k == "peak"], default=0) or 1e9
    lows = [v / 64 for k, _, v in roofs if k == "bw"] + [v for k, _, v in roofs if k == "peak"]
    out = [f"# {title}", "# drawn from the charts directory: gnuplot data/roofline.gp"]
    out += terminal(1600, 1000, 18, "roofline.png")
    # The legend under the x label, one column (at most six roofs and peaks): right of the
    # plot it took half the width, and in columns of three the long labels ("... (no
    # unflagged row: contended, steal) ...") pushed the first column's samples off the
    # canvas (twelfth session's full run).
    out += [f"set title {quote(title)}", "set xlabel 'arithmetic intensity (FLOP / byte)'",
            "set ylabel 'GFLOPS'", "set logscale xy 10", "set xrange [1.0/64:64]",
            f"set yrange [{min(lows) / 1.5:.6g}:{top * 1.5:.6g}]", "set format y '%g'",
            "set grid lc rgb '#d0d0d0'", "set samples 400", "set bmargin 11",
            "set key at screen 0.5, screen 0.01 center bottom Left reverse samplen 3 maxrows 6 font ',16'"]
    clauses, k = [], 0
    for kind, name, v in sorted(roofs, key=lambda r: r[1].startswith(PEAK_ROOF)):
        f = f"{v:.6g}" if kind == "peak" else f"({v:.6g} * x <= {top:.6g} ? {v:.6g} * x : NaN)"
        words = quote(f"{name}: {v:.1f} {'GFLOPS' if kind == 'peak' else 'GB/s'}")
        if name.startswith(PEAK_ROOF):
            clauses.append(f"{f} with lines {ref_gp()} title {words}")
            continue
        st = style(k)
        k += 1
        clauses.append(f'{f} with lines lw 3 lc rgb "{st.colour}" dt {st.dash} title {words}')
    out += ["plot \\"] + [f"\t{c}" + (", \\" if n < len(clauses) - 1 else "") for n, c in enumerate(clauses)]
    return "\n".join(out) + "\n"
