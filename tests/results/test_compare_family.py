"""compare on rows too few to judge alone: a family of --quick-shaped rows (three samples
each, one suite, test and metric over blocks and threads) judges a row whose own three
samples spread too wide (family_noise.py)."""
import copy
import os
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.compare import family_noise  # noqa: E402
from peakresults.compare.compare import compare  # noqa: E402
from peakresults.core import schema  # noqa: E402
from peakresults.core.load import Run  # noqa: E402

CONTEXT = {"cpu.model": "AMD EPYC", "cpu.family": 25, "cpu.model_number": 1}


def row(block, threads, samples, flags=""):
    r = {c: None for c in schema.COLUMNS}
    r.update(suite="disk", test="seq_write", variant="psync", threads=threads, block_bytes=block,
             metric="throughput", unit="MB/s", n=len(samples), mean=sum(samples) / len(samples),
             flags=flags, baseline_tool="", samples=list(samples))
    return r


def family():
    """Eight rows whose samples spread about 2% about their median, and one row (4 KiB,
    2 threads) with a wild repetition: its own interval is -86..+26% wide."""
    rows = [row(b, t, [m * 0.98, m, m * 1.02]) for b, m in ((1 << 20, 900), (8 << 20, 1000))
            for t in (1, 2, 4, 8)]
    rows.append(row(4096, 2, [300, 290, 60]))
    return rows


def planted(rows, i, k):
    out = copy.deepcopy(rows)
    out[i]["samples"] = [x * k for x in out[i]["samples"]]
    out[i]["mean"] *= k
    return out


def verdict(old, new, key):
    c = compare(Run("old", CONTEXT, old, ["disk"]), Run("new", CONTEXT, new, ["disk"]), 5.0)
    rc = [r for r in c.rows if r.key == key][0]
    return rc, c.regressions(5.0)


class Family(unittest.TestCase):
    def test_spread_is_robust(self):
        fams = family_noise.spreads(family())
        sigma, n = fams[("disk", "seq_write", "throughput", "MB/s")]
        self.assertEqual(n, 9)
        # 16 distances of ln(1.02) and ln(0.98) about 0.02, one of ln(300/290)=0.034 and
        # one of ln(290/60)=1.58: the median is still about 0.02
        self.assertAlmostEqual(sigma, 1.4826 * 0.0198, delta=0.001)

    def test_wild_row_drop_found(self):
        rows = family()
        # both runs' rows make the family: 18
        rc, regs = verdict(rows, planted(rows, 8, 0.7), schema.row_key(rows[8]))
        self.assertEqual(rc.verdict, "slower")
        self.assertIn("family's 18 rows", rc.note)
        self.assertAlmostEqual(rc.change_pct, -30.0, places=6)
        self.assertEqual(len(regs), 1)

    def test_small_drop_not_a_change(self):
        rows = family()
        rc, regs = verdict(rows, planted(rows, 2, 0.99), schema.row_key(rows[2]))
        self.assertEqual(rc.verdict, "no change beyond noise")
        self.assertEqual(regs, [])

    def test_identical_runs(self):
        rows = family()
        _, regs = verdict(rows, copy.deepcopy(rows), schema.row_key(rows[0]))
        self.assertEqual(regs, [])

    def test_small_family_says_nothing(self):
        # two rows a run, four in both: below MIN_ROWS, the wild row is judged alone
        rows = family()[:1] + family()[8:]
        self.assertEqual(family_noise.spreads(rows + rows), {})
        rc, regs = verdict(rows, planted(rows, 1, 0.7), schema.row_key(rows[1]))
        self.assertEqual(rc.verdict, "no change beyond noise")
        self.assertEqual(regs, [])


if __name__ == "__main__":
    unittest.main()
