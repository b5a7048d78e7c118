"""Paired rounds (scripts/peakresults/pairs/pairs.py) on recorded rounds written here: the median
of the per-pair ratios (not the ratio of medians), min and max, an odd and an even number
of pairs, a failed round, the cause kept only outside 0.90-1.10, our best configuration."""
import csv
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.pairs import pairs  # noqa: E402

KEY = {"suite": "network", "test": "tcp_throughput", "variant": "tcp", "threads": 1,
       "block_bytes": 65536, "metric": "throughput", "unit": "Gbit/s"}
BEST = dict(KEY, threads=2)
CAUSE = "iperf3 3.12 is single-threaded; like-for-like row is netbench --threads 1"


def ours(value, key=KEY, flags=""):
    r = dict(key, n=3, mean=value, flags=flags, samples=[value] * 3)
    return {"context": {}, "results": [dict(key, metric="cpu_sender", unit="%", mean=50.0), r]}


def tool(value):
    return {"schema": "peakbench-baseline/1", "tool": "iperf3", "tool_version": "iperf 3.12",
            "rows": [dict(KEY, tool="iperf3", mean=value, n=1)], "skipped": []}


class Pairs(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def job(self, job_id, rounds, **extra):
        d = os.path.join(self.out, "raw", "pairs", job_id)
        os.makedirs(d)
        job = {"tool": "iperf3", "key": KEY, "ours_job": "netbench --threads 1",
               "tool_job": "iperf3 -P 1", "cause": CAUSE}
        job.update(extra)
        with open(os.path.join(d, "job.json"), "w") as f:
            json.dump(job, f)
        for k, sides in enumerate(rounds, 1):
            for side, doc in sides.items():
                name = f"r{k}-{side}." + ("err" if isinstance(doc, str) else "json")
                with open(os.path.join(d, name), "w") as f:
                    f.write(doc) if isinstance(doc, str) else json.dump(doc, f)
        return d

    def test_median_of_ratios_odd(self):
        # ratios 1.0, 2.0, 1.05: median 1.05; the ratio of medians would be 20/10 = 2.0...
        self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)},
                          {"ours": ours(40.0), "tool": tool(20.0)},
                          {"ours": ours(21.0), "tool": tool(20.0)}])
        (p,) = pairs.load_pairs(self.out)
        self.assertEqual(p["n_pairs"], 3)
        self.assertAlmostEqual(p["ratio_median"], 1.05)
        self.assertAlmostEqual(p["ratio_min"], 1.0)
        self.assertAlmostEqual(p["ratio_max"], 2.0)
        self.assertAlmostEqual(p["ours_median"], 21.0)
        self.assertAlmostEqual(p["tool_median"], 20.0)
        self.assertEqual(p["cause"], "")  # inside the band
        self.assertEqual(p["kind"], "like_for_like")
        self.assertEqual(p["tool_version"], "iperf 3.12")
        self.assertEqual((p["test"], p["threads"]), ("tcp_throughput", 1))

    def test_even_number_and_cause_outside_band(self):
        self.job("tcp1", [{"ours": ours(15.0), "tool": tool(10.0)},
                          {"ours": ours(13.0), "tool": tool(10.0)}])
        (p,) = pairs.load_pairs(self.out)
        self.assertAlmostEqual(p["ratio_median"], 1.4)
        self.assertEqual(p["cause"], CAUSE)

    def test_failed_round(self):
        self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)},
                          {"ours": ours(11.0), "tool": "iperf3: error - unable to connect\n"},
                          {"ours": ours(9.0), "tool": tool(10.0)}])
        (p,) = pairs.load_pairs(self.out)
        self.assertEqual(p["n_pairs"], 2)
        self.assertAlmostEqual(p["ratio_median"], 0.95)
        r2 = p["rounds"][1]
        self.assertIsNone(r2["ratio"])
        self.assertEqual(r2["ours"], 11.0)
        self.assertIn("unable to connect", r2["error"])
        self.assertIn("failed_rounds=1", p["flags"])

    def test_no_matching_row_is_a_failed_side(self):
        other = dict(KEY, threads=2)
        self.job("tcp1", [{"ours": ours(10.0, key=other), "tool": tool(10.0)}])
        (p,) = pairs.load_pairs(self.out)
        self.assertEqual(p["n_pairs"], 0)
        self.assertIsNone(p["ratio_median"])
        self.assertIn("no row", p["rounds"][0]["error"])

    def test_best_beside_like_for_like(self):
        self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0), "best": ours(25.0, key=BEST, flags="steal")},
                          {"ours": ours(10.0), "tool": tool(10.0), "best": ours(23.0, key=BEST)},
                          {"ours": ours(10.0), "tool": tool(10.0), "best": ours(24.0, key=BEST)}],
                 best_key=BEST, best_job="netbench --threads 2", best_cause="two threads against one")
        like, best = pairs.load_pairs(self.out)
        self.assertEqual(like["kind"], "like_for_like")
        self.assertAlmostEqual(like["ratio_median"], 1.0)
        self.assertEqual(best["kind"], "best")
        self.assertEqual(best["threads"], 2)
        self.assertAlmostEqual(best["ratio_median"], 2.4)
        self.assertEqual(best["cause"], "two threads against one")
        self.assertEqual(best["ours_job"], "netbench --threads 2")
        self.assertIn("steal", best["flags"])

    def test_best_not_run(self):
        # --quick runs no best configuration: no best record, only the like-for-like one
        self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)}],
                 best_key=BEST, best_job="netbench --threads 2", best_cause="two threads against one")
        self.assertEqual([p["kind"] for p in pairs.load_pairs(self.out)], ["like_for_like"])

    def test_best_in_the_first_rounds_only(self):
        # our best runs in the first rounds only: the rounds without it are not failed ones
        self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0), "best": ours(25.0, key=BEST)},
                          {"ours": ours(10.0), "tool": tool(10.0)},
                          {"ours": ours(10.0), "tool": tool(10.0), "best": "netbench: connect refused"}],
                 best_key=BEST, best_job="netbench --threads 2", best_cause="two threads against one")
        _, best = pairs.load_pairs(self.out)
        self.assertEqual(best["n_pairs"], 1)
        self.assertIn("failed_rounds=1", best["flags"])  # round 3's best failed; round 2 had none

    def test_csv_and_empty(self):
        self.assertEqual(pairs.load_pairs(self.out), [])
        self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)},
                          {"ours": ours(11.0), "tool": "failed\n"}])
        path = os.path.join(self.out, "pairs.csv")
        pairs.write_pairs_csv(pairs.load_pairs(self.out), path)
        with open(path) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["rounds"], "r1=1|r2=failed")
        self.assertEqual(rows[0]["n_pairs"], "1")
        self.assertEqual(rows[0]["ratio_ci_low"], "")  # one pair: no interval

    def test_figures_from_parts(self):
        # one tool run, two figures from two of our binaries (hpcc: HPL and STREAM)
        hpl = {"suite": "cpu", "test": "linpack", "variant": "dgesv", "threads": 2, "block_bytes": None,
               "metric": "flops", "unit": "GFLOPS"}
        triad = {"suite": "memory", "test": "stream", "variant": "triad-avx2", "threads": 1,
                 "block_bytes": 42666624, "metric": "throughput", "unit": "MB/s"}
        trows = {"schema": "peakbench-baseline/1", "tool": "hpcc", "tool_version": "hpcc 1.5.0",
                 "rows": [dict(hpl, mean=20.0), dict(triad, mean=10000.0)]}
        d = self.job("hpcc", [{"ours-hpl": {"results": [dict(hpl, mean=19.0)]},
                               "ours-stream": {"results": [dict(triad, mean=10500.0)]}, "tool": trows},
                              {"ours-hpl": {"results": [dict(hpl, mean=21.0)]}, "tool": trows}],
                     tool="hpcc", figures=[{"key": hpl, "ours_job": "linpack", "cause": "other LU"},
                                           {"key": triad, "ours_job": "membench", "cause": ""}])
        # round 2's stream part failed: its reason is in OUT/logs/pairs/hpcc/
        logs = os.path.join(self.out, "logs", "pairs", "hpcc")
        os.makedirs(logs)
        with open(os.path.join(logs, "r2-ours-stream.err"), "w") as f:
            f.write("membench: out of memory\n")
        del d
        lp, st = pairs.load_pairs(self.out)
        self.assertEqual((lp["test"], lp["n_pairs"]), ("linpack", 2))
        self.assertAlmostEqual(lp["ratio_median"], 1.0)
        self.assertEqual(lp["cause"], "")
        self.assertEqual((st["test"], st["n_pairs"]), ("stream", 1))
        self.assertAlmostEqual(st["ratio_median"], 1.05)
        self.assertIn("out of memory", st["rounds"][1]["error"])

    def place(self, d, k, side, before, after):
        with open(os.path.join(d, f"r{k}-{side}.placement"), "w") as f:
            f.write(f"before {before}\nafter {after}\n")

    def test_placement_matched(self):
        # The host moves the vCPUs: rounds 2 (the tool far, ours near) and 3 (ours moved
        # during its run) are left out; rounds 1 and 4 ran near, 5 far on both sides.
        near, far = "0-1:52/53", "0-1:300/310"
        d = self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)},
                              {"ours": ours(10.0), "tool": tool(5.0)},
                              {"ours": ours(20.0), "tool": tool(10.0)},
                              {"ours": ours(11.0), "tool": tool(10.0)},
                              {"ours": ours(15.0), "tool": tool(16.0)}], placement="matched")
        for k, (ob, oa, tb, ta) in enumerate([(near, near, near, "0-1:60/70"), (near, near, far, far),
                                              (near, far, near, near), (near, near, near, near),
                                              (far, "0-1:250/260", far, far)], 1):
            self.place(d, k, "ours", ob, oa)
            self.place(d, k, "tool", tb, ta)
        (p,) = pairs.load_pairs(self.out)
        self.assertEqual([r["placement"] for r in p["rounds"]], ["same", "moved", "moved", "same", "same"])
        self.assertEqual(p["n_pairs"], 3)
        self.assertAlmostEqual(p["ratio_median"], 1.0)  # 1.0, 1.1, 0.9375
        self.assertAlmostEqual(p["ratio_max"], 1.1)
        self.assertEqual(p["flags"], "pairs_wide;placement_moved=2")  # 3 pairs: no 95% interval
        path = os.path.join(self.out, "pairs.csv")
        pairs.write_pairs_csv([p], path)
        with open(path) as f:
            self.assertIn("r2=2(moved)", f.read())

    def test_placement_unmatched_and_unknown(self):
        near, far = "0-1:52/53", "0-1:300/310"
        d = self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)},
                              {"ours": ours(12.0), "tool": tool(10.0)}], placement="matched")
        for k in (1, 2):
            self.place(d, k, "ours", near, far)
            self.place(d, k, "tool", far, far)
        # a job without placement matching counts every round, fingerprints or not
        self.job("other", [{"ours": ours(10.0), "tool": tool(10.0)},
                           {"ours": ours(12.0), "tool": tool(10.0)}])
        # no fingerprints (peakinfo not built): every round, no flag
        self.job("unknown", [{"ours": ours(10.0), "tool": tool(10.0)}], placement="matched")
        other, tcp1, unknown = pairs.load_pairs(self.out)
        self.assertEqual((tcp1["n_pairs"], tcp1["flags"]), (2, "pairs_wide;placement_unmatched"))
        self.assertEqual((other["n_pairs"], other["flags"]), (2, "pairs_wide"))
        self.assertEqual((unknown["n_pairs"], unknown["flags"]), (1, "pairs_wide"))

    def test_report_counts_moved_rounds(self):
        from peakresults.report import report_refs
        base = dict(KEY, tool="iperf3", kind="like_for_like", ratio_median=1.0, ratio_min=0.9, ratio_max=1.1)
        rows = [dict(base, n_pairs=3, flags="placement_moved=6"), dict(base, n_pairs=2, flags="placement_unmatched"),
                dict(base, n_pairs=5, flags="")]
        self.assertEqual([report_refs.pairs_cell(p) for p in rows], ["3 (+6 moved)", "2 (none matched)", "5"])
        text = "\n".join(report_refs.pairs_section(rows, []))
        self.assertIn("3 (+6 moved)", text)
        self.assertIn("before and after each side", text)
        self.assertNotIn("before and after each side", "\n".join(report_refs.pairs_section(rows[2:], [])))

    def test_fingerprints(self):
        self.assertEqual(pairs.parse_fingerprint("0-1:52/53 0-2:300/310"), {(0, 1): 52.0, (0, 2): 300.0})
        self.assertEqual(pairs.parse_fingerprint("none"), {})
        self.assertIsNone(pairs.parse_fingerprint("unknown"))
        self.assertIsNone(pairs.parse_fingerprint("0-1:52"))
        self.assertIsNone(pairs.parse_fingerprint("0-1:5.2.1/60"))  # unreadable, not a crash
        self.assertEqual(pairs.parse_fingerprint("0-1:52.5/60"), {(0, 1): 52.5})
        self.assertFalse(pairs.moved({(0, 1): 52.0}, {(0, 1): 75.0}))  # 1.44x: the same place
        self.assertTrue(pairs.moved({(0, 1): 52.0}, {(0, 1): 80.0}))
        self.assertFalse(pairs.moved({}, {}))  # one CPU: nothing to move

    def test_median(self):
        self.assertIsNone(pairs.median([]))
        self.assertEqual(pairs.median([3.0]), 3.0)
        self.assertEqual(pairs.median([4.0, 1.0, 3.0, 2.0]), 2.5)


FIXTURES = os.path.join(REPO, "tests", "fixtures", "placement")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


class _Folder(unittest.TestCase):
    """A results folder of recorded rounds (Pairs' helpers, without its tests)."""
    setUp, job, place = Pairs.setUp, Pairs.job, Pairs.place


class EnoughPairs(_Folder):
    """Issue 42: a pair's record carries the interval its verdict is judged on
    (pairs_settle.py, tested on its own in test_pairs_settle.py) and pairs_wide when open."""

    def test_median_interval(self):
        # order statistics of Binomial(n, 1/2): none below 6 values, [min, max] at 6 to 8,
        # the 2nd and (n-1)th from 9 to 11, the 3rd from 12
        self.assertIsNone(pairs.median_interval([1.0, 1.1, 1.2, 1.3, 1.4]))
        self.assertEqual(pairs.median_interval([6.0, 1.0, 2.0, 3.0, 4.0, 5.0]), (1.0, 6.0))
        self.assertEqual(pairs.median_interval(list(map(float, range(1, 10)))), (2.0, 8.0))
        self.assertEqual(pairs.median_interval(list(map(float, range(1, 13)))), (3.0, 10.0))

    def test_pairs_wide_and_interval_in_record(self):
        self.job("tcp1", [{"ours": ours(v), "tool": tool(10.0)} for v in (10.0, 10.1, 9.9, 10.2, 10.0, 9.8)])
        self.job("tcp2", [{"ours": ours(v), "tool": tool(10.0)} for v in (10.0, 12.0, 9.0, 10.2, 10.0, 9.8)])
        quiet, noisy = pairs.load_pairs(self.out)
        self.assertAlmostEqual(quiet["ratio_ci_low"], 0.98)  # six pairs: [min, max]
        self.assertAlmostEqual(quiet["ratio_ci_high"], 1.02)
        self.assertNotIn("pairs_wide", quiet["flags"])  # wholly inside the band: settled
        self.assertEqual(quiet["verdict"], "inside")
        self.assertAlmostEqual(noisy["ratio_ci_low"], 0.9)
        self.assertAlmostEqual(noisy["ratio_ci_high"], 1.2)
        self.assertIn("pairs_wide", noisy["flags"])  # across 1.10: open
        self.assertEqual(noisy["verdict"], "open")

    def test_three_quiet_pairs_settle(self):
        # below six pairs the interval is the t interval of the mean log ratio
        self.job("tcp1", [{"ours": ours(v), "tool": tool(10.0)} for v in (10.0, 10.1, 9.95)])
        (p,) = pairs.load_pairs(self.out)
        self.assertLess(p["ratio_ci_low"], 0.995)
        self.assertGreater(p["ratio_ci_high"], 1.005)
        self.assertEqual((p["verdict"], p["flags"]), ("inside", ""))

    def test_enough_line_and_cli(self):
        import subprocess
        self.job("quiet", [{"ours": ours(v), "tool": tool(10.0)} for v in (10.0, 10.1, 9.9)], rounds_max=6)
        self.job("noisy", [{"ours": ours(v), "tool": tool(10.0)} for v in (10.0, 12.0, 8.0)], rounds_max=6)
        self.job("gone", [{"ours": "diskbench: no such engine\n", "tool": tool(10.0)}] * 3, rounds_max=6)
        ok, line = pairs.enough_line(self.out, "quiet", 4)
        self.assertTrue(ok)
        self.assertRegex(line, r"^pairs enough: settled: median ratio 1 \[0\.9[0-9]*-1\.0[0-9]*\] over 3 pairs, "
                               r"inside 0\.90-1\.10$")
        ok, line = pairs.enough_line(self.out, "noisy", 4)
        self.assertFalse(ok)
        self.assertRegex(line, r"^pairs open: median ratio 1 \[.*\] over 3 pairs, across 0\.90 or 1\.10; "
                               r"3 rounds left to settle it$")
        self.assertTrue(pairs.enough_line(self.out, "gone", 4)[0])  # no pair to wait for
        cli = [sys.executable, os.path.join(REPO, "scripts", "peakresults"), "pairs-enough", self.out]
        r = subprocess.run(cli + ["quiet", "4"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("pairs enough: settled"), r.stdout)
        self.assertEqual(subprocess.run(cli + ["noisy", "4"], capture_output=True, text=True).returncode, 1)
        self.assertEqual(subprocess.run(cli + ["noisy"], capture_output=True, text=True).returncode, 1)
        bad = subprocess.run(cli + ["noisy", "x"], capture_output=True, text=True)
        self.assertEqual((bad.returncode, len(bad.stderr.strip().splitlines())), (2, 1), bad.stderr)

    def test_trace_cause(self):
        # The traced round (trace.py's summaries, recorded: tests/fixtures/traces) shows
        # another job: its difference is the cause and the pair is not like for like.
        import shutil
        fix = os.path.join(REPO, "tests", "fixtures", "traces")
        d = self.job("udp1", [{"ours": ours(10.0), "tool": tool(10.0)}])
        (p,) = pairs.load_pairs(self.out)
        self.assertNotIn("trace_differs", p["flags"])  # not traced: nothing said
        shutil.copy(os.path.join(fix, "netbench-udp.summary.json"), os.path.join(d, "trace-ours.txt"))
        shutil.copy(os.path.join(fix, "iperf3-udp.summary.json"), os.path.join(d, "trace-tool.txt"))
        (p,) = pairs.load_pairs(self.out)
        self.assertIn("trace_differs", p["flags"].split(";"))
        self.assertIn("recvmmsg", p["cause"])
        # the same side against itself: the same job, no cause
        shutil.copy(os.path.join(d, "trace-ours.txt"), os.path.join(d, "trace-tool.txt"))
        (p,) = pairs.load_pairs(self.out)
        self.assertNotIn("trace_differs", p["flags"])


class MovedCalibration(_Folder):
    """Issue 25 item 3: what "moved" means comes from the run's own fingerprints at the start."""

    def test_quiet_host_stays_tight(self):
        f, note = pairs.moved_factor(fixture("quiet-host.txt"))
        self.assertEqual(f, pairs.MOVED_MIN)  # spread 1.06: no wider than the floor, 1.25
        self.assertIn("5 fingerprints", note)
        self.assertTrue(pairs.moved({(0, 1): 52.0}, {(0, 1): 300.0}, f))  # one CCD to two
        self.assertTrue(pairs.moved({(0, 1): 52.0}, {(0, 1): 70.0}, f))  # 1.35x: seen here, not at 1.5

    def test_noisy_host_keeps_its_own_rounds(self):
        fps = fixture("noisy-host.txt")
        f, _ = pairs.moved_factor(fps)
        self.assertAlmostEqual(f, 1 + 3 * (147 / 122 - 1), places=3)  # 1.61
        parsed = [pairs.parse_fingerprint(t) for t in fps]
        # no two of its own readings count as a move (at 1.5, the fixed factor, 122 -> 190
        # would; its rounds wandered that far in issue 25), and a real move still does
        self.assertFalse(any(pairs.moved(a, b, f) for a in parsed for b in parsed))
        self.assertFalse(pairs.moved({(0, 1): 122.0}, {(0, 1): 190.0}, f))
        self.assertTrue(pairs.moved({(0, 1): 122.0}, {(0, 1): 190.0}))
        self.assertTrue(pairs.moved({(0, 1): 52.0}, {(0, 1): 300.0}, f))

    def test_capped_and_fallback(self):
        f, note = pairs.moved_factor(["0-1:50/52", "0-1:300/310"])  # the host moved during calibration
        self.assertEqual(f, pairs.MOVED_MAX)
        self.assertIn("capped", note)
        self.assertEqual(pairs.moved_factor(["0-1:50/52"])[0], pairs.MOVED_FACTOR)  # one reading
        self.assertEqual(pairs.calibration(self.out)[0], pairs.MOVED_FACTOR)  # no file: 1.5, said
        self.assertIn("no calibration", pairs.calibration(self.out)[1])

    def test_calibration_file_decides_a_round(self):
        # the noisy host: a round whose sides read 122 and 190 ns (1.56x) is dropped at 1.5,
        # kept with the run's calibration
        d = self.job("tcp1", [{"ours": ours(10.0), "tool": tool(10.0)}, {"ours": ours(11.0), "tool": tool(10.0)}],
                     placement="matched")
        for k in (1, 2):
            self.place(d, k, "ours", "0-1:122/130", "0-1:125/130")
            self.place(d, k, "tool", "0-1:190/200" if k == 2 else "0-1:122/130", "0-1:124/130")
        (p,) = pairs.load_pairs(self.out)
        self.assertEqual([r["placement"] for r in p["rounds"]], ["same", "moved"])
        import shutil as sh
        sh.copy(os.path.join(FIXTURES, "noisy-host.txt"), os.path.join(self.out, "raw", pairs.CALIBRATION))
        (p,) = pairs.load_pairs(self.out)
        self.assertEqual([r["placement"] for r in p["rounds"]], ["same", "same"])
        self.assertEqual(p["n_pairs"], 2)


if __name__ == "__main__":
    unittest.main()
