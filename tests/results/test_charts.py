"""Charts a reader can read (issue 26): for a full-size synthetic run (disk: 2 engines x 8
block sizes = 16 series per test, 5 CPU kernels with peaks, 8 STREAM variants, ...) every
gnuplot script the results program writes is read back and checked: no plot holds more
than 8 series (more go to panels), no two lines of one plot share colour and dash, every
series is in a legend placed outside the data, log axes where the data span decades. The
scripts are checked as text (no gnuplot needed); with gnuplot, each is also drawn."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.charts import chart_gp, chart_styles, charts_special  # noqa: E402
from peakresults.charts.charts import Charts, suite_figs  # noqa: E402
from peakresults.core import schema  # noqa: E402

KiB, MiB = 1 << 10, 1 << 20
THREADS = (1, 2, 4, 8)
DISK_BLOCKS = (8, 4 * KiB, 8 * KiB, 64 * KiB, 1 * MiB, 8 * MiB, 80 * MiB, 256 * MiB)
ENGINES = ("psync", "uring-qd8")

# The PNGs a full run draws; report.md names them, so a change here is a change there.
FIGS = {"cpu_flops_dp", "cpu_flops_sp", "cpu_iops_i32", "cpu_iops_i64", "cpu_linpack",
        "memory_seq_rw", "memory_rand_rw", "memory_seq_read", "memory_rand_read", "memory_seq_write",
        "memory_rand_write", "memory_stream", "memory_latency", "roofline",
        "disk_seq_rw", "disk_seq_read", "disk_seq_write", "disk_rand_read", "disk_rand_write",
        "disk_iops", "disk_latency", "network_throughput", "network_latency", "network_loss",
        "dpdk_mpps", "efficiency", "baseline"}


def row(suite, test, variant, threads, mean, metric, unit, block=None, theoretical=None, p99=None):
    r = dict.fromkeys(schema.COLUMNS)
    r.update(suite=suite, test=test, variant=variant, threads=threads, block_bytes=block, metric=metric,
             unit=unit, n=3, mean=mean, stddev=mean * 0.01, p99=p99, theoretical=theoretical,
             flags="above_peak" if theoretical and mean > theoretical else "",
             efficiency=mean / theoretical if theoretical else None)
    return r


def synthetic() -> dict:
    """A full-size run's rows, per suite, shaped like the binaries' (values made up)."""
    cpu, mem, disk, net, dpdk = [], [], [], [], []
    lanes = {"scalar": 1, "sse": 2, "avx": 4, "avx2": 4, "avx512": 8}
    for t in THREADS:
        for isa, kern in (("scalar", "fma"), ("scalar", "addmul"), ("sse", "addmul"), ("avx", "addmul"),
                          ("avx2", "fma"), ("avx512", "fma")):
            for prec, k in (("dp", 1), ("sp", 2)):
                peak = lanes[isa] * (4 if kern == "fma" else 2) * k * 3.7 * t
                cpu.append(row("cpu", "flops", f"{isa}_{prec}_{kern}", t, peak * 0.97, "flops", "GFLOPS",
                               theoretical=peak))
        for isa in ("scalar", "sse", "avx2", "avx512"):
            for w in ("i32", "i64"):
                peak = 4 * lanes[isa] * (2 if w == "i32" else 1) * 3.7 * t
                cpu.append(row("cpu", "iops", f"{isa}_{w}_add", t, peak * 0.98, "iops_int", "GIOPS",
                               theoretical=peak))
        cpu.append(row("cpu", "linpack", "dgesv", t, 40.0 * t ** 0.8, "flops", "GFLOPS", theoretical=59.2 * t))
        for test in ("seq_rw", "rand_rw", "seq_read", "rand_read", "seq_write", "rand_write"):
            for b, v in ((8, 9000), (8 * KiB, 60000), (8 * MiB, 30000), (80 * MiB, 14000)):
                mem.append(row("memory", test, "avx512", t, v * min(t, 4) ** 0.7, "throughput", "MB/s", b,
                               theoretical=89600.0))
        for kern in ("copy", "scale", "add", "triad"):
            for var in ("avx512", "avx512-nt"):
                nt = 1.3 if var.endswith("-nt") and kern != "scale" else 1.0
                mem.append(row("memory", "stream", f"{kern}-{var}", t, nt * 20000 * min(t, 4) ** 0.6 + len(kern) * 900,
                               "throughput", "MB/s", 64 * MiB))
        for test in ("seq_rw", "seq_read", "seq_write", "rand_read", "rand_write"):
            for e in ENGINES:
                for b in DISK_BLOCKS:
                    iops = (90000 if e == "psync" else 400000) * min(t, 4) ** 0.5
                    mbps = min(2700.0 + (30 if e == "psync" else 0) + b % 97, b * iops / 1e6)
                    disk.append(row("disk", test, e, t, mbps, "throughput", "MB/s", b))
                    if b <= 64 * KiB:
                        disk.append(row("disk", test, e, t, mbps * 1e6 / b, "iops", "IOPS", b))
                    lat = b / mbps
                    disk.append(row("disk", test, e, t, lat, "latency", "us", b, p99=lat * 2.5))
        for proto in ("tcp", "udp"):
            for v in (proto, f"{proto}@node2"):
                f = (1.0 if proto == "tcp" else 0.6) * (1.0 if "@" not in v else 0.7)
                net.append(row("network", f"{proto}_throughput", v, t, f * 9.0 * t ** 0.6, "throughput", "Gbit/s",
                               64 * KiB, theoretical=100.0 if "@" not in v else 25.0))
                net.append(row("network", f"{proto}_latency", v, t, (18.0 + t) / f, "latency", "us", 16,
                               p99=(40.0 + 3 * t) / f))
                if proto == "udp":
                    net.append(row("network", "udp_throughput", v, t, 0.01 * t, "loss", "%", 1472))
    for flows in (1, 4):
        for size in (64, 128, 256, 512, 1024, 1518):
            dpdk.append(row("dpdk", "rx", f"memif-flows{flows}", 1, 14.8 * 64 / size * flows ** 0.3, "rate",
                            "Mpps", size))
    for ws in (4 * KiB << k for k in range(0, 19)):
        for v, f in (("chase-4k", 1.0), ("chase-thp", 0.8), ("chase-hugetlb", 0.75)):
            ns = 1.1 if ws <= 32 * KiB else 4.0 if ws <= MiB else 12 if ws <= 32 * MiB else 90 * f
            mem.append(row("memory", "latency", v, 1, ns, "latency", "ns", ws))
    return {"cpu": cpu, "memory": mem, "disk": disk, "network": net, "dpdk": dpdk}


CONTEXT = {"cache.l1d": 48 * KiB, "cache.l2": 1 * MiB, "cache.l3": 32 * MiB}


def draw_all(out: str, draw: bool) -> Charts:
    """Every chart of the synthetic run into out/charts, as finish does."""
    s = synthetic()
    c = Charts(out, draw)
    suite_figs(c, s)
    levels = [dict(level=lv, mean=v) for lv, v in (("L1", 400000.0), ("L2", 200000.0), ("DRAM", 50000.0))]
    charts_special.latency_fig(c, s["memory"], CONTEXT)
    charts_special.dpdk_fig(c, s["dpdk"])
    charts_special.efficiency_fig(c, s)
    matches = [(r, dict(r, tool="fio", mean=r["mean"] * f)) for r, f in
               zip([r for r in s["disk"] if r["threads"] == 1 and r["metric"] == "throughput"][:12],
                   (0.8, 0.9, 1.0, 1.1, 1.25, 0.95) * 2)]
    charts_special.baseline_fig(c, matches)
    charts_special.roofline_fig(c, s["cpu"], levels, s["memory"])
    return c


# --- reading a gnuplot script back ---------------------------------------------------

def split_top(s: str, sep: str = ",") -> list:
    """s cut at sep outside quotes, parentheses and brackets."""
    out, cur, depth, quote = [], "", 0, ""
    i = 0
    while i < len(s):
        ch = s[i]
        if quote:
            cur += ch
            if ch == "\\" and quote == '"' and i + 1 < len(s):
                cur += s[i + 1]
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            cur += ch
        elif ch in "([":
            depth += 1
            cur += ch
        elif ch in ")]":
            depth -= 1
            cur += ch
        elif ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def plots(gp: str) -> list:
    """Each plot command (continuation lines joined) with the settings in force: a list
    of (settings: dict of the last 'set <what>' lines, clauses: list of dicts)."""
    lines, out, settings, i = gp.splitlines(), [], {}, 0
    while i < len(lines):
        ln = lines[i].strip()
        if ln.startswith(("set ", "unset ")):
            w = ln.split()
            settings[" ".join(w[1:3]) if w[1] == "logscale" else w[1]] = ln
        if ln.startswith("plot "):
            cmd = ln
            while cmd.endswith("\\"):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            out.append((dict(settings), [clause(c) for c in split_top(cmd[5:])]))
        i += 1
    return out


def clause(c: str) -> dict:
    title = re.search(r'\btitle "((?:[^"\\]|\\.)*)"', c)
    colour = re.search(r'\b(?:lc|fc) rgb (?:"(#[0-9a-fA-F]{6})"|(variable))', c)
    return {"text": c,
            "with": (re.search(r"\bwith (\w+)", c) or [None, None])[1],
            "title": title[1] if title else None,
            "notitle": bool(re.search(r"\bnotitle\b", c)),
            "colour": (colour[1] or colour[2]).lower() if colour else None,
            "dash": (re.search(r"\bdt (\d+|\([^)]*\))", c) or [None, "1"])[1],
            "point": (re.search(r"\bpt (\d+)", c) or [None, None])[1],
            "keyentry": c.startswith("keyentry")}


def is_reference(cl: dict) -> bool:
    return cl["with"] == "lines" and cl["dash"] == str(chart_styles.REF_DASH) and not cl["keyentry"]


def series(clauses: list) -> list:
    """The data a plot draws, as a reader counts them in its legend: not the value labels,
    the legend-only entries nor the dashed reference lines (theoretical peaks)."""
    return [c for c in clauses if c["with"] != "labels" and not c["keyentry"] and not is_reference(c)]


class Style(unittest.TestCase):
    def test_table_styles_differ(self):
        pairs = [(s.colour, s.dash) for s in chart_styles.STYLES]
        self.assertEqual(len(pairs), len(set(pairs)))
        first = chart_styles.STYLES[:chart_styles.MAX_SERIES]
        self.assertEqual(len({s.colour for s in first}), chart_styles.MAX_SERIES)
        self.assertEqual(len({s.point for s in first}), chart_styles.MAX_SERIES)
        self.assertNotIn(chart_styles.REF_DASH, chart_styles.SERIES_DASHES)
        self.assertNotIn(chart_styles.REF_COLOUR, chart_styles.COLOURS)

    def test_axes_fit_the_data(self):
        a = chart_gp.value_axis([2400.0, 2700.0], "MB/s")
        self.assertEqual(a.log, 0)
        self.assertGreater(a.lo, 2000)  # no forced zero squashing the lines together
        self.assertLess(a.hi, 3000)
        a = chart_gp.value_axis([2706.0, 2736.0], "MB/s")  # 1% apart: not top and bottom
        self.assertGreater(a.hi - a.lo, 0.1 * 2736)
        a = chart_gp.value_axis([0.0, 0.5], "%")
        self.assertEqual(a.lo, 0.0)  # a share does not go below zero
        a = chart_gp.value_axis([1.0, 2700.0], "MB/s")  # 8 B and 80 MiB blocks
        self.assertEqual(a.log, 10)
        self.assertGreater(len(a.tics), 3)
        self.assertGreater(len(chart_gp.log_tics(90.0, 130.0)), 2)  # a short log axis still has labels


class Scripts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.c = draw_all(cls.tmp, draw=False)
        cls.gp = {}
        for f in sorted(os.listdir(cls.c.data)):
            if f.endswith(".gp"):
                with open(os.path.join(cls.c.data, f), encoding="utf-8") as fh:
                    cls.gp[f[:-3]] = fh.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_every_figure_has_a_script_and_a_title(self):
        self.assertEqual(set(self.gp), FIGS)
        self.assertEqual(set(self.c.titles), FIGS)

    def test_bar_titles_centred_on_the_canvas(self):
        # issue 41: efficiency.png's title, centred over a plot pushed right by its long bar
        # labels, ran off the canvas ("measured / theoretic"); a bar chart centres its title
        # on the canvas, and its words fit its width at its font (about 0.6 em a character)
        from peakresults.charts import chart_bars
        for fig in ("efficiency", "baseline"):
            gp = self.gp[fig]
            self.assertNotRegex(gp, r"(?m)^set title ", fig)
            m = re.search(rf'(?m)^set label {chart_bars.TITLE_LABEL} "([^"]+)" at screen 0.5, screen [0-9.]+ center',
                          gp)
            self.assertIsNotNone(m, fig)
            self.assertEqual(m[1], self.c.titles[fig])
            width = int(re.search(r"size (\d+),", gp)[1])
            font = int(re.search(r'font "[^,"]*,(\d+)"', gp)[1])
            self.assertLess(len(m[1]) * font * 0.6, width, fig)

    def test_at_most_eight_series_per_plot(self):
        for fig, gp in self.gp.items():
            for _, cl in plots(gp):
                self.assertLessEqual(len(series(cl)), chart_styles.MAX_SERIES, fig)

    def test_sixteen_disk_series_become_panels(self):
        ps = plots(self.gp["disk_seq_read"])
        self.assertEqual(len(ps), len(DISK_BLOCKS))  # one per block size
        self.assertIn("set multiplot layout", self.gp["disk_seq_read"])
        self.assertEqual(sum(len(series(cl)) for _, cl in ps), len(ENGINES) * len(DISK_BLOCKS))
        for _, cl in ps:  # an engine has one style in every panel
            self.assertEqual([(c["title"], c["colour"], c["point"]) for c in series(cl)],
                             [(c["title"], c["colour"], c["point"]) for c in series(ps[0][1])])
        # Each panel's y axis is its own: the 1 MiB lines at 2,700 MB/s are not squashed
        # at the top of an axis that starts at the 8-byte blocks' 1 MB/s.
        for settings, _ in ps:
            if '"1MiB blocks"' in settings["title"]:
                self.assertEqual(settings["logscale y"], "unset logscale y")
                lo = float(re.search(r"\[([-0-9.e+]+):", settings["yrange"])[1])
                self.assertGreater(lo, 2000, settings["yrange"])

    def test_no_two_lines_share_colour_and_dash(self):
        for fig, gp in self.gp.items():
            for n, (_, cl) in enumerate(plots(gp)):
                styles = [(c["colour"], c["dash"]) for c in cl
                          if c["with"] != "labels" and c["colour"] not in (None, "variable")]
                self.assertEqual(len(styles), len(set(styles)), f"{fig} plot {n + 1}: {styles}")
                pts = [(c["colour"], c["point"]) for c in cl if c["with"] == "linespoints"]
                self.assertEqual(len(pts), len(set(pts)), fig)

    def test_every_series_has_a_title(self):
        for fig, gp in self.gp.items():
            for _, cl in plots(gp):
                titled = {c["colour"] for c in cl if c["title"]}
                for c in cl:
                    if c["with"] == "labels":
                        continue
                    if c["title"]:
                        self.assertTrue(c["title"].strip(), fig)
                        continue
                    self.assertTrue(c["notitle"], f"{fig}: {c['text']}")
                    if is_reference(c):  # an untitled peak: its series' colour, dashes explained
                        self.assertIn(c["colour"], titled, fig)
                        self.assertTrue(any(k["keyentry"] and "dashed" in (k["title"] or "") for k in cl), fig)
                    else:  # bars coloured by mark: each colour has a legend entry
                        self.assertEqual(c["colour"], "variable", f"{fig}: {c['text']}")
                        self.assertTrue(any(k["keyentry"] for k in cl), fig)

    def test_legend_outside_the_data(self):
        for fig, gp in self.gp.items():
            for settings, _ in plots(gp):
                key = settings.get("key", "")
                self.assertTrue(" outside" in key or " at screen" in key, f"{fig}: {key}")

    def test_log_axes_where_the_data_span_decades(self):
        for fig in ("disk_latency", "cpu_flops_dp", "memory_latency"):
            self.assertRegex(self.gp[fig], r"(?m)^set logscale y 10$", fig)
        for fig in ("memory_stream", "network_latency"):
            self.assertNotRegex(self.gp[fig], r"(?m)^set logscale y", fig)
            lo = float(re.search(r"(?m)^set yrange \[([-0-9.e+]+):", self.gp[fig])[1])
            self.assertGreater(lo, 0, fig)  # starts where the data does
        self.assertRegex(self.gp["disk_seq_read"], r"(?m)^set logscale x 2$")  # threads double

    def test_peaks_dashed_in_the_legend(self):
        ps = plots(self.gp["cpu_flops_dp"])
        refs = [c for _, cl in ps for c in cl if is_reference(c)]
        peaks = {}  # kernel -> its peaks by thread count; kernels with equal peaks share a line
        for r in synthetic()["cpu"]:
            if r["test"] == "flops" and "_dp_" in r["variant"] and r["variant"] != "scalar_dp_addmul":
                peaks.setdefault(r["variant"], []).append(r["theoretical"])
        self.assertEqual(len(refs), len({tuple(v) for v in peaks.values()}))
        self.assertGreater(len(refs), 1)
        ps = plots(self.gp["network_throughput"])  # two peaks, each shared by tcp and udp
        refs = [c for _, cl in ps for c in cl if is_reference(c)]
        self.assertEqual(len(refs), 2)

    def test_two_nodes_said_only_with_their_rows(self):
        # the synthetic rows have tcp@node2: the title says what @ means; without such
        # rows it does not mention two nodes
        self.assertIn("(@host: two nodes)", self.c.titles["network_throughput"])
        rows = {k: [r for r in v if "@" not in (r.get("variant") or "")] for k, v in synthetic().items()}
        with tempfile.TemporaryDirectory() as d:
            c = Charts(d, False)
            suite_figs(c, rows)
            self.assertNotIn("two nodes", c.titles["network_throughput"])
            self.assertNotIn("two nodes", c.titles["network_latency"])

    def test_peak_at_one_x_has_a_mark(self):
        # a line needs two points: a peak known at one thread count only (the full run's
        # linpack) is drawn with a mark, or the legend names a peak the plot does not show
        self.assertEqual(chart_gp._ref_kind((96.0,)), "linespoints pt 2 ps 2")
        self.assertEqual(chart_gp._ref_kind((None, 96.0)), "linespoints pt 2 ps 2")
        self.assertEqual(chart_gp._ref_kind((48.0, 96.0)), "lines")

    def test_disk_iops_keeps_engines_apart(self):
        with open(os.path.join(self.c.data, "disk_iops.dat"), encoding="utf-8") as f:
            hdr = f.readline()
        for e in ENGINES:
            self.assertIn(f'"rand_read {e} 4KiB"', hdr)


class Drawn(unittest.TestCase):
    """The scripts run in gnuplot, without an error or a warning (empty range, undefined
    points), and leave a PNG; drawn in one gnuplot (Charts.flush), the same PNG as each
    script alone, and a script that fails there costs the others nothing."""

    def setUp(self):
        if not shutil.which("gnuplot"):
            self.skipTest("gnuplot not installed: the scripts are checked as text only")
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_gnuplot_draws_every_chart(self):
        c = draw_all(self.tmp, draw=True)
        figs = sorted(f[:-3] for f in os.listdir(c.data) if f.endswith(".gp"))
        self.assertEqual(c.failed, [])
        self.assertEqual(sorted(c.drawn), figs)
        for fig in figs:
            self.assertEqual(c.messages[fig], "", fig)
            self.assertTrue(os.path.getsize(os.path.join(c.dir, fig + ".png")) > 10000, fig)
        # each script alone (as a user runs it: gnuplot data/FIG.gp) draws the same PNG
        for fig in figs[:2] + ["roofline"]:
            with open(os.path.join(c.dir, fig + ".png"), "rb") as f:
                together = f.read()
            r = subprocess.run(["gnuplot", os.path.join("data", fig + ".gp")], cwd=c.dir, capture_output=True,
                               text=True, check=False)
            self.assertEqual((r.returncode, r.stderr.strip()), (0, ""), fig)
            with open(os.path.join(c.dir, fig + ".png"), "rb") as f:
                self.assertEqual(f.read(), together, fig)

    def test_a_failing_script_fails_alone(self):
        c = Charts(self.tmp, True)
        good = 'set terminal png size 200,100\nset output "{}.png"\nplot x\n'
        c.plot("first", "", good.format("first"))
        c.plot("broken", "", 'set terminal png size 200,100\nset output "broken.png"\nplot nonsense(x)\n')
        c.plot("third", "", good.format("third"))
        self.assertEqual(c.drawn, ["first", "third"])
        self.assertEqual(len(c.failed), 1)
        self.assertRegex(c.failed[0], r"^broken: gnuplot failed: .*undefined function")
        for fig in ("first", "third"):
            self.assertTrue(os.path.getsize(os.path.join(c.dir, fig + ".png")) > 100, fig)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--draw":  # for a look: draw the synthetic run
        ch = draw_all(sys.argv[2], draw=True)
        print(f"{len(ch.drawn)} charts in {ch.dir}; failed: {ch.failed}")
        sys.exit(0)
    unittest.main()
