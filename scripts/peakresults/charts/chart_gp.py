"""Line charts as gnuplot scripts: series against a numeric x (threads, working set, frame
size), at most MAX_SERIES per plot, split into panels (small multiples, one PNG with
gnuplot's multiplot) when there are more; the same series key has the same style in every
panel; theoretical peaks as dashed reference lines; axes fitted to the data (log where it
spans decades); the legend outside the plot. The script is plain text written beside the
data file, so a chart can be redrawn, and tested, without the results program."""
import math
from dataclasses import dataclass, field
from typing import Optional

from .chart_styles import HEAT_BAD, HEAT_GOOD, HEAT_MID, MAX_SERIES, REF_COLOUR, quote, ref_gp, style, terminal

# Data this many times apart (largest / smallest) get a log axis: a linear one would
# squash the small series into the bottom of the plot.
LOG_RATIO = 20.0
MIN_SPAN = 0.1


@dataclass
class Series:
    title: str                      # the legend's words (the panel title says the rest)
    col: int                        # the y column in the data file (1-based)
    key: str                        # the same key has the same style in every panel
    panel: str = ""                 # the panel's title; "" when the chart has one
    peak_col: Optional[int] = None  # the column of its theoretical peak, when it has one
    peak: tuple = ()                # that column's values (equal tuples draw one line)
    values: tuple = ()              # its figures and peaks, for a panel's own y axis
    rank: tuple = ()                # panels are drawn in the order of their series' ranks


@dataclass
class Axis:
    label: str
    log: int = 0                    # 0: linear, else the base
    lo: Optional[float] = None
    hi: Optional[float] = None
    tics: list = field(default_factory=list)  # (label, value); empty: gnuplot's own


@dataclass
class LineChart:
    title: str
    x: Axis
    y: Axis
    series: list
    extra: list = field(default_factory=list)  # gnuplot lines before each plot (arrows)
    xcol: int = 1
    panel_y: bool = False           # each panel its own y axis (from its series' values)
    ref_title: str = "theoretical peak"


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _even_tics(lo: float, hi: float, want: int = 6) -> list:
    raw = (hi - lo) / want
    e = 10.0 ** math.floor(math.log10(raw))
    step = next(m * e for m in (1, 2, 2.5, 5, 10) if m * e >= raw)
    out, k = [], math.ceil(lo / step)
    while k * step <= hi:
        out.append((_fmt(k * step), k * step))
        k += 1
    return out


def log_tics(lo: float, hi: float) -> list:
    """Ticks on a log axis: evenly spaced under a factor 4 (no power of ten may fall
    inside), 1-2-5 per decade up to three decades, powers of ten beyond."""
    if hi / lo < 4:
        return _even_tics(lo, hi)
    steps = (1, 2, 5) if hi / lo <= 1000 else (1,)
    out = []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in steps:
            v = m * 10.0 ** e
            if lo <= v <= hi:
                out.append((_fmt(v), v))
    return out


def value_axis(values, label: str) -> Axis:
    """A y axis around the data: log when all are positive and span LOG_RATIO or more, else
    linear with a margin, never below zero for figures that cannot be negative. A linear
    axis spans at least MIN_SPAN of the largest figure: two flat lines 1% apart (two disk
    engines at the device's bandwidth) stay close, not at the plot's top and bottom."""
    v = [x for x in values if isinstance(x, (int, float)) and math.isfinite(x)]
    if not v:
        return Axis(label)
    lo, hi = min(v), max(v)
    if lo > 0 and hi / lo >= LOG_RATIO:
        a, b = lo / 1.3, hi * 1.3
        return Axis(label, 10, a, b, log_tics(a, b))
    span = max(hi - lo, MIN_SPAN * max(abs(lo), abs(hi))) or 1.0
    mid = (lo + hi) / 2
    a, b = mid - 0.6 * span, mid + 0.6 * span
    if lo >= 0 > a:
        a, b = 0.0, max(b, hi + 0.1 * span)
    return Axis(label, 0, a, b)


def log2_axis(xs, label: str, name=_fmt) -> Axis:
    """An x axis for counts and sizes that double (threads, bytes): log 2, a tick at each
    value the data has, named by name()."""
    xs = sorted({x for x in xs if x and x > 0})
    if not xs:
        return Axis(label, 2)
    return Axis(label, 2, xs[0] / 1.3, xs[-1] * 1.3, [(name(x), x) for x in xs])


def panels(series: list) -> list:
    """(title, series) per panel in the order of their first series' rank, then as met; a
    panel over MAX_SERIES is cut in parts of at most MAX_SERIES, titled (1/2), (2/2)."""
    order, groups = [], {}
    for s in series:
        if s.panel not in groups:
            order.append(s.panel)
            groups[s.panel] = []
        groups[s.panel].append(s)
    out = []
    for p in sorted(order, key=lambda p: groups[p][0].rank):
        g = groups[p]
        parts = [g[i:i + MAX_SERIES] for i in range(0, len(g), MAX_SERIES)]
        for k, part in enumerate(parts):
            out.append((p + (f" ({k + 1}/{len(parts)})" if len(parts) > 1 else ""), part))
    return out


def style_index(series: list) -> dict:
    """Series key -> style number, in first-seen order over the whole chart."""
    idx = {}
    for s in series:
        idx.setdefault(s.key, len(idx))
    return idx


def _axis_lines(name: str, a: Axis) -> list:
    out = [f"set logscale {name} {a.log}" if a.log else f"unset logscale {name}"]
    if a.lo is not None and a.hi is not None:
        out.append(f"set {name}range [{_fmt(a.lo)}:{_fmt(a.hi)}]")
    else:
        out.append(f"set {name}range [*:*]")
    if a.tics:
        out.append(f"set {name}tics (" + ", ".join(f"{quote(t)} {_fmt(v)}" for t, v in a.tics) + ")")
    else:
        out.append(f"set {name}tics autofreq")
    out.append(f"set m{name}tics {'default' if a.log else 2}")
    out.append(f"set {name}label {quote(a.label)}")
    return out


def _refs(chart: LineChart, members: list, idx: dict) -> list:
    """The peak lines of one panel, (clause, legend title or None): one per distinct set of
    peak values. A single line is titled chart.ref_title (black when several series share
    it); several are each in their first series' colour, untitled, with one legend entry
    saying what the dashes are."""
    groups, order = {}, []
    for s in members:
        if s.peak_col is None:
            continue
        if s.peak not in groups:
            order.append(s.peak)
            groups[s.peak] = []
        groups[s.peak].append(s)
    if not order:
        return []
    if len(order) == 1:
        g = groups[order[0]]
        colour = style(idx[g[0].key]).colour if len(g) == 1 else REF_COLOUR
        return [(f"{_using(chart, g[0].peak_col)} with {_ref_kind(g[0].peak)} {ref_gp(colour)}", chart.ref_title)]
    out, used = [], set()
    for p in order:
        colours = [style(idx[s.key]).colour for s in groups[p]]
        free = [c for c in colours if c not in used] or [REF_COLOUR]
        used.add(free[0])
        out.append((f"{_using(chart, groups[p][0].peak_col)} with {_ref_kind(p)} {ref_gp(free[0])}", None))
    out.append((f"keyentry with lines {ref_gp()}", f"dashed: {chart.ref_title}"))
    return out


def _ref_kind(peak: tuple) -> str:
    """How a peak is drawn: a dashed line, or, at a single x (a line needs two points: the
    full run's linpack has one thread count), a dashed line's legend with a mark (x) at it."""
    known = [v for v in peak if isinstance(v, (int, float)) and math.isfinite(v)]
    return "lines" if len(known) != 1 else "linespoints pt 2 ps 2"


def _using(chart: LineChart, col: int) -> str:
    return f"DATA using {chart.xcol}:{col}"


def _clauses(chart: LineChart, members: list, idx: dict) -> list:
    """(clause, legend title or None) for one panel: its series, then its peak lines."""
    return [(f"{_using(chart, s.col)} with linespoints lw 2 ps 1.5 {style(idx[s.key]).gp()}", s.title)
            for s in members] + _refs(chart, members, idx)


def _plot(clauses: list) -> list:
    words = [f"{c} title {quote(t)}" if t is not None else f"{c} notitle" for c, t in clauses]
    return ["plot \\"] + [f"\t{w}" + (", \\" if i < len(words) - 1 else "") for i, w in enumerate(words)]


def _layout(n: int) -> tuple:
    """(rows, columns, width, height, font size) for n panels: one large plot, or two
    columns of panels (lower when there are three rows or more)."""
    if n <= 1:
        return 1, 1, 1600, 900, 18
    rows = (n + 1) // 2
    return rows, 2, 2000, 110 + (600 if rows <= 2 else 480) * rows, 15


def title_of(chart: LineChart) -> str:
    """The chart's title; with one panel, also what that panel's title would have said."""
    ps = panels(chart.series)
    return chart.title + (f" ({ps[0][0]})" if len(ps) == 1 and ps[0][0] else "")


def script(chart: LineChart, data: str, png: str) -> str:
    """The gnuplot script that draws chart from data into png (paths as the script sees
    them: Charts.plot runs it from the charts directory)."""
    ps = panels(chart.series)
    idx = style_index(chart.series)
    rows, cols, w, h, fs = _layout(len(ps))
    cl = [_clauses(chart, members, idx) for _, members in ps]
    # The legend sits right of the plot in a margin as wide as its longest entry, the
    # same for every panel so that their plots line up.
    rmargin = 8 + max(len(t) for c in cl for _, t in c if t is not None)
    out = [f"# {chart.title}", f"# drawn from the charts directory: gnuplot data/{png[:-4]}.gp"]
    out += terminal(w, h, fs, png)
    out += [f"DATA = {quote(data)}", "set grid xtics ytics mytics lc rgb '#d0d0d0'", "set border lw 1",
            "set key outside right top vertical Left reverse samplen 3 spacing 1.1",
            "set lmargin 12", f"set rmargin {rmargin}", "set format y '%g'"]
    out += _axis_lines("x", chart.x)
    if not chart.panel_y:
        out += _axis_lines("y", chart.y)
    if len(ps) > 1:
        out.append(f"set multiplot layout {rows},{cols} rowsfirst title {quote(chart.title)} font ',{fs + 4}'")
    for n, ((title, members), clauses) in enumerate(zip(ps, cl)):
        out.append(f"# panel {n + 1}: {title or chart.title}")
        if len(ps) > 1:
            out.append(f"set title {quote(title)} font ',{fs + 2}'")
        else:
            out.append(f"set title {quote(title_of(chart))} font ',{fs + 4}'")
        if chart.panel_y:
            out += _axis_lines("y", value_axis([v for s in members for v in s.values], chart.y.label))
        out += chart.extra
        out += _plot(clauses)
    if len(ps) > 1:
        out.append("unset multiplot")
    return "\n".join(out) + "\n"


@dataclass
class Heatmap:
    """An N x N grid of a per-pair figure (the cluster's matrix): data rows "x y value
    label" with x the column (receiver) and y the row (sender), both 0-based indexes of
    names; the diagonal has no row, so it stays blank."""
    title: str
    names: list                     # the hosts, in index order
    cblabel: str                    # the colour bar's unit
    xlabel: str = "receiver (peer)"
    ylabel: str = "sender (host)"
    low_is_good: bool = False       # latency: the palette runs the other way
    show_values: bool = True        # each cell's label printed in it


def heatmap_script(h: Heatmap, data: str, png: str) -> str:
    """The gnuplot script that draws h from data into png (paths as the script sees them)."""
    ends = (HEAT_GOOD, HEAT_BAD) if h.low_is_good else (HEAT_BAD, HEAT_GOOD)
    out = [f"# {h.title}", f"# drawn from the charts directory: gnuplot data/{png[:-4]}.gp"]
    out += terminal(1400, 1200, 14, png)
    n = len(h.names)
    out += [f"DATA = {quote(data)}", f"set title {quote(h.title)} font ',18'",
            f"set xlabel {quote(h.xlabel)}", f"set ylabel {quote(h.ylabel)}",
            f"set cblabel {quote(h.cblabel)}", f"set xrange [-0.5:{n - 0.5}]",
            f"set yrange [{n - 0.5}:-0.5]", "set size ratio -1", "set tics scale 0",
            "set xtics (" + ", ".join(f"{quote(x)} {i}" for i, x in enumerate(h.names)) + ") rotate by 45 right",
            "set ytics (" + ", ".join(f"{quote(x)} {i}" for i, x in enumerate(h.names)) + ")",
            f'set palette defined (0 "{ends[0]}", 0.5 "{HEAT_MID}", 1 "{ends[1]}")',
            "set style fill solid 1.0 noborder", "unset key"]
    cells = "DATA using 1:2:(0.5):(0.5):3 with boxxyerror fc palette"
    if h.show_values:
        cells += ", DATA using 1:2:4 with labels font ',14'"
    return "\n".join(out + ["plot " + cells]) + "\n"
