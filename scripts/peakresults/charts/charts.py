"""The charts: one data file per figure in OUT/charts/data/<fig>.dat (whitespace-separated,
a header naming the columns, "?" for a missing point), its gnuplot script beside it
(<fig>.gp, built by chart_gp / chart_bars with the styles of chart_styles) and one PNG per
figure in OUT/charts/. The data and scripts are always written; without gnuplot (or with
--no-charts) nothing is drawn and the reason is noted."""
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

from .chart_gp import Heatmap, LineChart, Series, heatmap_script, log2_axis, script, title_of, value_axis


def blk(b) -> str:
    if b is None or b == "":
        return ""
    b = int(b)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size and b % size == 0:
            return f"{b // size}{unit}"
    return f"{b}B"


def num(x) -> str:
    if x is None:
        return "?"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


class Charts:
    def __init__(self, out: str, draw: bool):
        self.dir = os.path.join(out, "charts")
        self.data = os.path.join(self.dir, "data")
        self.draw_on = draw and shutil.which("gnuplot") is not None
        self._drawn: list[str] = []
        self._failed: list[str] = []
        self._pending: list[str] = []  # plotted, not drawn yet (flush)
        self.messages: dict[str, str] = {}  # figure -> what gnuplot said drawing it (warnings)
        self.titles: dict[str, str] = {}  # figure -> its title, for the report's alt text
        self.note = ""
        if draw and not self.draw_on:
            self.note = "gnuplot not installed: no charts (Debian: apt install gnuplot-nox)"
        elif not draw:
            self.note = "charts skipped (--no-charts)"
        os.makedirs(self.data, exist_ok=True)

    def write(self, fig: str, lines: list[str]) -> str:
        path = os.path.join(self.data, fig + ".dat")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def plot(self, fig: str, title: str, gp: str) -> None:
        """Write fig's script (data/<fig>.gp, paths relative to the charts directory) and,
        when drawing, run it there."""
        self.titles[fig] = title
        with open(os.path.join(self.data, fig + ".gp"), "w", encoding="utf-8") as f:
            f.write(gp)
        if self.draw_on:
            self._pending.append(fig)

    @property
    def drawn(self) -> list[str]:
        self.flush()
        return self._drawn

    @property
    def failed(self) -> list[str]:
        self.flush()
        return self._failed

    def flush(self) -> None:
        """Draw the figures plotted since the last flush, in one gnuplot: a gnuplot a figure
        cost about 0.1 s each, 3 s of a tiny run's 27 charts. Each script runs after
        `reset session` (nothing of the one before carries over) and is followed by a line
        naming it. A figure gnuplot said anything about (an error or a warning: reading
        its commands from a pipe, gnuplot goes on after an error) or did not reach is drawn
        again in a gnuplot of its own: its exit status and its words are its own."""
        figs, self._pending = self._pending, []
        if not figs:
            return
        cmds = "".join(f'reset session\nload "data/{fig}.gp"\nunset output\nprint "drawn: {fig}"\n' for fig in figs)
        r = subprocess.run(["gnuplot"], input=cmds, cwd=self.dir, capture_output=True, text=True)
        quiet, said = set(), []
        for ln in r.stderr.splitlines():
            if ln.startswith("drawn: ") and ln[len("drawn: "):] in figs:
                if not said:
                    quiet.add(ln[len("drawn: "):])
                said = []
            else:
                said.append(ln)
        for fig in figs:
            if fig in quiet:
                self.messages[fig] = ""
                self._drawn.append(fig)
            else:
                self.draw_alone(fig)

    def draw_alone(self, fig: str) -> None:
        r = subprocess.run(["gnuplot", os.path.join("data", fig + ".gp")], cwd=self.dir,
                           capture_output=True, text=True)
        self.messages[fig] = r.stderr.strip()
        if r.returncode == 0:
            self._drawn.append(fig)
        else:
            err = [ln for ln in r.stderr.splitlines() if ln.strip() and "warning" not in ln]
            self._failed.append(f"{fig}: gnuplot failed: {err[-1] if err else r.returncode}")

    def line_chart(self, fig: str, chart: LineChart) -> None:
        self.plot(fig, title_of(chart), script(chart, f"data/{fig}.dat", f"{fig}.png"))

    def heatmap(self, fig: str, h: Heatmap) -> None:
        self.plot(fig, h.title, heatmap_script(h, f"data/{fig}.dat", f"{fig}.png"))

    def have(self, fig: str) -> bool:
        self.flush()
        return os.path.isfile(os.path.join(self.dir, fig + ".png"))


@dataclass
class Wide:
    """A metric against threads: the data file's lines and what each series is."""
    lines: list
    names: list                                  # header names, in column order
    parts: list                                  # per series: [(kind, value)], joined = name
    peaks: list                                  # per series: its peak values by x, or None
    series_values: list = field(default_factory=list)  # per series: its figures and peaks
    values: list = field(default_factory=list)   # every figure drawn (for the y axis)
    xs: list = field(default_factory=list)


def _parts(series: str, r: dict) -> list:
    v, b = r["variant"], blk(r.get("block_bytes"))
    if series == "variant":
        return [("variant", v)]
    if series == "block":
        return [("block", b)]
    if series == "test":
        return [("test", r["test"] + (v[v.index("@"):] if "@" in v else ""))]
    if series == "test_variant_block":
        return [("test", r["test"]), ("variant", v), ("block", b)]
    return [("variant", v), ("block", b)]


def wide(rows, suite, test_re, metric, vre, series, stats, peaks, prefer_fma):
    """A metric against threads (Wide), or None when no row is selected."""
    sel = [r for r in rows if r["suite"] == suite and re.search(test_re, r["test"] or "")
           and r["metric"] == metric and re.search(vre, r["variant"] or "")
           and r.get("threads") not in (None, "") and r.get("n")]
    have = {r["variant"] for r in sel}
    sid, names, parts, spk, val, th, xs = {}, [], [], [], {}, {}, set()
    st = stats.split(",")
    for r in sel:
        v = r["variant"]
        if prefer_fma and v.endswith("_addmul") and v[:-7] + "_fma" in have:
            continue
        p = _parts(series, r)
        for k, which in enumerate(st):
            pk = p + [("stat", which)] if len(st) > 1 else p
            name = " ".join(x for _, x in pk)
            if name not in sid:
                sid[name] = len(names)
                names.append(name)
                parts.append(pk)
                spk.append(peaks and k == 0)
            x = int(r["threads"])
            xs.add(x)
            val[sid[name], x] = r.get("p99") if which == "p99" else r.get("mean")
            if r.get("theoretical") is not None:
                th[sid[name], x] = r["theoretical"]
    if not names:
        return None
    hdr = "threads" + "".join(f' "{n}"' + (f' "peak {n}"' if peaks else "") for n in names)
    lines = [hdr]
    xs_sorted = sorted(xs)
    for x in xs_sorted:
        line = str(x)
        for s in range(len(names)):
            line += " " + num(val.get((s, x)))
            if peaks:
                line += " " + (num(th.get((s, x))) if spk[s] else "?")
        lines.append(line)
    pk_vals = []
    for s in range(len(names)):
        vec = tuple(th.get((s, x)) for x in xs_sorted)
        pk_vals.append(vec if spk[s] and any(t is not None for t in vec) else None)
    per = [tuple(v for (s2, _), v in val.items() if s2 == s) + (pk_vals[s] or ()) for s in range(len(names))]
    drawn = [v for vs in per for v in vs]
    return Wide(lines, names, parts, pk_vals, per, drawn, xs_sorted)


def nt_stores(variant: str) -> tuple:
    """A STREAM variant's panel (which stores) and legend word (the kernel and ISA)."""
    if variant.endswith("-nt"):
        return "non-temporal stores", variant[:-3]
    return "ordinary stores", variant


def series_of(w: Wide, panel_by: dict, peaks: bool) -> list:
    """One Series per data column: the parts named in panel_by make its panel, the rest its
    legend title and style key (so a block size keeps its style in every panel). panel_by
    maps a kind to how the panel title says it: a format, or a function of the part giving
    (panel title words, legend words)."""
    out, seen = [], {}
    for i, pk in enumerate(w.parts):
        pieces, words, rank = [], [], {}
        for kind, x in pk:
            how = panel_by.get(kind)
            if how is None:
                words.append(x)
                continue
            if isinstance(how, str):
                pieces.append(how.format(x))
            else:
                piece, word = how(x)
                pieces.append(piece)
                words.append(word)
            # Panels in the order of panel_by's kinds: block sizes ascending, the rest as met.
            rank[kind] = _bytes(x) if kind == "block" else seen.setdefault((kind, pieces[-1]), len(seen))
        panel = ", ".join(pieces)
        rest = " ".join(words) or w.names[i]
        col = 2 + i * (2 if peaks else 1)
        out.append(Series(rest, col, rest, panel, col + 1 if w.peaks[i] else None, w.peaks[i] or (),
                          w.series_values[i], tuple(rank.get(k, 0) for k in panel_by)))
    return out


def _bytes(size: str) -> int:
    """blk() read back: "4KiB" -> 4096."""
    for unit, mult in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)):
        if size.endswith(unit) and size[:-len(unit)].isdigit():
            return int(size[:-len(unit)]) * mult
    return 0


def threads_fig(c: Charts, fig, rows, suite, test_re, metric, vre, series, stats, peaks, fma,
                ttl, ylab, panel_by=None, panel_y=False):
    w = wide(rows, suite, test_re, metric, vre, series, stats, peaks, fma)
    if not w:
        return
    c.write(fig, w.lines)
    chart = LineChart(ttl, log2_axis(w.xs, "threads", str), value_axis(w.values, ylab),
                      series_of(w, panel_by or {}, bool(peaks)), panel_y=panel_y)
    c.line_chart(fig, chart)


ENGINE = {"variant": "engine {}"}


def suite_figs(c: Charts, s: dict) -> None:
    cpu, mem = s.get("cpu", []), s.get("memory", [])
    disk, net = s.get("disk", []), s.get("network", [])
    threads_fig(c, "cpu_flops_dp", cpu, "cpu", "^flops$", "flops", "_dp_", "variant", "mean", 1, 1,
                "CPU double precision: GFLOPS vs threads, per kernel", "GFLOPS")
    threads_fig(c, "cpu_flops_sp", cpu, "cpu", "^flops$", "flops", "_sp_", "variant", "mean", 1, 1,
                "CPU single precision: GFLOPS vs threads, per kernel", "GFLOPS")
    threads_fig(c, "cpu_iops_i32", cpu, "cpu", "^iops$", "iops_int", "_i32_add", "variant", "mean", 1, 0,
                "CPU 32-bit integer add: GIOPS vs threads, per kernel", "GIOPS")
    threads_fig(c, "cpu_iops_i64", cpu, "cpu", "^iops$", "iops_int", "_i64_add", "variant", "mean", 1, 0,
                "CPU 64-bit integer add: GIOPS vs threads, per kernel", "GIOPS")
    threads_fig(c, "cpu_linpack", cpu, "cpu", "^linpack$", "flops", "^dgesv$", "variant", "mean", 1, 0,
                "Linpack (LAPACKE dgesv): GFLOPS vs threads", "GFLOPS")
    for t in ("seq_rw", "rand_rw", "seq_read", "rand_read", "seq_write", "rand_write"):
        threads_fig(c, f"memory_{t}", mem, "memory", f"^{t}$", "throughput", "", "block", "mean", 1, 0,
                    f"Memory {t}: throughput vs threads, per block size", "MB/s")
    threads_fig(c, "memory_stream", mem, "memory", "^stream$", "throughput", "", "variant", "mean", 1, 0,
                "STREAM kernels: throughput vs threads", "MB/s", {"variant": nt_stores})
    # Disk: one panel per block size, each with its own y axis, a line per engine (the same
    # style in every panel). In one plot the large blocks' lines all lay on the device's
    # bandwidth, indistinguishable, under a log axis that the 8-byte blocks needed.
    for t in ("seq_rw", "seq_read", "seq_write", "rand_read", "rand_write"):
        threads_fig(c, f"disk_{t}", disk, "disk", f"^{t}$", "throughput", "", "variant_block", "mean", 1, 0,
                    f"Disk {t}: throughput vs threads, per block size and engine", "MB/s", {"block": "{} blocks"},
                    True)
    threads_fig(c, "disk_iops", disk, "disk", "^rand_", "iops", "", "test_variant_block", "mean", 0, 0,
                "Disk random I/O: IOPS vs threads, per test, block size and engine", "IOPS",
                {"block": "{} blocks", "test": "{}"}, True)
    threads_fig(c, "disk_latency", disk, "disk", "^rand_read$", "latency", "", "variant_block", "mean,p99", 0, 0,
                "Disk random read: latency per I/O vs threads, per engine (mean, p99)", "us",
                {**ENGINE, "stat": "{} latency"})
    # "@host" names the two-node rows (--peer), said in the title only when the run has them
    two = " (@host: two nodes)" if any("@" in (r.get("variant") or "") for r in net) else ""
    threads_fig(c, "network_throughput", net, "network", "_throughput$", "throughput", "^(tcp|udp)(@.*)?$",
                "test", "mean", 1, 0, f"Network: throughput at the receiver vs threads{two}", "Gbit/s")
    threads_fig(c, "network_latency", net, "network", "_latency$", "latency", "^(tcp|udp)(@.*)?$",
                "test", "mean,p99", 0, 0, f"Network: round-trip latency vs threads{two}", "us",
                {"stat": "{} round trip"})
    threads_fig(c, "network_loss", net, "network", "_throughput$", "loss", "^udp(@.*)?$", "test", "mean", 0, 0,
                "UDP loss at the receiver vs threads", "%")
