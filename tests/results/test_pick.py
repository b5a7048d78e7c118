"""The one figure per group (pick.py): the summary, the PA1 tables' best efficiency,
efficiency.png and roofline.png stand on the best row no doubt flag marks, a flagged row only
when the group has no other (and then said); an above_peak row is drawn, marked, never
hidden. And the peaks' probe corrections (peak.table_corrected) in the Machine section."""
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.charts import charts_special  # noqa: E402
from peakresults.charts.charts import Charts  # noqa: E402
from peakresults.core import pick, schema  # noqa: E402
from peakresults.report import report, report_machine, report_pa1  # noqa: E402


def row(test, variant, threads, mean, theoretical=None, flags="", suite="cpu", metric="flops", unit="GFLOPS"):
    r = dict.fromkeys(schema.COLUMNS)
    r.update(suite=suite, test=test, variant=variant, threads=threads, metric=metric, unit=unit, n=3,
             mean=mean, stddev=0.1, theoretical=theoretical, flags=flags,
             efficiency=mean / theoretical if theoretical else None)
    return r


# The bug: an oversubscribed 8-thread row had the best mean; the clean 2-thread row must win.
CPU = [row("flops", "avx2_dp_fma", 1, 46.0, 48.0),
       row("flops", "avx2_dp_fma", 2, 92.0, 96.0),
       row("flops", "avx2_dp_fma", 8, 120.0, 96.0, "oversubscribed;above_peak"),
       row("flops", "avx2_sp_fma", 2, 150.0, 192.0, "contended")]


def dat(c: Charts, fig: str) -> list[str]:
    with open(os.path.join(c.data, fig + ".dat"), encoding="utf-8") as f:
        return f.read().splitlines()


class Best(unittest.TestCase):
    def test_clean_row_beats_a_better_flagged_one(self):
        for flag in schema.DOUBT_FLAGS:
            rows = [row("flops", "avx2_dp_fma", 2, 92.0), row("flops", "avx2_dp_fma", 8, 120.0, flags=f"x=1;{flag}")]
            top, why = pick.best(rows, lambda r: r["mean"])
            self.assertEqual((top["threads"], why), (2, []), flag)

    def test_only_flagged_rows_fall_back_and_say_so(self):
        rows = [row("flops", "avx2_dp_fma", 4, 60.0, flags="steal"),
                row("flops", "avx2_dp_fma", 8, 66.3, flags="oversubscribed;contended")]
        top, why = pick.best(rows, lambda r: r["mean"])
        self.assertEqual(top["threads"], 8)
        self.assertEqual(why, ["oversubscribed", "contended"])
        self.assertEqual(pick.fallback_note(why), "no unflagged row: oversubscribed, contended")

    def test_other_flags_do_not_disqualify(self):
        rows = [row("flops", "avx2_dp_fma", 1, 46.0), row("flops", "avx2_dp_fma", 2, 92.0, flags="unpinned;cached;fma")]
        self.assertEqual(pick.best(rows, lambda r: r["mean"])[0]["threads"], 2)
        self.assertEqual(pick.best([], lambda r: r["mean"]), (None, []))


class Charted(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.c = Charts(self.tmp, draw=shutil.which("gnuplot") is not None)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_roofline_measured_roof_is_the_clean_row(self):
        levels = [dict(row("seq_read", "avx2", 2, 400000.0, flags="cached;steal", suite="memory",
                           metric="throughput", unit="MB/s"), level="L1"),
                  dict(row("seq_read", "avx2", 2, 200000.0, flags="cached", suite="memory",
                           metric="throughput", unit="MB/s"), level="L2"),
                  dict(row("seq_read", "avx2", 2, 250000.0, flags="cached;oversubscribed", suite="memory",
                           metric="throughput", unit="MB/s"), level="L2")]
        charts_special.roofline_fig(self.c, CPU, levels, [])
        lines = dat(self.c, "roofline")
        self.assertIn("peak measured_avx2_dp_fma_2t 92.000", lines)
        self.assertIn("peak theoretical_DP_peak_(avx2_dp_fma_2t) 96.000", lines)
        self.assertIn("bw L2_bandwidth 200.000", lines)  # the clean row, not the faster flagged one
        self.assertIn("bw L1_bandwidth_(no_unflagged_row:_steal) 400.000", lines)  # the only one, labelled
        self.assertEqual(self.c.failed, [])

    def test_roofline_peak_is_the_drawn_rows(self):
        # issue 41: one clock per figure. The Zen 5 record's DP rows: the summary's headline
        # (2t, 220.8 against 225.8) and a 1t row whose own clock gave a peak of 228.9 (its
        # per-thread half, 114.4); the roof is the headline row's peak, not the highest.
        rows = [row("flops", "avx512_dp_fma", 1, 110.4, 114.45),
                row("flops", "avx512_dp_fma", 2, 220.8, 225.8),
                row("flops", "avx512_dp_fma", 4, 213.3, 228.9, "oversubscribed")]
        charts_special.roofline_fig(self.c, rows, [], [])
        self.assertIn("peak theoretical_DP_peak_(avx512_dp_fma_2t) 225.800", dat(self.c, "roofline"))
        # a drawn row without a peak: the highest peak the rows have
        charts_special.roofline_fig(self.c, [row("flops", "avx2_dp_fma", 2, 92.0), row("flops", "avx2_dp_fma", 8, 9.0,
                                                                                        96.0, "oversubscribed")], [], [])
        self.assertIn("peak theoretical_DP_peak 96.000", dat(self.c, "roofline"))

    def test_roofline_only_flagged_rows_labelled(self):
        charts_special.roofline_fig(self.c, [row("flops", "avx2_dp_fma", 8, 66.3, 96.0, "oversubscribed")], [], [])
        self.assertIn("peak measured_avx2_dp_fma_8t_(no_unflagged_row:_oversubscribed) 66.300",
                      dat(self.c, "roofline"))

    def test_efficiency_bars(self):
        suites = {"cpu": CPU + [row("iops", "avx2_i32_add", 1, 110.0, 100.0, "above_peak", metric="iops_int",
                                    unit="GIOPS"),
                                row("linpack", "dgesv", 2, 50.0, 100.0, "steal")]}
        charts_special.efficiency_fig(self.c, suites)
        lines = dat(self.c, "efficiency")[1:]
        self.assertEqual(lines, [
            '"cpu/flops/avx2" 95.83 0',  # sp 2t ran contended (78%): dp 1t and 2t are clean, 95.8%
            '"cpu/flops/avx2 avx2_dp_fma 8t (above_peak)" 125.00 2',
            '"cpu/iops/avx2 (no unflagged row: above_peak)" 110.00 2',
            '"cpu/linpack (no unflagged row: steal)" 50.00 1'])
        # Over 100% only from an above_peak row, and then marked.
        for ln in lines:
            label, pct, mark = ln.rsplit(" ", 2)
            self.assertTrue(float(pct) <= 100 or (mark == "2" and "above_peak" in label), ln)
        self.assertEqual(self.c.failed, [])


class Report(unittest.TestCase):
    def test_summary_picks_the_clean_row(self):
        lines = report.efficiency_summary(CPU)
        dp = [ln for ln in lines if "(avx2_dp_fma)" in ln]
        self.assertEqual(len(dp), 1)
        self.assertTrue(dp[0].startswith("| cpu | flops (avx2_dp_fma) | 1 | "), dp[0])  # 95.8%, tied with 2t: first
        self.assertNotIn("oversubscribed", dp[0])
        sp = [ln for ln in lines if "(avx2_sp_fma)" in ln][0]
        self.assertTrue(sp.endswith("| 78.1% | no unflagged row: contended |"), sp)

    def test_pa1_best_efficiency(self):
        self.assertEqual(report_pa1.best_efficiency(CPU[:3]), "95.8% (1t)")
        self.assertEqual(report_pa1.best_efficiency(CPU[2:3]),
                         "125.0% (8t, no unflagged row: oversubscribed, above_peak)")
        self.assertEqual(report_pa1.best_efficiency([]), "–")


class Corrections(unittest.TestCase):
    CTX = {"cpu.model": "x", "peak.table_corrected": "vec_int_mul_units: table 1, probe 2 (vmul128 1.95, 1.97 per "
                                                     "cycle); fma_units: table 2, probe 1",
           "peak.probe": "fma256 0.98 per cycle, vmul128 1.95 per cycle"}

    def test_shown_with_both_counts(self):
        md = "\n".join(report_machine.machine(self.CTX, []))
        self.assertIn("| vec_int_mul_units | 1 | 2 | vmul128 1.95, 1.97 per cycle |", md)
        self.assertIn("| fma_units | 2 | 1 | – |", md)
        self.assertIn("fma256 0.98 per cycle, vmul128 1.95 per cycle", md)

    def test_none_and_older_results_show_nothing(self):
        for ctx in ({"cpu.model": "x", "peak.table_corrected": "none"}, {"cpu.model": "x"}, {}):
            md = "\n".join(report_machine.machine(ctx, []))
            self.assertNotIn("The probe corrected", md)
            self.assertNotIn("| Count | Table | Probe |", md)

    def test_latency_count_and_kept_table(self):
        md = report_machine.table_corrections({
            "peak.table_corrected": "fadd_latency: table 3, probe 2 (vaddpd256 2.01, 2.00 cycles)",
            "peak.probe_notes": "vec_int_mul_units: table 1, probe 2 (vmul128 1.95 per cycle), not applied: "
                                "cpu.trust=table"})
        self.assertIn("| fadd_latency | 3 | 2 | vaddpd256 2.01, 2.00 cycles |", md)
        self.assertTrue(any(ln.startswith("Where the probe disagreed and the table was kept") for ln in md))

    def test_unknown_wording_shown_whole(self):
        md = report_machine.table_corrections({"peak.table_corrected": "something new"})
        self.assertIn("| something new | – | – | – |", md)


if __name__ == "__main__":
    unittest.main()
