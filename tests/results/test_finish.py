"""peakresults finish: the recorded tiny run (tests/fixtures/results/tiny) against what the
old bash/awk/jq pipeline made of it, and the pieces on small made-up inputs: the bimodal
detector, the second pass's pooling, RFC 4180 cells, the join on real fields, missing
suites, a baseline with no peakbench row, a skip reason holding a comma."""
import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

unittest.TestCase.maxDiff = 2000

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "results", "tiny")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.core import csvout, schema  # noqa: E402
from peakresults.merge import pool  # noqa: E402
from peakresults.merge.bimodal import modes  # noqa: E402
from peakresults.report import report_refs  # noqa: E402
from peakresults.report.finish import finish  # noqa: E402


def run_cli(*args):
    return subprocess.run([sys.executable, os.path.join(REPO, "scripts", "peakresults"), *args],
                          capture_output=True, text=True, check=False)


def fixture_copy(tmp: str, keep_json_baselines: bool = True) -> str:
    d = os.path.join(tmp, "run")
    shutil.copytree(FIX, d, ignore=shutil.ignore_patterns("old"))
    if keep_json_baselines:  # the new form only: the old CSV is legacy.py's test
        for f in os.listdir(os.path.join(d, "raw")):
            if f.startswith("baseline-") and f.endswith(".csv"):
                os.remove(os.path.join(d, "raw", f))
    return d


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def table_lines(text):
    return [ln for ln in text.splitlines() if ln.startswith("| ") and not ln.startswith("| ---")]


def section(text, title):
    """Lines of a '## title' section up to the next '## '."""
    out, on = [], False
    for ln in text.splitlines():
        if ln.startswith("## "):
            on = ln == f"## {title}"
            continue
        if on:
            out.append(ln)
    return out



@contextlib.contextmanager
def fake_pairs(fake):
    """Stand FAKE's load_pairs and write_pairs_csv in for peakresults.pairs.pairs' own (the modules
    that use them import pairs once, at the top)."""
    from peakresults.pairs import pairs
    saved = pairs.load_pairs, pairs.write_pairs_csv
    pairs.load_pairs, pairs.write_pairs_csv = fake.load_pairs, fake.write_pairs_csv
    try:
        yield
    finally:
        pairs.load_pairs, pairs.write_pairs_csv = saved


class Bimodal(unittest.TestCase):
    def test_one_mode(self):
        self.assertIsNone(modes([100.0, 101.0, 99.5, 100.4, 100.9, 99.8]))

    def test_two_modes(self):
        m = modes([100.0, 101.0, 99.5, 150.2, 149.8, 151.0])
        self.assertIsNotNone(m)
        self.assertAlmostEqual(m[0], 100.0)
        self.assertAlmostEqual(m[1], 150.2)

    def test_one_outlier_is_not_a_mode(self):
        self.assertIsNone(modes([100.0, 101.0, 99.5, 100.4, 100.9, 180.0]))

    def test_too_few(self):
        self.assertIsNone(modes([1.0, 2.0, 3.0]))

    def test_close_clusters_are_noise(self):
        # Two tight groups 2% apart: noise, not two machine states.
        self.assertIsNone(modes([100.0, 100.01, 100.02, 102.0, 102.01, 102.02]))


def row(samples, **kw):
    r = {c: None for c in schema.COLUMNS}
    r.update(suite="cpu", test="flops", variant="avx2_dp_fma", threads=1, block_bytes=None,
             metric="flops", unit="GFLOPS", flags="", baseline_tool="", samples=list(samples))
    r.update(kw)
    r = pool.restat(r, samples)
    return r


class Pool(unittest.TestCase):
    def test_pooled_stats(self):
        a = row([10.0, 11.0], theoretical=20.0)
        a["efficiency"] = a["mean"] / 20.0
        b = row([12.0], flags="steal")
        (p,) = pool.pool([a], [b])
        self.assertEqual(p["n"], 3)
        self.assertAlmostEqual(p["mean"], 11.0)
        self.assertAlmostEqual(p["stddev"], 1.0)
        self.assertEqual((p["min"], p["median"], p["max"]), (10.0, 11.0, 12.0))
        self.assertAlmostEqual(p["ci95_high"] - p["mean"], 4.3027 / 3 ** 0.5, places=3)
        self.assertAlmostEqual(p["efficiency"], 11.0 / 20.0)
        self.assertEqual(p["flags"], "steal")

    def test_bimodal_flagged_with_both_modes(self):
        a = row([100.0, 101.0, 99.5])
        b = row([150.2, 149.8, 151.0])
        (p,) = pool.pool([a], [b])
        self.assertIn("bimodal", schema.flags_of(p))
        self.assertIn("modes=100|150.2", p["flags"].split(";"))

    def test_unmatched_second_pass_row_kept(self):
        a = row([1.0, 1.1])
        b = row([2.0, 2.1], threads=2)
        self.assertEqual(len(pool.pool([a], [b])), 2)


class Csv(unittest.TestCase):
    def test_reason_with_comma_is_one_cell(self):
        r = {c: None for c in schema.COLUMNS}
        r.update(suite="disk", test="seq_read", n=0, flags='skipped: no iozone, "build it", or fio')
        text = csvout.to_csv([r])
        rows = list(csv.reader(io.StringIO(text)))
        self.assertEqual(tuple(rows[0]), schema.COLUMNS)
        self.assertEqual(len(rows[1]), len(schema.COLUMNS))
        self.assertEqual(rows[1][-1], 'skipped: no iozone, "build it", or fio')

    def test_numbers(self):
        self.assertEqual(csvout.cell(3.0), "3")
        self.assertEqual(csvout.cell(0.1), "0.1")
        self.assertEqual(csvout.cell(None), "")


class SchemaDefinedOnce(unittest.TestCase):
    def test_baseline_columns(self):
        self.assertEqual(schema.BASELINE_COLUMNS[:4], ("tool", "tool_version", "job", "config"))
        self.assertEqual(tuple(c for c in schema.COLUMNS if c not in ("baseline_tool", "baseline")),
                         schema.BASELINE_COLUMNS[4:])

    def test_docs_baseline_columns(self):
        doc = read(os.path.join(REPO, "docs", "results-schema.md"))
        self.assertIn(schema.BASELINE_SCHEMA, doc)
        for c in schema.BASELINE_COLUMNS[:4]:
            self.assertIn(f"`{c}`", doc)

    def test_no_shell_spells_the_schema(self):
        # The schema is spelled in schema.py (and checked against the C side below): no
        # shell script keeps a copy of the header or an awk reader of the CSV.
        for d in ("scripts", "."):
            for name in os.listdir(os.path.join(REPO, d)):
                if name.endswith(".sh"):
                    text = read(os.path.join(REPO, d, name))
                    self.assertNotIn("suite,test,variant,threads,block_bytes", text, name)
                    self.assertNotIn("csv_split", text, name)

    def test_c_spellings_are_the_schema(self):
        # The C unit test's expected header and schema_check's kind table (one per column).
        src = read(os.path.join(REPO, "tests", "unit", "test_report.c"))
        m = re.search(r"expected_header =\s*((?:\"[^\"]*\"\s*)+);", src)
        self.assertTrue(m)
        self.assertEqual(tuple("".join(re.findall(r'"([^"]*)"', m.group(1))).split(",")), schema.COLUMNS)
        src = read(os.path.join(REPO, "tests", "schema_check.c"))
        table = src[src.index("col_kinds[] = {"):]
        table = table[:table.index("};")]
        kinds = re.findall(r"\b(TEXT|REQ_TEXT|UINT_OR_EMPTY|NUM_OR_EMPTY|UINT_REQ)\b,", table)
        self.assertEqual(len(kinds), len(schema.COLUMNS))

    def test_no_awk_or_jq_shapes_results(self):
        for gone in ("report.sh", "plot.sh", "lib_results.sh"):
            self.assertFalse(os.path.exists(os.path.join(REPO, "scripts", gone)), gone)
        lib = read(os.path.join(REPO, "scripts", "lib.sh"))
        for word in ("PEAK_JQ_TO_CSV", "peak_join_baselines", "merge_suite", "json_to_csv"):
            self.assertNotIn(word, lib)


# Fix: one figure per group comes from its best unflagged row (pick.py). The measured DP roof
# is the 1-thread row (the 2-thread one ran contended); L1's only row ran with steal and says
# so; udp_throughput's bar is its 1-thread row (2 threads: steal); each bar has a mark column.
CHART_FIXES = {
    # Fix (issue 26): disk_iops had one series per test and block, so the second engine's row
    # overwrote the first's; each engine is now its own series.
    "disk_iops.dat": [('threads "rand_read 4KiB"\n1 61606.646675717624\n2 71518.15547620435\n',
                       'threads "rand_read psync 4KiB" "rand_read uring-qd32 4KiB"\n'
                       '1 14301.940860194341 61606.646675717624\n2 19199.83167762163 71518.15547620435\n')],
    # Fix (issue 41): one clock per figure: the DP roof is the drawn row's peak (the summary's
    # headline, at its clock), named so, not the highest of every row's peaks.
    "roofline.dat": [("peak theoretical_DP_peak 116.979\n", "peak theoretical_DP_peak_(avx512_dp_fma_1t) 59.090\n"),
                     ("peak measured_avx512_dp_fma_2t 85.552\n", "peak measured_avx512_dp_fma_1t 58.538\n"),
                     ("bw L1_bandwidth 412.347\n", "bw L1_bandwidth_(no_unflagged_row:_steal) 412.347\n")],
    "efficiency.dat": [("# label best_efficiency_percent\n",
                        "# label best_efficiency_percent mark(0 unflagged, 1 only flagged rows, 2 above_peak)\n"),
                       ('"cpu/flops/avx512" 99.67\n', '"cpu/flops/avx512" 99.67 0\n'),
                       ('"cpu/iops/avx512" 99.35\n', '"cpu/iops/avx512" 99.35 0\n'),
                       ('"cpu/linpack" 11.78\n', '"cpu/linpack" 11.78 0\n'),
                       ('"network/tcp_throughput" 30.34\n', '"network/tcp_throughput" 30.34 0\n'),
                       ('"network/udp_throughput" 9.56\n', '"network/udp_throughput" 6.11 0\n')],
}


# Old prose that issue 26's layout (summary first, detail in the appendix) rewrote.
ISSUE26_PROSE = {
    "### Transactions per second and CPU use", "### Efficiency (best over the thread counts)",
    "<details><summary>Every context key</summary>", "</details>", "### Theoretical peaks and their sources",
    "Each tool ran with parameters matched to ours (see docs/benchmarks/suite.md for the mapping);",
    "the ratio is peakbench / tool (for latency lower is better, so below 100% means peakbench is faster).",
}


class Fixture(unittest.TestCase):
    """The recorded run: the new program's output equals the old pipeline's (tiny/old/)
    except the documented fixes (docs/design.md, "The results program")."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.out = fixture_copy(cls.tmp)
        cls.res, cls.charts = finish(cls.out, draw=shutil.which("gnuplot") is not None)
        cls.md = read(os.path.join(cls.out, "report.md"))
        cls.app = read(os.path.join(cls.out, "report-appendix.md"))
        cls.old = read(os.path.join(FIX, "old", "report.md"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_suite_csv_equal_but_frame_bytes(self):
        for s in ("cpu", "memory", "disk", "network", "dpdk", "peaks"):
            old = csvout.read_csv(os.path.join(FIX, "old", f"{s}.csv"))
            new = csvout.read_csv(os.path.join(self.out, f"{s}.csv"))
            self.assertEqual(len(old), len(new), s)
            for a, b in zip(old, new):
                # Fix: frame_bytes= is not a warning; the frame is block_bytes + 46.
                a["flags"] = ";".join(f for f in a["flags"].split(";") if not f.startswith("frame_bytes="))
                # Fix (issue 34): linpack's twin is marked a comparison row (physics.py).
                if "same_run_as_dgesv" in a["flags"].split(";"):
                    a["flags"] += ";comparison"
                for k in schema.COLUMNS:
                    if a[k] == b[k]:
                        continue
                    self.assertAlmostEqual(float(a[k]), float(b[k]), delta=1e-9 * abs(float(a[k])),
                                           msg=f"{s} {k}")

    def test_results_and_baselines_csv(self):
        rows = csvout.read_csv(os.path.join(self.out, "results.csv"))
        self.assertEqual(len(rows), sum(len(v["results"]) for v in self.res.merged.suites.values()))
        with open(os.path.join(self.out, "baselines.csv"), encoding="utf-8") as f:
            self.assertEqual(tuple(next(csv.reader(f))), schema.BASELINE_COLUMNS)

    def test_join_on_key_as_the_old_matches(self):
        old = set()
        for ln in read(os.path.join(FIX, "old", "matches.tsv")).splitlines():
            f = ln.split("\t")
            old.add((f[0], f[1], f[2], f[3], f[4], f[5], f[6]))
        new = {(r["suite"], r["test"], r["variant"], str(r["threads"]), str(r["block_bytes"] or ""),
                r["metric"], b["tool"]) for r, b in self.res.matches}
        self.assertEqual(old, new)
        triad = [r for r in self.res.merged.suites["memory"]["results"]
                 if r["test"] == "stream" and r["variant"] == "triad-avx512" and r["threads"] == 1][0]
        self.assertEqual(triad["baseline_tool"], "hpcc")  # the first of two references wins

    def test_chart_data_equal(self):
        d_old = os.path.join(FIX, "old", "charts", "data")
        d_new = os.path.join(self.out, "charts", "data")
        self.assertEqual(sorted(f for f in os.listdir(d_old) if f.endswith(".dat")),
                         sorted(f for f in os.listdir(d_new) if f.endswith(".dat")))
        for f in os.listdir(d_old):
            want = read(os.path.join(d_old, f))
            for a, b in CHART_FIXES.get(f, ()):
                self.assertIn(a, want, f)
                want = want.replace(a, b)
            self.assertEqual(want, read(os.path.join(d_new, f)), f)

    def test_charts_drawn(self):
        if not self.charts.draw_on:
            self.skipTest("gnuplot not installed")
        want = read(os.path.join(FIX, "old", "charts", "list.txt")).split()
        self.assertEqual(sorted(want), sorted(f + ".png" for f in self.charts.drawn))
        for f in want:
            self.assertIn(f"(charts/{f})", self.md)

    def test_old_report_rows_kept(self):
        new = set(table_lines(self.md) + table_lines(self.app))
        refs = set(table_lines("\n".join(section(self.old, "Reference tools"))))
        peaks = set(table_lines("\n".join(section(self.old, "Machine"))))
        summary = set(table_lines("\n".join(section(self.old, "Summary"))))
        # issue 26: the per-workload efficiency table moved to the appendix
        new_summary = table_lines("\n".join(section(self.app, "Efficiency of every workload (best over the "
                                                               "thread counts)")))
        for ln in table_lines(self.old):
            if ln in new or ln in refs:  # fix: the reference table is built from the join/pairs
                continue
            cells = [c.strip() for c in ln.strip("|").split("|")]
            if cells[0] == "Clock":  # fix: the clock to four significant digits, not fifteen
                self.assertIn("| Clock | 3.684 GHz measured, unknown GHz nominal |", new)
                continue
            if ln in peaks:  # fix: a quoted CSV line was formatted by string comparison
                self.assertTrue(any(n.startswith(f"| {cells[0]} | {cells[1]} | ") for n in new), ln)
                continue
            if ln in summary and set(cells[-1].split(", ")) & set(schema.DOUBT_FLAGS):
                # fix: the summary stands on the workload's best unflagged row (pick.py)
                def clean(n):
                    return not set(n.rstrip(" |").rsplit("| ", 1)[-1].split(", ")) & set(schema.DOUBT_FLAGS)
                self.assertTrue(any(n.startswith(f"| {cells[0]} | {cells[1]} | ") and clean(n) for n in new_summary),
                                ln)
                continue
            if cells[-1] == "(no description: see the suite's docs)":  # fix (issue 41): described now
                self.assertTrue(any(n.startswith(ln.rsplit("| (no", 1)[0]) and "no description" not in n
                                    for n in new), ln)
                continue
            if cells[-1] == "same_run_as_dgesv":  # fix (issue 34): marked a comparison row
                self.assertIn(ln.rstrip(" |") + ", comparison |", new)
                continue
            # Fix: the row says whose figure it is (transactions, CPU of sender or receiver).
            self.assertTrue(re.match(r"(tcp|udp)_(latency|throughput) \(", cells[0]), ln)
            self.assertTrue(any(n.startswith(f"| {cells[0]}: ") and n.endswith(ln.split(" | ", 2)[2])
                                for n in new), ln)

    def test_old_report_prose_kept(self):
        new = set(self.md.splitlines() + self.app.splitlines())
        for ln in self.old.splitlines():
            if not ln.strip() or ln.startswith("|") or ln in new:
                continue
            if ln.startswith("![") and not self.charts.draw_on:
                continue
            # Fixes: the folder's new file list; the heading says whose CPU figure it is. Issue 26
            # (report.md in one page): the efficiency table, the context keys (no longer folded)
            # and the peaks are the appendix's sections; the joined references' intro is one line.
            self.assertTrue(ln.startswith("- Results folder: ") or ln in ISSUE26_PROSE, ln)

    def test_whose_figure(self):
        for w in ("tcp_latency (tcp): CPU use, sender (client)", "tcp_latency (tcp): CPU use, receiver (server)",
                  "udp_latency (udp): transactions per second"):
            self.assertIn(f"| {w} | 1 |", self.app)

    def test_openblas_kernel_reported(self):
        # linpack's openblas_get_config: the run's context and the report's machine table
        self.assertIn("| BLAS | OpenBLAS kernel Cooperlake (OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY "
                      "Cooperlake MAX_THREADS=64), OPENBLAS_CORETYPE (unset) |", self.md)

    def test_pa1_layout_leads(self):
        self.assertLess(self.md.index("| Block size (variant) | 1 thread | 2 threads |"),
                        self.md.index("\n## Reference tools\n"))
        self.assertIn("[report-appendix.md](report-appendix.md)", self.md)
        self.assertNotIn("\n| Workload | Concurrency | Block size |", self.md)
        self.assertIn("\n| Workload | Concurrency | Block size |", self.app)
        # One cell per thread count, the best engine's: the 1 MiB seq_read row, fio beside.
        self.assertRegex(self.md, r"\| 1 MiB \| [0-9.]+ ± [0-9.]+ \(psync\) \| [0-9.]+ ± [0-9.]+ \(psync\) \| "
                                  r"[0-9.]+ \(fio vs psync, 1t\) \|")
        self.assertIn("| Variant | 1 thread | 2 threads |", self.md)  # cpubench: no block sizes

    def test_baseline_with_no_matching_row(self):
        self.assertIn("not measured by peakbench (cpu flops scalar_dp_addmul flops)", self.app)
        self.assertIn("likwid-bench cpu flops scalar_dp_addmul flops", self.md)

    def test_unexplained_ratio_listed_under_warnings(self):
        warn = "\n".join(section(self.md, "Warnings"))
        self.assertIn("unexplained", warn)
        self.assertIn("- hpcc: memory stream (scale-avx512) throughput 1t", warn)
        self.assertNotIn("stream (copy-avx512)", warn)  # 96%: inside the band

    def test_no_paired_rounds_said(self):
        if report_refs.load_pairs(self.out):
            self.skipTest("pairs.py found paired rounds in the fixture")
        self.assertIn("No paired rounds were run: each tool ran once", self.md)


class Folders(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_missing_suites(self):
        d = fixture_copy(self.tmp)
        for f in os.listdir(os.path.join(d, "raw")):
            if f.startswith(("disk-", "dpdk-", "baseline-")):
                os.remove(os.path.join(d, "raw", f))
        r = run_cli("finish", d, "--no-charts")
        self.assertEqual(r.returncode, 0, r.stderr)
        md = read(os.path.join(d, "report.md"))
        self.assertFalse(os.path.exists(os.path.join(d, "disk.csv")))
        self.assertIn("- disk: not run in this results folder", md)
        self.assertIn("No reference tool ran", md)
        self.assertIn("## DPDK", md)

    def test_legacy_csv_baselines_join_the_same(self):
        d = fixture_copy(self.tmp, keep_json_baselines=False)
        for f in os.listdir(os.path.join(d, "raw")):
            if f.startswith("baseline-") and f.endswith(".json"):
                os.remove(os.path.join(d, "raw", f))
        res, _ = finish(d, draw=False)
        old = set()
        for ln in read(os.path.join(FIX, "old", "matches.tsv")).splitlines():
            f = ln.split("\t")
            old.add((f[0], f[1], f[2], f[6], float(f"{float(f[7]):.9g}")))
        self.assertEqual(old, {(r["suite"], r["test"], r["variant"], b["tool"], float(f"{b['mean']:.9g}"))
                               for r, b in res.matches})

    def test_skip_reason_with_comma(self):
        d = fixture_copy(self.tmp)
        reason = "iozone not installed: not in Debian main, fio stands in; or build it"
        with open(os.path.join(d, "raw", "baseline-iozone.json"), "w", encoding="utf-8") as f:
            json.dump({"schema": schema.BASELINE_SCHEMA, "tool": "iozone", "rows": [],
                       "skipped": [{"test": "seq_read", "reason": reason}]}, f)
        finish(d, draw=False)
        md = read(os.path.join(d, "report.md"))
        self.assertIn(f"- iozone seq_read: skipped: {reason}", md)
        self.assertNotRegex(md, r"(?m)^\| or build it|^\| fio stands in")
        for ln in section(md, "Warnings"):
            self.assertNotIn("build it", ln)

    def test_no_raw_folder_is_exit_2(self):
        r = run_cli("finish", self.tmp)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)

    def test_pass2_pooled_in_finish(self):
        d = fixture_copy(self.tmp)
        src = os.path.join(d, "raw", "cpu-linpack.json")
        doc = json.loads(read(src))
        for r in doc["results"]:
            r["samples"] = [x * 3 for x in r["samples"]]
        with open(os.path.join(d, "raw", "cpu-linpack.pass2.json"), "w", encoding="utf-8") as f:
            json.dump(doc, f)
        res, _ = finish(d, draw=False)
        rows = [r for r in res.merged.suites["cpu"]["results"] if r["test"] == "linpack"]
        self.assertEqual(len(rows), len(doc["results"]))
        self.assertTrue(all(r["n"] == 6 for r in rows))
        for r in rows:
            self.assertEqual("bimodal" in schema.flags_of(r), modes(r["samples"]) is not None)
        self.assertTrue(any("bimodal" in schema.flags_of(r) for r in rows))

    def test_no_gnuplot_is_a_skip_with_the_reason(self):
        from peakresults.charts import charts
        d = fixture_copy(self.tmp)
        real = charts.shutil.which
        charts.shutil.which = lambda name: None if name == "gnuplot" else real(name)
        try:
            _, c = finish(d, draw=True)
        finally:
            charts.shutil.which = real
        self.assertEqual(c.drawn, [])
        self.assertTrue(os.path.isfile(os.path.join(d, "charts", "data", "cpu_flops_dp.dat")))
        self.assertIn("gnuplot not installed", read(os.path.join(d, "report.md")))

    def test_unreadable_pairs_are_a_warning(self):
        fake = types.ModuleType("peakresults.pairs.pairs")

        def broken(out):
            raise ValueError("r1-ours.json: not JSON")
        fake.load_pairs = broken
        fake.write_pairs_csv = lambda pairs, path: open(path, "w").close()
        with fake_pairs(fake):
            d = fixture_copy(self.tmp)
            finish(d, draw=False)
        md = read(os.path.join(d, "report.md"))
        self.assertIn("No paired rounds were run: each tool ran once", md)
        self.assertIn("- raw/pairs: paired rounds not readable (r1-ours.json: not JSON)", md)

    def test_pairs_rendered_with_unexplained(self):
        fake = types.ModuleType("peakresults.pairs.pairs")
        fake.load_pairs = lambda out: [{
            "tool": "fio", "tool_version": "fio-3.33", "suite": "disk", "test": "seq_read", "variant": "psync",
            "threads": 1, "block_bytes": 1048576, "metric": "throughput", "unit": "MB/s", "kind": "like_for_like",
            "ours_job": "diskbench --bs 1M", "tool_job": "fio --rw=read --bs=1M", "rounds": [], "n_pairs": 3,
            "ratio_median": 1.3, "ratio_min": 1.2, "ratio_max": 1.4, "ours_median": 130.0, "tool_median": 100.0,
            "cause": "", "flags": ""}]
        fake.write_pairs_csv = lambda pairs, path: open(path, "w").close()
        with fake_pairs(fake):
            d = fixture_copy(self.tmp)
            finish(d, draw=False)
        md = read(os.path.join(d, "report.md"))
        app = read(os.path.join(d, "report-appendix.md"))
        self.assertIn("| 1.30 [1.20-1.40] | fio-3.33 | seq_read psync 1 MiB 1t | 130.0 MB/s | 100.0 MB/s | 3 |\n",
                      md)
        self.assertIn("| 1.30 | fio | seq_read psync 1 MiB 1t | 130.0 MB/s | 100.0 MB/s | unexplained |", md)
        self.assertNotIn("fio --rw=read --bs=1M", md)  # the command lines: the appendix
        self.assertIn("  - tool: `fio --rw=read --bs=1M`", app)
        # With paired rounds, the sweep's tool figures (minutes away from ours) carry no ratio
        # and are in the appendix.
        unpaired = app[app.index("## Reference tools: jobs and every reference row"):]
        scale = [ln for ln in unpaired.splitlines() if "stream (scale-avx512)" in ln]
        self.assertTrue(scale)
        self.assertNotIn("%", scale[0].split("|")[8])
        self.assertNotIn("stream (scale-avx512)", md)
        self.assertNotIn("unexplained", unpaired)
        self.assertIn("fio fio-3.33: disk seq_read (psync) throughput 1t 1 MiB", "\n".join(section(md, "Warnings")))
        self.assertIn("- 1 of 1 reference ratios outside 0.90-1.10", md)


if __name__ == "__main__":
    unittest.main()
