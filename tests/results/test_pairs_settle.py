"""The paired rounds' stopping rule (scripts/peakresults/pairs/pairs_settle.py, issue 42) on
synthetic ratio series: settled inside the band, settled outside it (above and below),
still open with rounds left, open with no round left that could settle it, and a measured
cause; the interval judged (t below six pairs, the median's order statistics from six)."""
import math
import os
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.pairs import pairs_settle as ps  # noqa: E402


class Interval(unittest.TestCase):
    def test_t_interval_below_six(self):
        # three log ratios -0.01, 0, 0.01: mean 0, sd 0.01; t(0.995, 2) = 9.925
        xs = [math.exp(-0.01), 1.0, math.exp(0.01)]
        lo, hi = ps.interval(xs)
        half = 9.925 * 0.01 / math.sqrt(3)
        self.assertAlmostEqual(math.log(lo), -half, places=3)
        self.assertAlmostEqual(math.log(hi), half, places=3)
        self.assertIsNone(ps.interval([1.0]))  # one pair: no interval
        self.assertIsNone(ps.t_interval([1.0, 0.0]))  # not a ratio

    def test_order_statistics_from_six(self):
        self.assertEqual(ps.interval([1.0, 0.95, 1.05, 0.9, 1.2, 1.01]), (0.9, 1.2))  # [min, max]
        self.assertEqual(ps.interval([float(x) for x in range(1, 10)]), (2.0, 8.0))  # nine: 2nd and 8th
        self.assertEqual([ps.order_index(n) for n in (5, 6, 8, 9, 12)], [0, 1, 1, 2, 3])

    def test_an_outlier_widens_the_t_interval(self):
        tight = ps.interval([1.0, 1.01, 0.99, 1.0])
        wide = ps.interval([1.0, 1.01, 0.99, 1.6])
        self.assertLess(wide[0], tight[0])
        self.assertGreater(wide[1], tight[1])


class Settle(unittest.TestCase):
    def test_settled_inside(self):
        # likwid-bench flops on the Zen 5 record: 0.9988, 1.005, 0.9914 in its first rounds
        v = ps.settle([0.9988, 1.005, 0.9914], most=6)
        self.assertEqual((v.state, v.settled, v.more), (ps.INSIDE, True, False))
        self.assertRegex(v.words(), r"^median ratio 0\.999 \[0\.9[0-9]*-1\.0[0-9]*\] over 3 pairs, inside 0\.90-1\.10$")

    def test_settled_outside_above_and_below(self):
        self.assertEqual(ps.settle([1.31, 1.30, 1.33, 1.29], most=6).state, ps.OUTSIDE)
        self.assertEqual(ps.settle([0.70, 0.72, 0.69], most=6).state, ps.OUTSIDE)
        # six pairs, one far: [min, max] still wholly above 1.10 (oneDNN INT8, Zen 5 record)
        v = ps.settle([1.113, 1.164, 1.581, 1.199, 1.157, 1.174], most=6)
        self.assertEqual((v.state, v.interval), (ps.OUTSIDE, (1.113, 1.581)))

    def test_fewer_than_least_never_settle(self):
        v = ps.settle([1.0, 1.0001], most=6)  # a tight interval, but two pairs
        self.assertEqual((v.state, v.more), (ps.OPEN, True))
        self.assertIn("no interval below 3 pairs", ps.settle([1.0], most=6).words())

    def test_still_open_with_rounds_left(self):
        # across 0.90: the t interval of three spread pairs, three rounds to go
        v = ps.settle([0.96, 0.86, 0.92], most=6)
        self.assertEqual((v.state, v.more), (ps.OPEN, True))
        self.assertIn("across 0.90 or 1.10", v.words())

    def test_open_and_nothing_left_can_settle_it(self):
        # five pairs, one below the band and one above: whatever the sixth, [min, max] at
        # six reaches across both edges (fio rand_read io_uring, Zen 5 record)
        v = ps.settle([0.8618, 1.066, 1.114, 1.165, 1.257], most=6)
        self.assertEqual((v.state, v.more), (ps.OPEN, False))
        # one far pair a side: open at six whatever comes, but with four rounds left (a
        # placement-matched job, up to nine) the interval at nine is the 2nd and 8th values,
        # which four more pairs inside the band would put inside
        one_each = [0.8618, 1.066, 1.05, 1.02, 1.257]
        self.assertFalse(ps.settle(one_each, most=6).more)
        self.assertTrue(ps.settle(one_each, most=9).more)
        # no round left at all
        self.assertFalse(ps.settle([0.96, 0.86, 0.92], most=3).more)

    def test_reachable_outside(self):
        # five below the band: a sixth below it settles the figure outside
        self.assertTrue(ps.reachable([0.867, 0.854, 0.7975, 0.716, 0.7975], 6))
        # four of five below, one inside: at six pairs [min, max] reaches inside
        self.assertFalse(ps.reachable([0.867, 0.854, 0.95, 0.716, 0.7975], 6))

    def test_measured_cause(self):
        # the traced round found another job: settled whatever the ratios
        v = ps.settle([1.076, 1.568, 1.057], most=6, cause="UDP bytes read / sent: ours 46%, iperf3 20%")
        self.assertEqual((v.state, v.settled, v.more), (ps.CAUSE, True, False))
        self.assertTrue(v.words().endswith("a measured cause"))
        # ... but not with no pair to go with it
        self.assertEqual(ps.settle([], most=6, cause="x").state, ps.OPEN)

    def test_edges_of_the_band_are_inside(self):
        self.assertEqual(ps.side((0.90, 1.10)), ps.INSIDE)
        self.assertEqual(ps.side((0.89, 1.0)), ps.OPEN)
        self.assertEqual(ps.side((1.1001, 1.2)), ps.OUTSIDE)
        self.assertEqual(ps.side(None), ps.OPEN)


if __name__ == "__main__":
    unittest.main()
