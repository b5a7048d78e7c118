"""The summary's clock line (report_clock.py): each load's clock with its share of the
scalar clock, a refused one with its reason, nothing when cpubench measured none. The
figures are the Intel record's (../shared/machines/intel-server-masked-kvm: imul clock
3.96 GHz, 512-bit FMA chain 3.65 GHz, measured outside the suite for issue 34)."""
import os
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.report import report_clock  # noqa: E402


class ClockLine(unittest.TestCase):
    def test_names_each_clock_and_its_share(self):
        ctx = {"cpu.clock_ghz.scalar": 3.96, "cpu.clock_ghz.avx512_fma": 3.65,
               "cpu.clock_ratio.avx512_fma": 3.65 / 3.96, "cpu.clock_ghz.avx512_imul": 3.95,
               "cpu.clock_ratio.avx512_imul": 3.95 / 3.96}
        line = report_clock.clock_lines(ctx)[-1]
        self.assertIn("scalar 3.96 GHz", line)
        self.assertIn("AVX-512 FMA: 3.65 GHz, 92% of the scalar clock", line)
        self.assertIn("AVX-512 vpmulld: 3.95 GHz, 100% of the scalar clock", line)
        self.assertLess(line.index("AVX-512 FMA"), line.index("vpmulld"))

    def test_refused_clock_says_why(self):
        ctx = {"cpu.clock_ghz.avx512_imul": "refused: full density reads 3.00 GHz, half 3.65"}
        line = report_clock.clock_lines(ctx)[-1]
        self.assertIn("AVX-512 vpmulld: refused: full density reads 3.00 GHz, half 3.65 "
                      "(its rows at the scalar clock)", line)

    def test_nothing_measured_no_line(self):
        self.assertEqual(report_clock.clock_lines({}), [])
        self.assertEqual(report_clock.clock_lines({"cpu.ghz.measured": 4.0}), [])


if __name__ == "__main__":
    unittest.main()
