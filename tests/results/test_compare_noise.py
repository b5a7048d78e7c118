"""compare on rows flagged steal, contended or preempted: judged against the share of CPU
each side lost (steal_pct=, cpu_share_pct= beside the flag), on the recorded tiny run's
cpubench rows (tests/fixtures/results/tiny, a 2-vCPU KVM guest whose rows carry steal and
contended) and on small made-up rows; pool keeps the worst share of two passes."""
import copy
import json
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, HERE)

from peakresults.compare.compare import compare  # noqa: E402
from peakresults.core import noise, schema  # noqa: E402
from peakresults.core.load import load_run  # noqa: E402
from peakresults.merge.pool import pool  # noqa: E402
from test_compare import CONTEXT, row, run_cli, write_run  # noqa: E402

RECORDED = os.path.join(REPO, "tests", "fixtures", "results", "tiny", "raw", "cpu-cpubench.json")


def with_flags(rows, variant, threads, metric, flags):
    out = copy.deepcopy(rows)
    for r in out:
        if (r["variant"], r["threads"], r["metric"]) == (variant, threads, metric):
            r["flags"] = flags
    return out


def scaled(rows, variant, threads, metric, factor):
    out = copy.deepcopy(rows)
    for r in out:
        if (r["variant"], r["threads"], r["metric"]) == (variant, threads, metric):
            r["samples"] = [s * factor for s in r["samples"]]
            r["mean"] *= factor
    return out


def verdict_of(cmp, variant, threads, metric):
    (r,) = [r for r in cmp.rows if (r.key[2], r.key[3], r.key[5]) == (variant, threads, metric)]
    return r


class Recorded(unittest.TestCase):
    """The recorded cpubench run: its steal and contended rows carry no share (they were
    written before it was recorded); the share is added as today's harness writes it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        with open(RECORDED, encoding="utf-8") as f:
            doc = json.load(f)
        self.context, self.rows = doc["context"], doc["results"]

    def tearDown(self):
        self.tmp.cleanup()

    def folder(self, name, rows):
        path = os.path.join(self.tmp.name, name)
        write_run(path, rows, self.context)
        return path

    def test_recorded_as_it_is_not_judged_without_shares(self):
        old = self.folder("old", self.rows)
        res = run_cli("compare", old, old)
        self.assertEqual(res.returncode, 0, res.stderr)
        cmp = compare(load_run(old), load_run(old), 5.0)
        # Unchanged: no share is needed to say so, the note says what is unknown.
        steal = verdict_of(cmp, "avx512_i64_add", 2, "iops_int")
        self.assertEqual(steal.verdict, "no change beyond noise")
        self.assertIn("no recorded steal_pct", steal.note)
        cont = verdict_of(cmp, "avx512_dp_fma", 2, "flops")
        self.assertEqual(cont.verdict, "no change beyond noise")
        self.assertIn("no recorded cpu_share_pct", cont.note)
        # A planted drop there is not judged: the flag's reach is unknown.
        new = self.folder("new", scaled(self.rows, "avx512_i64_add", 2, "iops_int", 0.7))
        r = verdict_of(compare(load_run(old), load_run(new), 5.0), "avx512_i64_add", 2, "iops_int")
        self.assertEqual(r.verdict, "not judged")
        self.assertEqual(r.note, "flagged steal with no recorded steal_pct: what the flag explains is unknown")
        self.assertEqual(run_cli("compare", old, new).returncode, 0)

    def test_thirty_percent_drop_under_two_percent_steal_is_slower(self):
        rows = with_flags(self.rows, "avx512_i64_add", 2, "iops_int", "steal;steal_pct=2.0")
        old = self.folder("old", rows)
        self.assertEqual(run_cli("compare", old, old).returncode, 0)  # identical runs
        new = self.folder("new", scaled(rows, "avx512_i64_add", 2, "iops_int", 0.7))
        cmp = compare(load_run(old), load_run(new), 5.0)
        r = verdict_of(cmp, "avx512_i64_add", 2, "iops_int")
        self.assertEqual(r.verdict, "slower")
        self.assertAlmostEqual(r.change_pct, -30.0)
        self.assertLess(r.ci_pct[1], -2.0)
        self.assertEqual(r.lost_pct, (2.0, 2.0))
        self.assertIn("judged against the CPU lost: OLD steal 2.0%, NEW steal 2.0%", r.note)
        self.assertEqual([x.key for x in cmp.regressions(5.0)], [r.key])
        res = run_cli("compare", old, new)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("1 row(s) flagged steal, contended or preempted were judged", res.stdout)
        self.assertIn("| slower | judged against the CPU lost", res.stdout)

    def test_three_percent_drop_under_five_percent_steal_is_not_judged(self):
        rows = with_flags(self.rows, "avx512_i64_add", 2, "iops_int", "steal;steal_pct=5.0")
        old = self.folder("old", rows)
        new = self.folder("new", scaled(rows, "avx512_i64_add", 2, "iops_int", 0.97))
        r = verdict_of(compare(load_run(old), load_run(new), 1.0), "avx512_i64_add", 2, "iops_int")
        self.assertGreater(r.ci_pct[0], -5.0)  # the interval reaches into what steal explains
        self.assertLess(r.ci_pct[1], 0.0)      # and holds no zero: not "no change" either
        self.assertEqual(r.verdict, "not judged")
        self.assertIn("not wholly beyond the -5.0 .. +5.3% they explain", r.note)
        self.assertEqual(run_cli("compare", old, new, "--tolerance", "1").returncode, 0)

    def test_contended_row_with_its_cpu_share(self):
        # The recorded contended flops row: 30% down with 7% of the CPU lost is slower.
        rows = with_flags(self.rows, "avx512_dp_fma", 2, "flops", "contended;cpu_share_pct=93.0")
        old = self.folder("old", rows)
        self.assertEqual(run_cli("compare", old, old).returncode, 0)
        new = self.folder("new", scaled(rows, "avx512_dp_fma", 2, "flops", 0.7))
        r = verdict_of(compare(load_run(old), load_run(new), 5.0), "avx512_dp_fma", 2, "flops")
        self.assertEqual(r.verdict, "slower")
        self.assertAlmostEqual(r.lost_pct[1], 7.0)
        self.assertEqual(run_cli("compare", old, new).returncode, 1)


def tight(test, variant, metric, unit, mean, flags="", suite=None):
    """Four samples 0.1% apart: an interval a few tenths of a percent wide."""
    r = row(test, variant, 1, metric, unit, [mean * f for f in (0.999, 1.0, 1.001, 1.0)], flags)
    if suite:
        r["suite"] = suite
    return r


class Rules(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.n = 0

    def tearDown(self):
        self.tmp.cleanup()

    def cmp(self, old_rows, new_rows):
        self.n += 1
        old, new = (os.path.join(self.tmp.name, f"{w}{self.n}") for w in ("old", "new"))
        write_run(old, old_rows, CONTEXT)
        write_run(new, new_rows, CONTEXT)
        return compare(load_run(old), load_run(new), 1.0), run_cli("compare", old, new, "--tolerance", "1")

    def test_contended_small_drop_not_judged(self):
        a = tight("flops", "x", "flops", "GFLOPS", 100.0, "contended;cpu_share_pct=94.0")
        cmp, res = self.cmp([a], [a])  # identical runs
        self.assertEqual(cmp.rows[0].verdict, "no change beyond noise")
        self.assertEqual(res.returncode, 0)
        cmp, res = self.cmp([a], scaled([a], "x", 1, "flops", 0.96))
        self.assertEqual(cmp.rows[0].verdict, "not judged")
        self.assertEqual(res.returncode, 0, res.stdout)

    def test_new_side_only_flagged(self):
        # OLD clean, NEW under 3% steal: a 10% drop is beyond it, a 2% drop is not.
        clean = tight("flops", "x", "flops", "GFLOPS", 100.0)
        stolen = dict(clean, flags="steal;steal_pct=3.0")
        cmp, res = self.cmp([clean], scaled([stolen], "x", 1, "flops", 0.9))
        self.assertEqual(cmp.rows[0].verdict, "slower")
        self.assertEqual(cmp.rows[0].lost_pct, (0.0, 3.0))
        self.assertEqual(res.returncode, 1)
        cmp, res = self.cmp([clean], scaled([stolen], "x", 1, "flops", 0.98))
        self.assertEqual(cmp.rows[0].verdict, "not judged")
        self.assertEqual(res.returncode, 0)

    def test_a_rise_is_explained_by_the_old_sides_loss(self):
        # OLD lost 10% to steal: NEW 8% higher is what OLD would have been; 20% higher is real.
        old = tight("flops", "x", "flops", "GFLOPS", 100.0, "steal;steal_pct=10.0")
        clean = dict(old, flags="")
        cmp, _ = self.cmp([old], scaled([clean], "x", 1, "flops", 1.08))
        self.assertEqual(cmp.rows[0].verdict, "not judged")
        cmp, _ = self.cmp([old], scaled([clean], "x", 1, "flops", 1.2))
        self.assertEqual(cmp.rows[0].verdict, "faster")

    def test_latency_grows_by_the_share_over_what_is_left(self):
        # 5% stolen makes a time per operation up to 1/0.95 = +5.26% longer.
        lat = tight("latency", "chase", "latency", "ns", 80.0, "steal;steal_pct=5.0")
        cmp, res = self.cmp([lat], scaled([lat], "chase", 1, "latency", 1.04))
        self.assertEqual(cmp.rows[0].verdict, "not judged")
        self.assertIn("-5.0 .. +5.3%", cmp.rows[0].note)
        self.assertEqual(res.returncode, 0)
        cmp, res = self.cmp([lat], scaled([lat], "chase", 1, "latency", 1.3))
        self.assertEqual(cmp.rows[0].verdict, "slower")
        self.assertEqual(res.returncode, 1)

    def test_steal_and_contended_add_up(self):
        both = tight("flops", "x", "flops", "GFLOPS", 100.0,
                     "contended;cpu_share_pct=95.0;steal;steal_pct=2.0")
        cmp, _ = self.cmp([both], scaled([both], "x", 1, "flops", 0.94))
        self.assertEqual([round(x, 9) for x in cmp.rows[0].lost_pct], [7.0, 7.0])
        self.assertEqual(cmp.rows[0].verdict, "not judged")
        cmp, _ = self.cmp([both], scaled([both], "x", 1, "flops", 0.9))
        self.assertEqual(cmp.rows[0].verdict, "slower")

    def test_shared_oversubscribed_judged_by_the_share(self):
        # oversubscribed on both sides is the same job (test_compare_flags.py): the steal
        # beside it is judged as on any row, so a 30% drop under 2% steal is a regression
        r = tight("flops", "x", "flops", "GFLOPS", 100.0, "steal;steal_pct=2.0;oversubscribed")
        cmp, res = self.cmp([r], scaled([r], "x", 1, "flops", 0.7))
        self.assertEqual(cmp.rows[0].verdict, "slower")
        self.assertEqual(cmp.rows[0].lost_pct, (2.0, 2.0))
        self.assertEqual(res.returncode, 1)

    def test_figures_no_share_bounds_stay_not_comparable(self):
        loss = tight("udp", "udp", "loss", "%", 1.0, "steal;steal_pct=2.0", suite="network")
        cmp, _ = self.cmp([loss], scaled([loss], "udp", 1, "loss", 3.0))
        self.assertEqual(cmp.rows[0].verdict, "not comparable")
        self.assertIn("flagged steal", cmp.rows[0].note)

    def test_other_cpu_stays_not_comparable(self):
        r = tight("flops", "x", "flops", "GFLOPS", 100.0, "steal;steal_pct=2.0")
        old, new = (os.path.join(self.tmp.name, w) for w in ("o", "n"))
        write_run(old, [r], CONTEXT)
        write_run(new, scaled([r], "x", 1, "flops", 0.7), dict(CONTEXT, **{"cpu.model": "Other"}))
        cmp = compare(load_run(old), load_run(new), 5.0)
        self.assertEqual(cmp.rows[0].verdict, "not comparable")
        self.assertEqual(run_cli("compare", old, new).returncode, 0)

    def test_unreadable_share_is_unknown(self):
        self.assertEqual(noise.lost({"flags": "steal;steal_pct=abc"})[0], None)
        self.assertEqual(noise.lost({"flags": "contended"})[0], None)
        self.assertEqual(noise.lost({"flags": "unpinned"}), (0.0, "0%"))
        self.assertAlmostEqual(noise.lost({"flags": "preempted;cpu_share_pct=90"})[0], 0.1)

    def test_csv_and_json_carry_the_shares(self):
        r = tight("flops", "x", "flops", "GFLOPS", 100.0, "steal;steal_pct=2.0")
        old, new = (os.path.join(self.tmp.name, w) for w in ("co", "cn"))
        write_run(old, [r], CONTEXT)
        write_run(new, scaled([r], "x", 1, "flops", 0.7), CONTEXT)
        res = run_cli("compare", old, new, "--format", "csv")
        head, line = res.stdout.splitlines()[:2]
        self.assertTrue(head.endswith(",old_lost_pct,new_lost_pct"))
        self.assertTrue(line.endswith(",2.0,2.0"), line)
        doc = json.loads(run_cli("compare", old, new, "--format", "json").stdout)
        self.assertEqual(doc["rows"][0]["lost_pct"], [2.0, 2.0])


class Pool(unittest.TestCase):
    """A pooled row's share is the worst of its passes', or unknown when one has none."""

    def test_worst_share_kept(self):
        a = row("flops", "x", 1, "flops", "GFLOPS", [10.0, 10.1], "steal;steal_pct=1.5")
        b = row("flops", "x", 1, "flops", "GFLOPS", [10.2], "steal;steal_pct=4.0;contended;cpu_share_pct=90.0")
        (p,) = pool([a], [b])
        self.assertEqual(noise.values(p)["steal_pct"], "4.0")
        self.assertEqual(noise.values(p)["cpu_share_pct"], "90.0")
        self.assertEqual(schema.flags_of(p), {"steal", "steal_pct", "contended", "cpu_share_pct"})
        (q,) = pool([b], [a])
        self.assertEqual(noise.values(q)["steal_pct"], "4.0")
        c = row("flops", "x", 1, "flops", "GFLOPS", [10.2], "contended;cpu_share_pct=96.5")
        self.assertEqual(noise.values(pool([b], [c])[0])["cpu_share_pct"], "90.0")

    def test_a_pass_ci_wide_is_not_the_pooled_rows(self):
        a = row("flops", "x", 1, "flops", "GFLOPS", [10.0, 11.0, 9.0], "ci_wide=20.1;unpinned")
        b = row("flops", "x", 1, "flops", "GFLOPS", [10.2], "")
        (p,) = pool([a], [b])
        self.assertEqual(schema.flags_of(p), {"unpinned"})
        self.assertEqual(p["n"], 4)

    def test_a_pass_without_its_share_makes_it_unknown(self):
        a = row("flops", "x", 1, "flops", "GFLOPS", [10.0, 10.1], "steal;steal_pct=1.5")
        old = row("flops", "x", 1, "flops", "GFLOPS", [10.2], "steal")
        (p,) = pool([a], [old])
        self.assertIn("steal", schema.flags_of(p))
        self.assertNotIn("steal_pct", noise.values(p))
        clean = row("flops", "x", 1, "flops", "GFLOPS", [10.2], "vs_probe=0.97")
        self.assertEqual(pool([a], [clean])[0]["flags"], "steal;vs_probe=0.97;steal_pct=1.5")


class Docs(unittest.TestCase):
    def test_share_flags_documented(self):
        with open(os.path.join(REPO, "docs", "results-schema.md"), encoding="utf-8") as f:
            doc = f.read()
        for key in set(schema.SHARE_FLAGS.values()):
            self.assertTrue(f"`{key}=" in doc, f"{key} not in docs/results-schema.md's flags")


if __name__ == "__main__":
    unittest.main()
