"""Issue 34: a row's physics flags are those of the figure it reports (physics.py, the rule
of libpeak's peak_result_finish), also after the full protocol pools two passes; a
comparison row (linpack's dgesv_vs_avx2) is no alarm: not above_peak, not counted in the
summary's warnings, not drawn on efficiency.png. The rows are those of the Intel record
(../shared/machines/intel-server-masked-kvm/cpu-full-run.csv), trimmed to the columns that
matter."""
import os
import shutil
import sys
import tempfile
import types
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.charts import charts_special  # noqa: E402
from peakresults.charts.charts import Charts  # noqa: E402
from peakresults.core import physics, schema  # noqa: E402
from peakresults.merge import pool  # noqa: E402
from peakresults.report import report_summary  # noqa: E402


def row(test, variant, threads, mean, theoretical, flags="", metric="flops", unit="GFLOPS", samples=None):
    r = dict.fromkeys(schema.COLUMNS)
    r.update(suite="cpu", test=test, variant=variant, threads=threads, metric=metric, unit=unit,
             n=len(samples) if samples else 4, mean=mean, stddev=0.1, theoretical=theoretical, flags=flags,
             efficiency=mean / theoretical if theoretical else None, samples=samples or [])
    return r


# As the old code recorded them: the flag from a figure the row no longer reports, and the
# linpack twin flagged against the AVX2 peak it is compared with by design.
I32 = row("iops", "scalar_i32_mul", 1, 3.9220126606975114, 3.968136484515116, "vs_probe=0.995;above_peak",
          metric="iops_int", unit="GIOPS")
DGESV = row("linpack", "dgesv", 2, 154.52652877392546, 280.4905675912029)
TWIN = row("linpack", "dgesv_vs_avx2", 2, 154.52652877392546, 130.71619215021266, "above_peak;same_run_as_dgesv")


class Rule(unittest.TestCase):
    def test_ratio_is_libpeaks(self):
        self.assertEqual(physics.ABOVE_PEAK_RATIO, 1.02)  # common/harness/peak_result.h

    def test_tolerance_on_the_rows_own_figure(self):
        self.assertTrue(physics.above_peak(row("flops", "x", 1, 102.1, 100.0)))
        self.assertFalse(physics.above_peak(row("flops", "x", 1, 101.9, 100.0)))
        self.assertFalse(physics.above_peak(row("flops", "x", 1, 101.9, None)))
        self.assertFalse(physics.above_peak(row("latency", "x", 1, 130.0, 100.0, metric="latency", unit="ns")))
        self.assertFalse(physics.above_peak(dict(row("flops", "x", 1, 130.0, 100.0), n=0)))

    def test_stale_flag_dropped(self):
        self.assertEqual(physics.refreshed_flags(I32), "vs_probe=0.995")
        high = dict(I32, efficiency=1.03, flags="vs_probe=1.000")
        self.assertEqual(physics.refreshed_flags(high), "vs_probe=1.000;above_peak")

    def test_comparison_row_is_no_alarm(self):
        self.assertTrue(physics.is_comparison(TWIN))  # recorded before the flag: same_run_as_dgesv
        self.assertFalse(physics.above_peak(TWIN))
        self.assertEqual(physics.refreshed_flags(TWIN), "same_run_as_dgesv;comparison")
        self.assertEqual(physics.refreshed_flags(dict(TWIN, flags="comparison")), "comparison")
        self.assertFalse(physics.is_comparison(DGESV))

    def test_zero_and_reason_kept_last(self):
        z = row("flops", "x", 1, 0.0, 100.0, "skipped: needs a;b")
        self.assertEqual(physics.refreshed_flags(z), "zero;skipped: needs a;b")
        self.assertEqual(physics.refreshed_flags(dict(z, n=0, flags="zero;skipped: x")), "skipped: x")


class Pooled(unittest.TestCase):
    def test_pooled_row_flagged_from_the_pooled_figure(self):
        # Pass 2 ran at a lower clock and was above its own peak; pooled, the row's peak is at
        # the clock of all five repetitions and the figure within it.
        one = row("iops", "scalar_i32_mul", 1, 3.95, 4.0, "vs_probe=0.995", metric="iops_int", unit="GIOPS",
                  samples=[3.95, 3.95, 3.95])
        two = row("iops", "scalar_i32_mul", 1, 3.95, 3.85, "vs_probe=0.990;above_peak", metric="iops_int",
                  unit="GIOPS", samples=[3.95, 3.95])
        (p,) = pool.pool([one], [two])
        self.assertAlmostEqual(p["theoretical"], (4.0 * 3 + 3.85 * 2) / 5)
        self.assertAlmostEqual(p["efficiency"], p["mean"] / p["theoretical"])
        self.assertNotIn("above_peak", schema.flags_of(p))
        # Both passes above: the pooled figure is, and says so.
        hi = dict(one, samples=[4.2] * 3, mean=4.2, efficiency=1.05)
        (q,) = pool.pool([hi], [dict(two, samples=[4.2] * 2, mean=4.2)])
        self.assertIn("above_peak", schema.flags_of(q))


class Page(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def rows(self, *extra):
        return [physics.refresh(dict(r)) for r in (I32, DGESV, TWIN) + extra]

    def warnings(self, rows):
        merged = types.SimpleNamespace(rows=lambda: rows, context={}, problems=[])
        res = types.SimpleNamespace(status=[], merged=merged)
        return report_summary.conclusion_warnings(res, [], [], 0)

    def test_summary_counts_no_comparison_row(self):
        self.assertFalse([w for w in self.warnings(self.rows()) if "above their theoretical peak" in w])
        above = row("flops", "avx2_dp_fma", 1, 130.0, 100.0, "above_peak")
        got = [w for w in self.warnings(self.rows(above)) if "above their theoretical peak" in w]
        self.assertEqual(len(got), 1)
        self.assertTrue(got[0].startswith("- 1 row(s) above"), got[0])

    def test_headline_is_never_the_comparison(self):
        h = [h for h in report_summary.HEADLINES if h.test == "linpack"][0]
        self.assertEqual([r["variant"] for r in h.rows(self.rows())], ["dgesv"])

    def test_efficiency_chart_draws_no_comparison(self):
        c = Charts(self.tmp, draw=False)
        charts_special.efficiency_fig(c, {"cpu": self.rows()})
        with open(os.path.join(c.data, "efficiency.dat"), encoding="utf-8") as f:
            lines = f.read().splitlines()[1:]
        self.assertEqual(lines, ['"cpu/iops/scalar" 98.84 0', '"cpu/linpack" 55.09 0'])


if __name__ == "__main__":
    unittest.main()
