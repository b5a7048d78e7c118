"""Horizontal bar charts as gnuplot scripts (efficiency.png, baseline.png): one bar per
data row (label in column 1, value in column 2, optional mark in column 3), its value
printed at its end, a dashed reference line, the legend below the plot. Bars start at
base: 0 for a share of a peak (a bar's length is the share), the reference itself for a
ratio (left of it: slower, right: faster), so the axis covers the data and the reference."""
from dataclasses import dataclass, field

from .chart_gp import log_tics
from .chart_styles import MARK_TITLES, MARKS, REF_MARK, quote, terminal


@dataclass
class HBars:
    title: str
    xlabel: str
    values: list                 # column 2, in row order
    ref: float                   # the dashed reference line (100: the peak, or a tie)
    base: float = 0.0            # where bars start
    log: bool = False
    marks: list = field(default_factory=list)  # column 3 per row, or empty: every bar MARKS[0]
    bar_title: str = ""          # the legend's word for the bars when there are no marks


TITLE_LABEL = 1  # the label that holds the chart's title


def _xrange(b: HBars) -> tuple:
    vals = [v for v in b.values if v is not None] + [b.ref, b.base]
    lo, hi = min(vals), max(vals)
    if b.log:
        lo = min(v for v in vals if v > 0)
        # Room on both sides for the value labels.
        return lo / 1.35, hi * 1.35
    return (lo if lo < 0 else 0.0), hi * 1.12


def script(b: HBars, data: str, png: str) -> str:
    n = len(b.values)
    lo, hi = _xrange(b)
    out = [f"# {b.title}", f"# drawn from the charts directory: gnuplot data/{png[:-4]}.gp"]
    out += terminal(1600, 300 + 45 * n, 16, png)
    # The title centred on the canvas, not over the plot: long bar labels push the plot right,
    # and a title centred over it ran off the canvas's right edge (issue 41: "measured /
    # theoretic").
    out += [f"DATA = {quote(data)}", f"set label {TITLE_LABEL} {quote(b.title)} at screen 0.5, screen 0.985 "
            "center front", "set tmargin 3", f"set xlabel {quote(b.xlabel)}",
            f"set yrange [{n} - 0.4:-0.6]", "set ytics scale 0", "set grid xtics lc rgb '#d0d0d0'",
            "set style fill solid 0.85 border -1", "set bmargin 6",
            "set key outside bottom center horizontal Left reverse samplen 2",
            f"set xrange [{lo:.6g}:{hi:.6g}]", "set format x '%g'",
            # A value's label on a white box: the dashed reference line passes behind it.
            "set style textbox opaque noborder margins 0, 0"]
    if b.log:
        out.append("set logscale x 10")
        out.append("set xtics (" + ", ".join(f"{quote(t)} {v:.6g}" for t, v in log_tics(lo, hi)) + ")")
    out.append(f"set arrow 1 from first {b.ref:.6g}, graph 0 to first {b.ref:.6g}, graph 1 nohead {REF_MARK} back")
    out.append("array MARK[3] = [" + ", ".join(f"0x{c[1:]}" for c in MARKS) + "]")
    out.append("colour(m) = MARK[(m >= 0 && m <= 2 ? int(m) : 0) + 1]")
    clauses = []
    mark_col = "(colour(column(3)))" if b.marks else "(colour(0))"
    bars = (f"DATA using ({b.base:.6g}):0:({b.base:.6g}):2:($0 - 0.35):($0 + 0.35):{mark_col}:yticlabels(1) "
            "with boxxyerror lc rgb variable")
    if b.marks:
        clauses.append(bars + " notitle")
        for m in sorted({int(x) for x in b.marks if x in (0, 1, 2)}):
            clauses.append(f'keyentry with boxes fc rgb "{MARKS[m]}" title {quote(MARK_TITLES[m])}')
    else:
        clauses.append(bars + f" title {quote(b.bar_title)}")
    # Each value at its bar's end, outside the bar: right of it, or left of a bar that goes
    # left from the reference.
    left_of = b.base >= b.ref
    clauses.append(f"DATA using ($2 >= {b.ref:.6g} ? $2 : NaN):0:(sprintf('  %.0f%%', $2)) "
                   "with labels boxed left font ',14' notitle")
    clauses.append(f"DATA using ($2 < {b.ref:.6g} ? $2 : NaN):0:"
                   + ("(sprintf('%.0f%%  ', $2)) with labels boxed right" if left_of else
                      "(sprintf('  %.0f%%', $2)) with labels boxed left") + " font ',14' notitle")
    out += ["plot \\"] + [f"\t{c}" + (", \\" if i < len(clauses) - 1 else "") for i, c in enumerate(clauses)]
    return "\n".join(out) + "\n"
