"""The charts' one style table: how many series a plot may hold, each series' colour, dash
and point, the reference lines' style, the bar marks' colours and the PNG terminal. Every
chart the results program draws takes its styles from here (chart_gp, chart_bars)."""
from dataclasses import dataclass

# A plot (one chart, or one panel of a chart) holds at most this many series; more are
# split into panels. Eight is as many colours as a reader tells apart in a legend.
MAX_SERIES = 8

# Eight colours that stay apart on a projector and in print (tab10 without its grey, kept
# for reference lines' black, and its olive, too pale on white).
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
# A point type per colour (gnuplot pt: filled circle, square, triangle up, triangle down,
# diamond, pentagon; open circle, open square): series stay apart in grey too.
POINTS = (7, 5, 9, 11, 13, 15, 6, 4)
# A series' line: solid for the first eight styles of a chart, then dash-dot and
# dash-dot-dot when a chart's panels together hold more than eight (each panel still at
# most eight). Dash type 2 (dashed) is never a series': it marks reference lines.
SERIES_DASHES = (1, 4, 5)
REF_DASH = 2
REF_COLOUR = "#000000"
# The same reference as a vertical mark across a bar chart (dash type 2 at bar-chart line
# widths falls between the bars and vanishes; this pattern shows on every row).
REF_MARK = 'dt (8,6) lw 1.5 lc rgb "#000000"'
# Horizontal bars (efficiency.png): an unflagged row, a flagged row standing in for its
# group, a row above its theoretical peak; baseline.png's bars are all the first.
MARKS = ("#1f77b4", "#ff7f0e", "#d62728")
MARK_TITLES = ("unflagged row", "only flagged rows (stand-in)", "above_peak")

# Heatmaps (the cluster's N x N pairs): the palette from bad through middling to good, so
# red is bad whichever way the figure goes (low throughput, high latency).
HEAT_BAD, HEAT_MID, HEAT_GOOD = "#d62728", "#ffdd55", "#2ca02c"

FONT = "DejaVu Sans"


@dataclass(frozen=True)
class Style:
    colour: str
    dash: int
    point: int

    def gp(self) -> str:
        """The gnuplot words that draw a series in this style."""
        return f'lc rgb "{self.colour}" dt {self.dash} pt {self.point}'


def style(i: int) -> Style:
    """The i-th style of a chart (0-based): colour, then a point type of its own, then the
    dash round. No two of the table's styles share colour and dash."""
    rnd = i // len(COLOURS)
    if rnd >= len(SERIES_DASHES):
        raise ValueError(f"style {i}: a chart holds at most {len(COLOURS) * len(SERIES_DASHES)} series")
    k = i % len(COLOURS)
    return Style(COLOURS[k], SERIES_DASHES[rnd], POINTS[(k + 3 * rnd) % len(POINTS)])


STYLES = tuple(style(i) for i in range(len(COLOURS) * len(SERIES_DASHES)))


def ref_gp(colour: str = REF_COLOUR) -> str:
    """A reference line (a theoretical peak): dashed, thinner, no points."""
    return f'lc rgb "{colour}" dt {REF_DASH} lw 1.5'


def quote(s: str) -> str:
    """A gnuplot double-quoted string (the terminal is noenhanced: _ and ^ print as is)."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def terminal(width: int, height: int, font_size: int, png: str) -> list[str]:
    """The PNG terminal (pngcairo when gnuplot has it) and the output file."""
    font = quote(f"{FONT},{font_size}")
    return [
        'if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {',
        f"\tset terminal pngcairo size {width},{height} font {font} linewidth 2 noenhanced",
        "} else {",
        f"\tset terminal png size {width},{height} font {font} noenhanced",
        "}",
        f"set output {quote(png)}",
        'set datafile missing "?"',
    ]
