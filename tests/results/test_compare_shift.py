"""compare_shift: per-suite median change, and "the whole machine moved" only when every
suite moved one way beyond the tolerance."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from peakresults.compare import compare_report, compare_shift  # noqa: E402
from peakresults.compare.compare import Comparison, RowChange  # noqa: E402
from peakresults.core import schema  # noqa: E402


def rc(suite, i, change, metric="throughput", unit="MB/s", verdict="slower"):
    key = tuple({"suite": suite, "test": "t", "variant": f"v{i}", "threads": 1, "block_bytes": i,
                 "metric": metric, "unit": unit}[k] for k in schema.KEY)
    return RowChange(key, 100.0, 100.0 * (1 + change / 100), change, (change - 1, change + 1), verdict)


def suites(changes: dict, n=12) -> list:
    return [rc(s, i, c) for s, c in changes.items() for i in range(n)]


class Shift(unittest.TestCase):
    def test_every_suite_down_is_the_machine(self):
        rows = suites({"cpu": -8, "memory": -12, "disk": -20})
        self.assertEqual(compare_shift.suite_medians(rows)["memory"], (12, -12))
        self.assertEqual(compare_shift.machine_moved(rows, 5.0), -12)
        md = compare_report.markdown(Comparison(rows=rows), "a", "b", 5.0)
        self.assertIn("The whole machine moved: most suites lost about 12%", md)
        self.assertIn("memory -12.0% (12 rows)", md)

    def test_one_suite_still_the_rest_down_is_the_machine(self):
        # the quick pair of the tenth session: dpdk held, the others lost 8-13%
        rows = suites({"cpu": -8, "memory": -13, "disk": -10, "network": -9, "dpdk": 0})
        self.assertEqual(compare_shift.machine_moved(rows, 5.0), -9.5)
        # ... but not when one suite moved the other way, nor when half stood still
        self.assertIsNone(compare_shift.machine_moved(suites({"cpu": -8, "memory": -13, "disk": 9}), 5.0))
        self.assertIsNone(compare_shift.machine_moved(suites({"cpu": -8, "memory": -13, "disk": 0, "dpdk": 0}), 5.0))

    def test_one_suite_down_is_not(self):
        rows = suites({"cpu": 0.5, "memory": -30, "disk": 1})
        self.assertIsNone(compare_shift.machine_moved(rows, 5.0))
        md = compare_report.markdown(Comparison(rows=rows), "a", "b", 5.0)
        self.assertNotIn("whole machine", md)
        self.assertIn("memory -30.0% (12 rows)", md)

    def test_within_tolerance_or_one_suite(self):
        self.assertIsNone(compare_shift.machine_moved(suites({"cpu": -3, "memory": -4}), 5.0))
        self.assertIsNone(compare_shift.machine_moved(suites({"cpu": -30}), 5.0))
        # a suite of too few rows does not speak
        self.assertIsNone(compare_shift.machine_moved(suites({"cpu": -30, "memory": -30}, n=5), 5.0))

    def test_latency_falling_is_a_gain_and_cpu_use_is_left_out(self):
        rows = [rc("network", i, -10, metric="latency", unit="us") for i in range(12)] + \
               [rc("cpu", i, 10) for i in range(12)] + \
               [rc("cpu", 100 + i, -90, metric="cpu_sender", unit="%") for i in range(30)] + \
               [rc("memory", 200 + i, -90, verdict="not comparable") for i in range(30)]
        med = compare_shift.suite_medians(rows)
        self.assertEqual(med, {"cpu": (12, 10), "network": (12, 10)})
        self.assertEqual(compare_shift.machine_moved(rows, 5.0), 10)

    def test_other_machine_says_nothing(self):
        cmp = Comparison(machine_diffs=[("cpu.model", "a", "b")], rows=suites({"cpu": -20, "memory": -20}))
        self.assertNotIn("whole machine", compare_report.markdown(cmp, "a", "b", 5.0))


if __name__ == "__main__":
    unittest.main()
