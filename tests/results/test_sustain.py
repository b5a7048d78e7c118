"""The sustained runs in the report (sustain.py): the per-second series rebuilt from the
rows burst and baseline, the chart's knee and its published-limit lines (drawn only when
the context has cloud.limit.*), one baseline when there is no knee, and the summary's
words. The scripts are checked as text; with gnuplot each is drawn too."""
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.charts.charts import Charts  # noqa: E402
from peakresults.report import sustain  # noqa: E402


def row(test, variant, unit, samples, flags):
    s = sorted(samples)
    n = len(s)
    return {"suite": "network", "test": test, "variant": variant, "unit": unit, "samples": samples,
            "median": s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2, "flags": flags}


BURST = [0.78, 0.77, 0.76, 0.76]
BASE = [0.44, 0.19, 0.20, 0.19, 0.19, 0.19, 0.19, 0.20]
KNEE_FLAGS = "theoretical=link;level_s={};sustain_s=12;knee_s=4.4;knee_confidence=0.999"
NET = [row("tcp_sustain", "burst", "Gbit/s", BURST, KNEE_FLAGS.format(4)),
       row("tcp_sustain", "baseline", "Gbit/s", BASE, KNEE_FLAGS.format(8) + ";shaped_by_provider")]
DISK = [dict(row("seq_read_sustain", "baseline", "MB/s", [40.1, 39.9, 40.0, 40.0], "engine=uring;level_s=4;"
                 "sustain_s=4;no_knee"), suite="disk")]
LIMITS = {"cloud.limit.net_baseline_gbps": 0.2, "cloud.limit.net_burst_gbps": 0.8}


class Sustain(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_runs(self):
        (net,) = sustain.runs(NET + [row("tcp_throughput", "tcp", "Gbit/s", [1.0], "")])
        self.assertEqual(net["series"], BURST + BASE)
        self.assertEqual((net["knee"], net["confidence"], net["seconds"]), (4.4, 0.999, 12))
        self.assertAlmostEqual(net["burst"], 0.765)
        self.assertAlmostEqual(net["baseline"], 0.19)
        (disk,) = sustain.runs(DISK)
        self.assertIsNone(disk["burst"])
        self.assertIsNone(disk["knee"])

    def gp(self, suite, rows, context):
        c = Charts(self.tmp, shutil.which("gnuplot") is not None)
        names = sustain.figs(c, {suite: {"results": rows, "context": context}})
        (name,) = names[suite]
        with open(os.path.join(c.data, name + ".gp"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(c.data, name + ".dat"), encoding="utf-8") as f:
            data = f.read().splitlines()
        self.assertEqual(c.failed, [])
        if c.draw_on:
            self.assertTrue(c.have(name), name)
        return name, text, data

    def test_chart_knee_and_published_lines(self):
        name, text, data = self.gp("network", NET, LIMITS)
        self.assertEqual(name, "sustain_tcp_sustain")
        self.assertEqual(len(data), 1 + 12)  # the header, then one line a second
        self.assertIn("set arrow 1 from 4.4, graph 0 to 4.4, graph 1", text)
        self.assertIn("knee 4.4 s, confidence 0.999", text)
        self.assertIn("first 0.8 to graph 1, first 0.8", text)
        self.assertIn("published baseline 0.2 Gbit/s", text)
        self.assertIn("published burst 0.8 Gbit/s", text)

    def test_chart_without_limits_or_knee(self):
        _, text, _ = self.gp("disk", DISK, {})
        self.assertNotIn("published", text)
        self.assertNotIn("knee", text)
        _, text, _ = self.gp("network", NET, {"cloud.limit.net_baseline_gbps": None})
        self.assertNotIn("published", text)

    def test_limits_from_peakinfo_context(self):
        c = Charts(self.tmp, False)
        (name,) = sustain.figs(c, {"network": {"results": NET}}, LIMITS)["network"]
        with open(os.path.join(c.data, name + ".gp"), encoding="utf-8") as f:
            self.assertIn("published burst 0.8 Gbit/s", f.read())

    def test_summary(self):
        lines = sustain.summary_lines({"network": {"results": NET}, "disk": {"results": DISK}})
        self.assertEqual(lines[1], "### Sustained: burst and baseline")
        text = "\n".join(lines)
        self.assertIn("burst 0.765 Gbit/s** for the first 4.4 s, then **baseline 0.19 Gbit/s", text)
        self.assertIn("shaped", text)
        self.assertIn("seq_read_sustain: **baseline 40 MB/s**, one level over 4 s", text)
        self.assertEqual(sustain.summary_lines({"network": {"results": [row("tcp_throughput", "tcp",
                                                                            "Gbit/s", [1.0], "")]}}), [])


if __name__ == "__main__":
    unittest.main()
