"""run_all.sh's plan (scripts/peakresults/plan.py): the steps of the full, quick and tiny
protocols, --only, the second pass, cache sizes from a fake /sys, the NUL format run_all.sh
reads, and bad options (one line, exit 2). Nothing is run."""
import io
import os
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults import plan  # noqa: E402

SYSROOT = os.path.join(REPO, "tests", "fixtures", "sysroot-full")
BASE = ["--out", "/tmp/peakbench-plan-test", "--ncpu", "2", "--sysroot", SYSROOT, "--have", "none"]


def steps_of(*args):
    o = plan.parse_options(list(args) + BASE)
    return o, plan.build_plan(o)


def names(steps):
    return [s.name for s in steps]


class PlanSteps(unittest.TestCase):
    def test_full(self):
        o, st = steps_of()
        self.assertEqual(names(st), [
            "peakinfo", "cpubench", "linpack", "membench", "bandwidth L1", "bandwidth L2",
            "bandwidth L3", "bandwidth DRAM", "diskbench", "netbench", "dpdkbench", "memif pair",
            "memif latency", "kernel udp", "hpcc", "likwid", "fio", "iozone", "iperf3", "sockperf",
            "cpubench pass 2", "linpack pass 2", "membench pass 2", "diskbench pass 2",
            "netbench pass 2", "placement", "finish"])
        by = {s.name: s for s in st}
        # reps 3 = 2 in the first pass + 1 in the second, the same command otherwise
        first, second = by["membench"].argv, by["membench pass 2"].argv
        self.assertEqual(first[first.index("--reps") + 1], "2")
        self.assertEqual(second[second.index("--reps") + 1], "1")
        self.assertEqual([a for a in first if a not in ("1", "2")], [a for a in second if a not in ("1", "2")])
        self.assertEqual(by["membench pass 2"].outf, "memory-membench.pass2")
        self.assertIn("--file-size", by["diskbench"].argv)
        self.assertEqual(by["diskbench"].argv[by["diskbench"].argv.index("--file-size") + 1], "1GiB")
        self.assertEqual(by["finish"].argv, ["python3", "scripts/peakresults", "finish", o.out])

    def test_quick_has_no_second_pass(self):
        _, st = steps_of("--quick")
        self.assertFalse([n for n in names(st) if "pass 2" in n])
        mem = {s.name: s for s in st}["membench"].argv
        self.assertEqual(mem[mem.index("--size") + 1], "256MiB")
        self.assertEqual(mem[mem.index("--threads") + 1], "1,2")
        self.assertEqual(mem[mem.index("--reps") + 1], "3")
        self.assertEqual(mem[mem.index("--min-time") + 1], "0.05")

    def test_tiny(self):
        _, st = steps_of("--tiny")
        by = {s.name: s for s in st}
        self.assertEqual(by["diskbench"].argv[by["diskbench"].argv.index("--file-size") + 1], "8MiB")
        self.assertIn("best", by["cpubench"].argv)
        self.assertEqual(by["linpack"].argv[1:3], ["--n", "200"])
        self.assertLess(sum(s.est for s in st), 600)  # the estimate of a tiny run is minutes

    def test_levels_from_sys(self):
        # fixture: L1d 32 KiB, L2 1 MiB, L3 36608 KiB; 2 CPUs: half of each private
        # cache per thread, half of the shared L3
        _, st = steps_of("--only", "memory")
        size = {s.name: s.argv[s.argv.index("--size") + 1] for s in st if s.name.startswith("bandwidth")}
        self.assertEqual(size, {"bandwidth L1": "32KiB", "bandwidth L2": "1024KiB",
                                "bandwidth L3": "18304KiB", "bandwidth DRAM": "1GiB"})

    def test_only(self):
        _, st = steps_of("--only", "disk", "--quick")
        self.assertEqual(names(st), ["peakinfo", "diskbench", "fio", "iozone", "placement", "finish"])
        _, st = steps_of("--only", "cpu,network", "--no-baselines", "--quick")
        self.assertEqual(set(s.suite for s in st), {"info", "cpu", "network", "post"})

    def test_estimates_follow_installed_tools(self):
        o = plan.parse_options(["--quick"] + BASE[:-1] + ["fio"])
        est = {s.name: s.est for s in plan.build_plan(o)}
        self.assertEqual(est["fio"], 12)
        self.assertEqual(est["iperf3"], 1)

    def test_cluster_step(self):
        _, st = steps_of("--tiny", "--hostfile", "hosts", "--mpirun", "-x A=1")
        c = [s for s in st if s.name == "cluster"][0]
        self.assertEqual(c.argv[0], "scripts/cluster_run.sh")
        self.assertEqual(c.argv[c.argv.index("--mpirun") + 1], "-x A=1")
        self.assertEqual(c.argv[c.argv.index("--mode") + 1], "tiny")
        self.assertEqual(c.command().split(" --mode")[0].split("--mpirun ")[1], "'-x A=1'")

    def test_nul_round_trip(self):
        o, st = steps_of("--tiny")
        buf = io.StringIO()
        plan.write_nul(o, st, buf)
        fields = buf.getvalue().split("\0")
        self.assertEqual(fields[-1], "")  # every field ends with a NUL
        settings = fields[:fields.index("")]
        self.assertIn(f"out={o.out}", settings)
        self.assertIn(f"steps={len(st)}", settings)
        rest = fields[len(settings) + 1:-1]
        got = []
        while rest:
            head, rest = rest[:7], rest[7:]
            argv = rest[:rest.index("")]
            rest = rest[len(argv) + 1:]
            got.append((head[1], argv))
        self.assertEqual(got, [(s.name, s.argv) for s in st])

    def test_shquote(self):
        self.assertEqual(plan.shquote("--log-level=*:critical"), "'--log-level=*:critical'")
        self.assertEqual(plan.shquote("it's"), "'it'\\''s'")
        self.assertEqual(plan.shquote("1,2"), "1,2")


class BadInput(unittest.TestCase):
    def run_plan(self, *args):
        return subprocess.run([sys.executable, os.path.join(REPO, "scripts", "peakresults"), "plan"] + list(args),
                              capture_output=True, text=True)

    def test_usage_errors(self):
        for args in (["--reps", "0"], ["--only", "gpu"], ["--threads", "1,,2"], ["--min-time", "-1"],
                     ["--frobnicate"], ["--out"], ["--peer", "a b"], ["--mpirun", "-x"], ["--qui"]):
            r = self.run_plan(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args, r.stderr))
            self.assertEqual(r.stdout, "")

    def test_help(self):
        r = self.run_plan("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--hostfile FILE", r.stdout)


if __name__ == "__main__":
    unittest.main()
