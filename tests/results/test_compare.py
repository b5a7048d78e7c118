"""peakresults: the schema against the C reporter and the docs, Welch's interval against
textbook values, and compare on small recorded-shape runs made here."""
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.compare.compare import compare  # noqa: E402
from peakresults.core import schema  # noqa: E402
from peakresults.core.load import NotAResultsFolder, load_run  # noqa: E402
from peakresults.core.stats import t_quantile, welch_diff_ci  # noqa: E402

CONTEXT = {"cpu.model": "AMD EPYC 9R14", "cpu.family": 25, "cpu.model_number": 17,
           "os.kernel": "6.18.0", "governor": "unknown", "thp": "madvise",
           "peak.uarch": "zen4"}


def row(test, variant, threads, metric, unit, samples, flags=""):
    mean = sum(samples) / len(samples)
    r = {c: None for c in schema.COLUMNS}
    r.update(suite="cpu" if metric in ("flops",) else "memory", test=test, variant=variant,
             threads=threads, metric=metric, unit=unit, n=len(samples), mean=mean,
             flags=flags, baseline_tool="", samples=samples)
    return r


ROWS = [
    row("flops", "avx2_dp_fma", 1, "flops", "GFLOPS", [58.1, 58.4, 58.0, 58.3]),
    row("flops", "avx2_dp_fma", 2, "flops", "GFLOPS", [115.0, 116.2, 115.5, 115.9]),
    row("latency", "chase", 1, "latency", "ns", [80.1, 80.4, 79.9, 80.2]),
    row("seq_read", "avx2", 2, "throughput", "GB/s", [43.0, 44.0, 43.5, 43.2], "steal"),
    row("single", "x", 1, "flops", "GFLOPS", [10.0]),
]


def write_run(folder, rows, context):
    os.makedirs(folder, exist_ok=True)
    by_suite = {}
    for r in rows:
        by_suite.setdefault(r["suite"], []).append(r)
    for suite, rs in by_suite.items():
        with open(os.path.join(folder, f"{suite}.json"), "w", encoding="utf-8") as f:
            json.dump({"context": context, "results": rs}, f)
    with open(os.path.join(folder, "context.json"), "w", encoding="utf-8") as f:
        json.dump(context, f)


def slower(rows, variant, threads, factor):
    out = copy.deepcopy(rows)
    for r in out:
        if r["variant"] == variant and r["threads"] == threads:
            r["samples"] = [s * factor for s in r["samples"]]
            r["mean"] *= factor
    return out


def run_cli(*args):
    return subprocess.run([sys.executable, os.path.join(REPO, "scripts", "peakresults"), *args],
                          capture_output=True, text=True, check=False)


class Schema(unittest.TestCase):
    def test_columns_from_the_one_list(self):
        # common/harness/peak_columns.def names the columns for the C reporters (which include it;
        # tests/schema_check.c checks every binary's header against peak_result_columns)
        # and for this program: every PEAK_COLUMN line, in order, and the host columns.
        self.assertEqual(schema.COLUMNS[:3], ("suite", "test", "variant"))
        self.assertEqual(schema.COLUMNS[-1], "flags")
        self.assertEqual(len(schema.COLUMNS), 24)
        self.assertEqual(schema.HOST_COLUMNS, ("host", "peer"))
        with open(os.path.join(REPO, "common", "harness", "peak_columns.def"), encoding="utf-8") as f:
            lines = [ln for ln in f if ln.startswith("PEAK_")]
        self.assertEqual(len(lines), len(schema.COLUMNS) + len(schema.HOST_COLUMNS))
        # no other C file spells the list
        seen = 0
        for d in ("common", "cluster"):
            for folder, _, names in os.walk(os.path.join(REPO, d)):
                for name in names:
                    if name.endswith(".c"):
                        with open(os.path.join(folder, name), encoding="utf-8") as f:
                            src = f.read()
                        self.assertNotIn('"ci95_low"', src, name)
                        seen += 1
        self.assertGreater(seen, 50)  # libpeak's floors and clusterbench were read

    def test_docs_columns(self):
        # The numbered tables: the schema's columns, then the optional host columns.
        with open(os.path.join(REPO, "docs", "results-schema.md"), encoding="utf-8") as f:
            doc = f.read()
        found = []
        for m in re.finditer(r"^\| [0-9-]+ \| (.+?) \|", doc, re.M):
            found.extend(re.findall(r"`([a-z0-9_]+)`", m.group(1)))
        self.assertEqual(tuple(found), schema.COLUMNS + schema.HOST_COLUMNS)
        self.assertIn(f"`{schema.NODES_KEY}`", doc)

    def test_rows_without_hosts_load(self):
        # Every other binary's rows and results written before host/peer: both "".
        from peakresults.core.load import with_hosts
        rows = with_hosts([{"suite": "cpu"}, {"suite": "cluster", "host": "a", "peer": "b"}])
        self.assertEqual([schema.hosts_of(r) for r in rows], [("", ""), ("a", "b")])
        self.assertEqual(rows[0]["host"], "")

    def test_cluster_step_reads_old_node_blocks(self):
        # A results folder from before libpeak's sysinfo: node keys kernel/isa, the file
        # beside the raw folder rather than in it; a row without peer gets "".
        from peakresults.merge.merge import cluster_step
        with tempfile.TemporaryDirectory() as out:
            doc = {"context": {"nodes": [{"host": "n1", "kernel": "6.1", "isa": "avx2"}]},
                   "results": [{"suite": "cluster", "test": "node_sweep", "host": "n1"}]}
            with open(os.path.join(out, "cluster-node_sweep.json"), "w", encoding="utf-8") as f:
                json.dump(doc, f)
            ctx, rows = cluster_step(out, "node_sweep", [])
            self.assertEqual(ctx["nodes"], [{"host": "n1", "os.kernel": "6.1", "cpu.isa": "avx2"}])
            self.assertEqual(schema.hosts_of(rows[0]), ("n1", ""))
            self.assertIsNone(cluster_step(out, "net_matrix", []))


class Stats(unittest.TestCase):
    def test_t_quantiles(self):
        # Student t table: two-sided 95% for 1, 4, 10, 30 degrees of freedom.
        for df, t in ((1, 12.7062), (4, 2.7764), (10, 2.2281), (30, 2.0423)):
            self.assertAlmostEqual(t_quantile(0.975, df), t, places=3)

    def test_welch(self):
        # Variances 0.625 and 2.5 over 5 samples each: standard error sqrt(0.625), Welch
        # df = 0.625^2 / ((0.125^2 + 0.5^2) / 4) = 5.882, t(0.975, 5.882) = 2.457.
        a, b = [10.0, 11.0, 9.0, 10.5, 9.5], [12.0, 14.0, 10.0, 13.0, 11.0]
        diff, ci = welch_diff_ci(a, b)
        self.assertAlmostEqual(diff, 2.0)
        half = 2.457 * 0.625 ** 0.5
        self.assertAlmostEqual(ci[0], 2.0 - half, places=2)
        self.assertAlmostEqual(ci[1], 2.0 + half, places=2)
        self.assertIsNone(welch_diff_ci([1.0], [2.0, 3.0])[1])


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.old = os.path.join(self.tmp.name, "old")
        write_run(self.old, ROWS, CONTEXT)

    def tearDown(self):
        self.tmp.cleanup()

    def test_self_is_no_change(self):
        res = run_cli("compare", self.old, self.old)
        self.assertEqual(res.returncode, 0, res.stderr)
        cmp = compare(load_run(self.old), load_run(self.old), 5.0)
        verdicts = {r.verdict for r in cmp.rows}
        self.assertEqual(verdicts, {"no change beyond noise"})
        # A steal row written without its share (steal_pct): no change needs none, but the
        # note says what is unknown (test_compare_noise.py judges rows that moved).
        (steal,) = [r for r in cmp.rows if r.key[2] == "avx2" and r.key[5] == "throughput"]
        self.assertIn("flagged steal with no recorded steal_pct", steal.note)
        one = [r for r in cmp.rows if r.key[1] == "single"][0]
        self.assertIsNone(one.ci_pct)
        self.assertIn("1 repetition sample(s) on a side: no interval", one.note)

    def test_one_sample_beyond_tolerance_is_not_judged(self):
        # No interval: a 30% move of a one-repetition row is shown, not judged, not a regression.
        new = os.path.join(self.tmp.name, "new")
        write_run(new, slower(ROWS, "x", 1, 0.7), CONTEXT)
        cmp = compare(load_run(self.old), load_run(new), 5.0)
        one = [r for r in cmp.rows if r.key[1] == "single"][0]
        self.assertEqual(one.verdict, "not judged")
        self.assertAlmostEqual(one.change_pct, -30.0)
        self.assertEqual(cmp.regressions(5.0), [])
        self.assertEqual(run_cli("compare", self.old, new).returncode, 0)

    def test_thirty_percent_slower(self):
        new = os.path.join(self.tmp.name, "new")
        write_run(new, slower(ROWS, "avx2_dp_fma", 2, 0.7), CONTEXT)
        res = run_cli("compare", self.old, new, "--format", "csv")
        self.assertEqual(res.returncode, 1, res.stderr)
        lines = [ln for ln in res.stdout.splitlines() if "avx2_dp_fma" in ln]
        self.assertTrue(any(",2,," in ln and "slower" in ln for ln in lines), lines)
        self.assertTrue(any(",1,," in ln and "no change" in ln for ln in lines), lines)
        # Within the tolerance it is no regression.
        self.assertEqual(run_cli("compare", self.old, new, "--tolerance", "40").returncode, 0)

    def test_change_from_zero_is_valid_json(self):
        # A loss of 0% that becomes 1%: an infinite change, which JSON cannot carry.
        zero = [row("udp", "loss", 1, "loss", "%", [0.0, 0.0, 0.0])]
        old, new = os.path.join(self.tmp.name, "z0"), os.path.join(self.tmp.name, "z1")
        write_run(old, zero, CONTEXT)
        write_run(new, slower(zero, "loss", 1, 1.0), CONTEXT)
        moved = copy.deepcopy(zero)
        moved[0]["samples"], moved[0]["mean"] = [1.0, 1.0, 1.0], 1.0
        write_run(new, moved, CONTEXT)
        res = run_cli("compare", old, new, "--format", "json")
        self.assertNotIn("Infinity", res.stdout)
        (r,) = json.loads(res.stdout)["rows"]
        self.assertIsNone(r["change_pct"])
        self.assertTrue(r["from_zero"])

    def test_latency_lower_is_better(self):
        new = os.path.join(self.tmp.name, "new")
        write_run(new, slower(ROWS, "chase", 1, 0.5), CONTEXT)
        cmp = compare(load_run(self.old), load_run(new), 5.0)
        chase = [r for r in cmp.rows if r.key[2] == "chase"][0]
        self.assertEqual(chase.verdict, "faster")

    def test_cpu_use_is_a_cost_not_a_speed(self):
        # netbench's CPU use follows the throughput beside it: a drop is "less CPU", a rise
        # "more CPU", and neither is a regression
        rows = ROWS + [row("tcp_throughput", "tcp", 2, "cpu_receiver", "%", [150.0, 152.0, 151.0])]
        old = os.path.join(self.tmp.name, "old-cpu")
        write_run(old, rows, CONTEXT)
        for factor, verdict in ((0.4, "less CPU"), (1.5, "more CPU")):
            new = os.path.join(self.tmp.name, f"new-cpu-{factor}")
            write_run(new, slower(rows, "tcp", 2, factor), CONTEXT)
            cmp = compare(load_run(old), load_run(new), 5.0)
            use = [r for r in cmp.rows if r.key[5] == "cpu_receiver"][0]
            self.assertEqual(use.verdict, verdict)
            self.assertEqual(cmp.regressions(5.0), [])

    def test_other_cpu_not_comparable_said_first(self):
        new = os.path.join(self.tmp.name, "new")
        other = dict(CONTEXT, **{"cpu.model": "Intel Xeon Platinum 8259CL", "cpu.family": 6})
        write_run(new, slower(ROWS, "avx2_dp_fma", 2, 0.7), other)
        res = run_cli("compare", self.old, new)
        self.assertEqual(res.returncode, 0, res.stderr)  # nothing comparable regressed
        out = res.stdout
        self.assertLess(out.index("different machines"), out.index("## Rows"))
        self.assertLess(out.index("cpu.model"), out.index("## Rows"))
        self.assertNotIn("| slower |", out)

    def test_missing_suite_and_rows(self):
        new = os.path.join(self.tmp.name, "new")
        write_run(new, [r for r in ROWS if r["suite"] == "cpu"], CONTEXT)
        cmp = compare(load_run(self.old), load_run(new), 5.0)
        self.assertEqual(len(cmp.only_old), 2)  # the memory suite is missing
        self.assertEqual(cmp.only_new, [])

    def test_usage_errors(self):
        for args in (("compare", self.old), ("compare", self.old, "/nonexistent"),
                     ("compare", self.old, self.old, "--tolerance", "-1"),
                     ("compare", self.old, REPO), ("frobnicate",)):
            res = run_cli(*args)
            self.assertEqual(res.returncode, 2, args)
            self.assertEqual(len(res.stderr.strip().splitlines()), 1, (args, res.stderr))
        with self.assertRaises(NotAResultsFolder):
            load_run(os.path.join(self.tmp.name, "nothing"))


if __name__ == "__main__":
    unittest.main()
