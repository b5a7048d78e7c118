"""An alarm that names its cause (issue 41): the rows above their peak grouped by the cause
cpubench's cause= flag names, a corrected one no alarm, the rows with none said as such;
probe_short in the words of what was measured; a headline far below its peak with the cause
the run knows; the Warnings table's flags with a reason, once. Then the recorded Zen 5 run
(../shared/machines/amd-zen5-turin-bhyve), its report written again: as recorded (no cause
flags), with the flag issue 41's cpubench writes planted, and with the peak corrected.
Without the record the rules' own tests run and the file exits 77, saying so."""
import os
import re
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, HERE)

import record_run  # noqa: E402
from peakresults.core import schema  # noqa: E402
from peakresults.report import report_causes, report_warnings  # noqa: E402
from peakresults.report.finish import finish  # noqa: E402
from peakresults.report.report_fmt import FLAG_MEANING, warnings  # noqa: E402

RECORD = os.path.join(REPO, "..", "shared", "machines", "amd-zen5-turin-bhyve")
I64_MUL = "unsupported: no 64-bit lane multiply below AVX-512DQ (vpmullq); see avx512_i64_mul"
# The record's context as far as these rules read it.
CONTEXT = {"cpu.isa": "sse2 avx2 fma avx512f avx512dq", "openblas.corename": "Haswell",
           "openblas.coretype_env": "Haswell", "c2c.moved": False,
           "peak.probe_notes": "int_alu_units: probe add64 4.97 short of table 6 (the table stands); "
                               "addmul_ops: probe addmul128 2.90 short of table 4 (the table stands)"}


def row(variant: str, threads: int, mean: float, theoretical: float | None, flags: str = "",
        test: str = "iops") -> dict:
    r = dict.fromkeys(schema.COLUMNS)
    r.update(suite="cpu", test=test, variant=variant, threads=threads, metric="iops_int", unit="GIOPS", n=4,
             mean=mean, theoretical=theoretical, flags=flags,
             efficiency=mean / theoretical if theoretical else None)
    return r


class AbovePeak(unittest.TestCase):
    def test_cause_flags_read(self):
        self.assertEqual(report_causes.causes(row("x", 1, 1.0, 1.0, "above_peak;vs_probe=0.98;cause=clock_chain_0.49")),
                         [("clock_chain", 0.49)])
        self.assertEqual(report_causes.causes(row("x", 1, 1.0, 1.0, "cause=probe_rate_1.87;cause=cores_0.50")),
                         [("probe_rate", 1.87), ("cores", 0.5)])
        self.assertEqual(report_causes.causes(row("x", 1, 1.0, 1.0, "cause=unexplained")), [])

    def test_grouped_by_cause_and_none_said(self):
        rows = [row("sse_i32_add", 1, 55.6, 27.2, "above_peak;cause=clock_chain_0.48"),
                row("avx2_i32_add", 2, 220.6, 112.8, "above_peak;cause=clock_chain_0.49"),
                row("avx512_i32_add", 2, 440.3, 224.2, "above_peak;cause=clock_chain_0.49;clock_refused"),
                row("scalar_i64_add", 1, 20.0, 10.0, "above_peak;cause=count_0.50"),
                row("scalar_i32_add", 1, 13.0, 10.0, "above_peak"),
                row("avx512_i32_mul", 1, 110.0, 112.0, "cause=clock_chain_0.50;clock_corrected"),  # corrected
                row("dgesv_vs_avx2", 2, 84.5, 50.0, "comparison", test="linpack")]  # never an alarm
        self.assertEqual(report_causes.above_peak_lines(rows), [
            "- 3 row(s) above their theoretical peak, cause found: their clock read 0.49 (0.48-0.49) of the "
            "imul-anchored clock (sse_i32_add, avx2_i32_add, avx512_i32_add; 1-2 threads; 1 of them at the scalar "
            "imul clock, their class's clock refused): the peak's clock is the input that is wrong.",
            "- 1 row(s) above their theoretical peak, cause found: the peak's unit count is 0.50 of what the probe's "
            "loop measured at the anchor clock (scalar_i64_add; 1t): the unit count is the input that is wrong.",
            "- 1 row(s) above their theoretical peak with no cause found: their flags name no input of the peak "
            "that disagrees with its measurement, so the measurement itself is in doubt (scalar_i32_add; 1t)."])
        self.assertEqual(report_causes.corrected_lines(rows), [
            "- 1 row(s): their clock read 0.50 of the imul-anchored clock (avx512_i32_mul; 1t): the peak's clock "
            "was corrected."])

    def test_no_row_above_no_line(self):
        rows = [row("avx512_i32_mul", 1, 110.0, 112.0, "cause=clock_chain_0.50")]
        self.assertEqual(report_causes.above_peak_lines(rows), [])


class Documented(unittest.TestCase):
    def test_every_cause_and_flag_in_the_schema_doc(self):
        with open(os.path.join(REPO, "docs", "results-schema.md"), encoding="utf-8") as f:
            doc = f.read()
        for kind in list(report_causes.ABOVE_CAUSES) + [report_causes.BELOW_CAUSE]:
            self.assertIn(f"| `cause={kind}_", doc, kind)
        for flag in (report_causes.CLOCK_REFUSED, report_causes.CORRECTED):
            self.assertIn(f"| `{flag}` |", doc)
            self.assertIn(flag, FLAG_MEANING)


class ProbeShort(unittest.TestCase):
    def test_what_was_measured_and_no_story(self):
        rows = [row("scalar_i32_add", 1, 17.8, 21.2, "probe_short;vs_probe=0.99"),
                row("scalar_i64_add", 1, 17.7, 21.2, "probe_short")]
        text = report_causes.probe_short_meaning(rows, CONTEXT)
        self.assertIn("(peakinfo's probe: add64 4.97 of the table's 6; addmul128 2.90 of the table's 4 a cycle)", text)
        self.assertTrue(text.endswith("for 2 row(s) nothing measured in the same window explains it (no steal, no "
                                      "CPU share lost, the vCPUs did not move): the count was not reached by any "
                                      "loop here"), text)
        for story in ("co-tenant", "SMT", "shared then"):
            self.assertNotIn(story, text)

    def test_a_cause_only_where_measured(self):
        rows = [row("scalar_i32_add", 1, 17.8, 21.2, "probe_short;steal;steal_pct=4.0"),
                row("sse_i64_add", 2, 53.3, 56.2, "contended;probe_short;cpu_share_pct=88.9"),
                row("scalar_i64_add", 1, 17.7, 21.2, "probe_short")]
        text = report_causes.probe_short_meaning(rows, dict(CONTEXT, **{"c2c.moved": True}))
        self.assertIn("measured beside it: 1 ran with steal in the same window, 1 ran with a lost CPU share in the "
                      "same window, the host moved the vCPUs during the run", text)
        self.assertIn("for 1 row(s) nothing measured in the same window explains it: the count was not reached", text)


class FarBelow(unittest.TestCase):
    def test_linpack_names_the_blas_kernel_and_the_comparison(self):
        rows = [row("dgesv", 2, 84.52, 224.2, test="linpack"),
                row("dgesv_vs_avx2", 2, 84.52, 111.97, "comparison;same_run_as_dgesv", test="linpack")]
        self.assertEqual(report_causes.far_below_notes(rows[0], rows, CONTEXT), [
            "OpenBLAS ran its Haswell kernel (OPENBLAS_CORETYPE=Haswell), an AVX2 kernel on an AVX-512 CPU",
            "the same solve is 75.5% of the AVX2 peak (dgesv_vs_avx2)"])

    def test_the_probes_rate(self):
        r = row("avx512_bf16_dot", 2, 808.8, 903.0, "vs_probe=0.973;cause=probe_rate_1.86", test="flops")
        self.assertEqual(report_causes.far_below_notes(r, [r], {}),
                         ["the probe's loop ran 1.86 a cycle at the row's clock, below the count the peak uses"])

    def test_near_its_peak_nothing(self):
        r = row("dgesv", 2, 220.0, 224.2, test="linpack")
        self.assertEqual(report_causes.far_below_notes(r, [r], CONTEXT), [])


class WarningsTable(unittest.TestCase):
    def test_a_reason_with_a_semicolon_stays_whole(self):
        self.assertEqual(warnings("oversubscribed;" + I64_MUL), ["oversubscribed", I64_MUL])
        self.assertEqual(warnings("skipped: no tool;x"), [])

    def test_one_line_per_flag_every_flag_described(self):
        rows = [row("avx2_i64_mul", 1, 0.0, None, I64_MUL), row("avx2_i64_mul", 2, 0.0, None, I64_MUL),
                row("amx_bf16_tile", 1, 0.0, None, "unsupported: amx_tile not reported by this CPU"),
                dict(row("seq_read_sustain", 1, 4019.0, None, "no_knee"), suite="disk"),
                dict(row("udp_throughput", 1, 12.2, None, "udp_gso"), suite="network")]
        table = report_warnings.flag_table(rows, {})
        self.assertEqual(table[2], "| unsupported | 3 | cpu | the ISA or feature is not available here: not measured; "
                                   "the reason follows: no 64-bit lane multiply below AVX-512DQ (vpmullq); see "
                                   "avx512_i64_mul (2); amx_tile not reported by this CPU (1) |")
        self.assertEqual(len(table), 5)
        for ln in table[2:]:
            self.assertNotIn(report_warnings.NO_MEANING, ln)


def page_one(md: str) -> str:
    return md[md.index("## Summary"):md.index("\n## ", md.index("## Summary") + 3)]


@unittest.skipUnless(os.path.isdir(RECORD), f"no recorded run at {RECORD}")
class Zen5Record(unittest.TestCase):
    """The record's report written again: as recorded, the cause planted, the peak corrected."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.md = {}
        for name, plant in (("recorded", None), ("found", record_run.plant_clock_chain),
                            ("corrected", lambda rows: record_run.plant_clock_chain(rows, corrected=True))):
            out = record_run.build(RECORD, os.path.join(cls.tmp, name), plant)
            finish(out, draw=False)
            with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
                cls.md[name] = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_no_riddle_on_page_one(self):
        for md in self.md.values():
            self.assertNotIn("the peak's input or the measurement is wrong", page_one(md))

    def test_recorded_rows_said_with_no_cause(self):
        self.assertIn("- 40 row(s) above their theoretical peak with no cause found:", page_one(self.md["recorded"]))

    def test_found_cause_grouped(self):
        p1 = page_one(self.md["found"])
        self.assertRegex(p1, r"- 40 row\(s\) above their theoretical peak, cause found: their clock read 0\.[45][0-9] "
                             r"\(0\.2[0-9]-0\.5[0-9]\) of the imul-anchored clock \(sse_i32_add, .*avxvnni_int8_dot; "
                             r"1-8 threads\): the peak's clock is the input that is wrong\.")
        self.assertNotIn("no cause found", p1)

    def test_corrected_is_no_alarm(self):
        p1 = page_one(self.md["corrected"])
        self.assertNotIn("above their theoretical peak", p1)
        self.assertTrue(re.search(r"Peaks whose input cpubench measured wrong and corrected before reporting \(no "
                                  r"alarm\):\n\n- 40 row\(s\): their clock read 0\.[45][0-9] ", self.md["corrected"]))

    def test_corrected_flag_described(self):
        line = next(ln for ln in self.md["corrected"].splitlines() if ln.startswith("| clock_corrected |"))
        self.assertTrue(line.startswith("| clock_corrected | 40 | cpu | cpubench found the row's clock below"), line)

    def test_linpack_note(self):
        line = next(ln for ln in page_one(self.md["recorded"]).splitlines() if ln.startswith("| cpu | Linpack"))
        self.assertIn("| 37.7% | 2t, dgesv | OpenBLAS ran its Haswell kernel (OPENBLAS_CORETYPE=Haswell), an AVX2 "
                      "kernel on an AVX-512 CPU; the same solve is 75.5% of the AVX2 peak (dgesv_vs_avx2) |", line)

    def test_references(self):
        p1 = page_one(self.md["recorded"])
        int8 = next(ln for ln in p1.splitlines() if "avx512_int8_dot" in ln)
        self.assertIn("| not the same job: our peak kernel keeps its operands in registers", int8)
        self.assertIn("oneDNN's 0.82 |", int8)
        self.assertIn("| not decided: its interval 0.78-1.03 reaches 0.90-1.10 |", p1)  # fio seq_write
        self.assertIn("- 1 of 18 reference ratios outside 0.90-1.10, their interval too, with no measured cause", p1)

    def test_probe_short_and_unsupported_in_the_warnings_table(self):
        md = self.md["recorded"]
        ps = next(ln for ln in md.splitlines() if ln.startswith("| probe_short |"))
        self.assertIn("add64 4.97 of the table's 6", ps)
        self.assertIn("the count was not reached by any loop here", ps)
        self.assertEqual([ln.split(" | ")[1] for ln in md.splitlines() if ln.startswith("| unsupported |")], ["36"])
        self.assertNotIn("|  see avx512_i64_mul |", md)

    def test_header_lists_what_the_run_wrote(self):
        head = self.md["recorded"].splitlines()[:6]
        folder = next(ln for ln in head if ln.startswith("- Results folder:"))
        self.assertNotIn("baselines.csv", folder)  # the paired run wrote no reference rows
        self.assertIn("pairs.csv", folder)


if __name__ == "__main__":
    result = unittest.main(exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    if not os.path.isdir(RECORD):
        print(f"skipped the record's report: no recorded run at {RECORD}", file=sys.stderr)
        sys.exit(77)
    sys.exit(0)
