"""The report header's time line (scripts/peakresults/report/report_time.py, issue 42): the steps'
time per part from status.tsv beside the plan's estimate per part (plan.json), the run's
wall time while run_all.sh runs the report, a resumed run said, nothing without a status."""
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.plan import plan  # noqa: E402
from peakresults.report import report_time  # noqa: E402

STATUS = ("peakinfo\tinfo\tok\t2\t\ncpubench\tcpu\tok\t100\t\nfio r1 ours-seq\tpair\tok\t8\t\n"
          "fio r1 fio\tpair\tok\t14\t\nfio r4 fio\tpair\tskipped\t0\tpairs enough: settled\n"
          "cpubench pass 2\tcpu\tok\t19\t\nfinish\tpost\tok\t6\t\n")


class TimeLine(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.env = os.environ.pop(report_time.START_ENV, None)
        self.addCleanup(self.restore)

    def restore(self):
        os.environ.pop(report_time.START_ENV, None)
        if self.env is not None:
            os.environ[report_time.START_ENV] = self.env

    def write(self, name, text):
        with open(os.path.join(self.out, name), "w", encoding="utf-8") as f:
            f.write(text)

    def test_parts_against_the_plan(self):
        self.write("status.tsv", STATUS)
        self.write("plan.json", json.dumps({"total_est_s": 130, "total_max_s": 160, "parts": [
            {"part": "info", "est_s": 5, "max_s": 5}, {"part": "cpu", "est_s": 90, "max_s": 90},
            {"part": "pairs", "est_s": 20, "max_s": 50}, {"part": "pass 2", "est_s": 15, "max_s": 15},
            {"part": "finish", "est_s": 12, "max_s": 12}]}))
        (line,) = report_time.lines(self.out)
        self.assertEqual(line, "- Time: its steps 2m29s, against the plan's estimate of 2m10s (up to 2m40s if every "
                               "paired round ran). By part, taken (estimated): info 2s (5s), cpu 1m40s (1m30s), "
                               "pairs 22s (20s-50s), pass 2 19s (15s), finish 6s (12s).")

    def test_wall_time_inside_the_run_and_resumed(self):
        import time
        self.write("status.tsv", STATUS)
        os.environ[report_time.START_ENV] = str(int(time.time()) - 200)
        (line,) = report_time.lines(self.out)
        self.assertRegex(line, r"^- Time: the run [0-9hms]+ to this report, its steps 2m29s\. By part")
        self.write("status.tsv", "resume\trun\tresumed\t0\tresumed at step 3\n" + STATUS)
        (line,) = report_time.lines(self.out)
        self.assertTrue(line.startswith("- Time: its steps 2m29s (over the first run and its --resume)."), line)

    def test_nothing_without_a_status(self):
        self.assertEqual(report_time.lines(self.out), [])

    def test_plan_parts_cover_every_step(self):
        o = plan.parse_options(["--out", self.out, "--no-build", "--ncpu", "2", "--have", "fio,sockperf"])
        steps = plan.build_plan(o)
        parts = plan.parts_estimate(steps)
        self.assertEqual(sum(e for _, e, _ in parts), sum(s.est for s in steps if not s.cond))
        self.assertEqual(sum(m for _, _, m in parts), sum(s.est for s in steps))
        names = [p for p, _, _ in parts]
        self.assertLess(names.index("pairs"), names.index("pass 2"))
        lo, hi = dict((p, (e, m)) for p, e, m in parts)["pairs"]
        self.assertLess(lo, hi)  # the rounds past the least: a range


if __name__ == "__main__":
    unittest.main()
