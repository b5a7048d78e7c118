"""run_all.sh's plan (scripts/peakresults/plan/plan.py): the steps of the full, quick and tiny
protocols, --only, the second pass, cache sizes from a fake /sys, the NUL format run_all.sh
reads, and bad options (one line, exit 2). The paired rounds: test_plan_pairs.py. Nothing is
run."""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from plan_common import BASE, NOBUILD, REPO, SYSROOT, names, plan, steps_of


class PlanSteps(unittest.TestCase):
    def test_full(self):
        o, st = steps_of()
        self.assertEqual(names(st), [
            "peakinfo", "cpubench", "linpack", "membench", "bandwidth L1", "bandwidth L2",
            "bandwidth L3", "bandwidth DRAM", "diskbench", "diskbench io_uring", "diskbench --sustain",
            "netbench", "netbench --sustain", "dpdkbench", "memif pair",
            "memif latency", "kernel udp", "cpubench pass 2", "linpack pass 2", "membench pass 2", "diskbench pass 2",
            "netbench pass 2", "placement", "finish"])
        by = {s.name: s for s in st}
        # reps 3 in the first pass (the PA1 protocol's three) + 1 in the second, the same
        # command otherwise; the full protocol's repetitions last 0.1 s, budgets in seconds
        first, second = by["membench"].argv, by["membench pass 2"].argv
        self.assertEqual(first[first.index("--reps") + 1], "3")
        self.assertEqual(first[first.index("--min-time") + 1], "0.1")
        self.assertEqual(first[first.index("--point-budget") + 1], "0.5")
        self.assertEqual(by["diskbench"].argv[by["diskbench"].argv.index("--point-budget") + 1], "1.2")
        self.assertEqual(second[second.index("--reps") + 1], "1")
        # the second pass: a subset, 1 thread and the largest count that fits the 2 CPUs
        self.assertEqual(second[second.index("--threads") + 1], "1,2")
        # (the second pass's one repetition is exactly one: --ci 0)
        self.assertEqual(second[-2:], ["--ci", "0"])
        # ... a cache-resident and a DRAM block, the latency curve at one size an octave
        self.assertEqual((second[second.index("--block") + 1], second[second.index("--sweep") + 1]),
                         ("8KiB,80MiB", "4KiB:1GiB:1"))
        self.assertEqual(first[first.index("--sweep") + 1], "4KiB:1GiB")
        same = ("1", "3", "1,2,4,8", "1,2", "8B,8KiB,8MiB,80MiB", "8KiB,80MiB", "4KiB:1GiB", "4KiB:1GiB:1")
        self.assertEqual([a for a in first if a not in same], [a for a in second[:-2] if a not in same])
        self.assertEqual(by["membench pass 2"].outf, "memory-membench.pass2")
        d2 = by["diskbench pass 2"].argv
        self.assertEqual((d2[d2.index("--test") + 1], d2[d2.index("--block") + 1], d2[d2.index("--engine") + 1]),
                         ("seq_rw,seq_read,rand_read,seq_write", "4KiB,1MiB", "psync"))
        # the disk sweep: every test and PA1 block on psync, io_uring on small-block reads
        d = by["diskbench"].argv
        self.assertEqual((d[d.index("--test") + 1], d[d.index("--engine") + 1]), ("all", "psync"))
        self.assertEqual(d[d.index("--block") + 1], "8B,4KiB,8KiB,1MiB,8MiB,80MiB")
        u = by["diskbench io_uring"].argv
        self.assertEqual((u[u.index("--test") + 1], u[u.index("--block") + 1], u[u.index("--engine") + 1]),
                         ("seq_read,rand_read", "4KiB,8KiB,1MiB", "uring"))
        self.assertEqual(by["diskbench io_uring"].outf, "disk-diskbench-uring")  # merged into disk
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

    def test_quick_tests_and_dpdk_time(self):
        # --quick measures the PA1 workloads and what the summary leads with; the full
        # protocol and --tiny (the tests' end-to-end run) every test
        for args, mtests, dtests, t in ((("--quick",), "seq_rw,rand_rw,latency,stream",
                                         "seq_rw,seq_read,seq_write,rand_read", "0.25"),
                                        (("--tiny",), "all", "all", "0.1"), ((), "all", "all", "0.5")):
            o, st = steps_of(*args)
            by = {s.name: s.argv for s in st}
            self.assertEqual(by["membench"][by["membench"].index("--test") + 1], mtests, args)
            self.assertEqual(by["diskbench"][by["diskbench"].index("--test") + 1], dtests, args)
            for name in ("dpdkbench", "memif pair", "memif latency", "kernel udp"):
                self.assertEqual(by[name][by[name].index("--time") + 1], t, (args, name))
            short = " ".join(plan.shortened(o))
            if args == ("--quick",):
                self.assertIn("memory tests seq_rw,rand_rw,latency,stream", short)
                self.assertIn("disk tests seq_rw,seq_read,seq_write,rand_read", short)

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

    def test_levels_from_effective_caches(self):
        # run_all.sh's cache curve (PEAKBENCH_CACHE_EFFECTIVE): a level the knee found
        # smaller is sized from the knee (the masked Intel VM: 480 MiB reported, 13.45 MiB
        # measured); a level that agrees keeps the reported size; a malformed value is
        # ignored (the reported sizes stand)
        env = "l1d=16384:agrees,l2=1048576:agrees,l3=14107840:smaller"
        for value, l3 in ((env, "6888KiB"), ("l3=junk", "18304KiB")):
            with self.subTest(value=value):
                old = os.environ.get("PEAKBENCH_CACHE_EFFECTIVE")
                os.environ["PEAKBENCH_CACHE_EFFECTIVE"] = value
                try:
                    _, st = steps_of("--only", "memory")
                finally:
                    if old is None:
                        del os.environ["PEAKBENCH_CACHE_EFFECTIVE"]
                    else:
                        os.environ["PEAKBENCH_CACHE_EFFECTIVE"] = old
                size = {s.name: s.argv[s.argv.index("--size") + 1] for s in st if s.name.startswith("bandwidth")}
                self.assertEqual(size, {"bandwidth L1": "32KiB", "bandwidth L2": "1024KiB",
                                        "bandwidth L3": l3, "bandwidth DRAM": "1GiB"})

    def test_sustain(self):
        # the full protocol's default: 30 s each; --quick none unless asked; to the peer
        _, st = steps_of("--only", "disk,network")
        by = {s.name: s.argv for s in st}
        self.assertEqual(by["diskbench --sustain"][-3:], ["--sustain", "30s", "--quiet"])
        self.assertEqual(by["netbench --sustain"], ["netbench", "loopback", "--sustain", "30s", "--quiet"])
        _, st = steps_of("--only", "disk,network", "--quick")
        self.assertFalse([n for n in names(st) if "sustain" in n])
        _, st = steps_of("--only", "network", "--quick", "--sustain", "30m", "--peer", "192.0.2.7")
        by = {s.name: s.argv for s in st}
        self.assertEqual(by["netbench --sustain"],
                         ["netbench", "client", "--host", "192.0.2.7", "--sustain", "1800s", "--quiet"])
        _, st = steps_of("--only", "disk,network", "--sustain", "0")
        self.assertFalse([n for n in names(st) if "sustain" in n])
        for bad in ("5x", "3s", "25h", "-1", "1.5m"):
            with self.assertRaises(plan.UsageError, msg=bad):
                steps_of("--sustain", bad)

    def test_set(self):
        # --set KEY=VALUE, repeatable: the lines reach run_all.sh as the setting conf_set
        o, st = steps_of("--set", "cloud.instance_type=m5.large", "--set", "disk.mbps=500")
        self.assertEqual(plan.settings(o, st)["conf_set"], "cloud.instance_type=m5.large\ndisk.mbps=500")
        o, st = steps_of()
        self.assertEqual(plan.settings(o, st)["conf_set"], "")
        for bad in ("foo", "=m5.large", "cloud.instance_type=", "Cloud.x=1", "a=b # c", "a=b\nc=d"):
            with self.assertRaises(plan.UsageError, msg=bad):
                steps_of("--set", bad)

    def test_only(self):
        _, st = steps_of("--only", "disk")
        # no unpaired sweep of the tools (the paired rounds compare): --tiny only
        self.assertEqual([n for n in names(st) if "pass 2" not in n],
                         ["peakinfo", "diskbench", "diskbench io_uring", "diskbench --sustain",
                          "placement", "finish"])
        _, st = steps_of("--only", "disk", "--tiny")
        self.assertEqual(names(st), ["peakinfo", "diskbench", "diskbench io_uring", "fio", "iozone",
                                     "placement", "finish"])
        _, st = steps_of("--only", "disk", "--quick")
        self.assertEqual(names(st), ["peakinfo", "diskbench", "diskbench io_uring", "placement", "finish"])
        _, st = steps_of("--only", "cpu,network", "--no-baselines", "--quick")
        self.assertEqual(set(s.suite for s in st), {"info", "cpu", "network", "post"})

    def test_estimates_follow_installed_tools(self):
        o = plan.parse_options(["--tiny"] + BASE[:-1] + ["fio"])
        est = {s.name: s.est for s in plan.build_plan(o)}
        self.assertEqual(est["fio"], plan.BASELINE_EST["tiny"]["fio"])
        self.assertEqual(est["iperf3"], 1)

    def test_cluster_step(self):
        _, st = steps_of("--tiny", "--hostfile", "hosts", "--mpirun", "-x A=1")
        c = [s for s in st if s.name == "cluster"][0]
        self.assertEqual(c.argv[0], "scripts/cluster_run.sh")
        self.assertEqual(c.argv[c.argv.index("--mpirun") + 1], "-x A=1")
        self.assertEqual(c.argv[c.argv.index("--mode") + 1], "tiny")
        self.assertTrue(c.argv[c.argv.index("--build-dir") + 1].endswith("build"))  # run_all's binaries
        self.assertEqual(c.command().split(" --mode")[0].split("--mpirun ")[1], "'-x A=1'")
        self.assertNotIn("--no-hpcc", c.argv)
        _, st = steps_of("--tiny", "--no-baselines", "--hostfile", "hosts")
        self.assertIn("--no-hpcc", [s for s in st if s.name == "cluster"][0].argv)

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
            head, rest = rest[:9], rest[9:]
            argv = rest[:rest.index("")]
            rest = rest[len(argv) + 1:]
            got.append((head[1], argv))
        self.assertEqual(got, [(s.name, s.argv) for s in st])

    def test_point_count_estimates(self):
        # points x (repetitions + warm-up + calibration's two) x seconds per repetition, + 1:
        # cpubench has 53 points per thread count, membench 135, diskbench 6 tests x blocks
        for args, threads, reps, rep_s, blocks in (((), 4, 3, 0.1, 6), (("--quick",), 2, 3, 0.05, 2),
                                                   (("--tiny",), 2, 3, 0.05, 2)):
            _, st = steps_of(*args)
            est = {s.name: s.est for s in st}
            self.assertEqual(est["cpubench"], int(53 * threads * (reps + 2) * rep_s + 1), args)
            # --quick: membench's PA1 tests (75 points a thread count), diskbench's 4 tests
            points, tests = (75, 4) if args == ("--quick",) else (135, 6)
            self.assertEqual(est["membench"], int(points * threads * (reps + 2) * rep_s + 1), args)
            # disk: psync points x (timed repetitions + warm-up + what is not timed)
            runtime = {(): 0.3, ("--quick",): 0.2, ("--tiny",): 0.05}[args]
            extra = {(): 1.3, ("--quick",): 0.5, ("--tiny",): 0.1}[args]
            self.assertEqual(est["diskbench"], int(tests * blocks * threads * (reps * runtime + rep_s + extra) + 1),
                             args)
        # the second pass: one repetition (+ warm-up and calibration) of half the points
        # (threads 1,2 of 1,2,4,8)
        _, st = steps_of()
        est = {s.name: s.est for s in st}
        self.assertEqual(est["cpubench pass 2"], int(est["cpubench"] * 0.5) * 3 // 5)

    def test_shquote(self):
        self.assertEqual(plan.shquote("--log-level=*:critical"), "'--log-level=*:critical'")
        self.assertEqual(plan.shquote("it's"), "'it'\\''s'")
        self.assertEqual(plan.shquote("1,2"), "1,2")


class QuickAndPlanFile(unittest.TestCase):
    def test_quick_linpack_n_is_hpccs(self):
        # --quick: linpack at hpcc's own --quick N, which the baseline joins it with
        _, st = steps_of("--quick")
        lp = {s.name: s.argv for s in st}["linpack"]
        self.assertEqual(lp[1:3], ["--n", "2880"])
        from peakresults.adapters import hpcc
        self.assertEqual(hpcc.N["quick"], plan.QUICK_LINPACK_N)
        self.assertEqual(hpcc.PAIR_N["quick"], plan.QUICK_LINPACK_N)
        hpl = {s.name: s.argv for s in st}.get("hpcc r1 ours-hpl")
        if hpl:  # the paired job, when hpcc is there: the same N on our side
            self.assertEqual(hpl[hpl.index("--n") + 1], "2880")

    def test_shortened_and_plan_json(self):
        o, st = steps_of("--quick")
        short = plan.shortened(o)
        self.assertIn("linpack N=2880 (full: N for a 20 s solve)", short)
        self.assertTrue(any(q.startswith("disk file 256 MiB") for q in short), short)
        self.assertEqual(plan.shortened(steps_of()[0]), [])
        with tempfile.TemporaryDirectory() as d:
            argv = ["--quick", "--out", d, "--ncpu", "2", "--sysroot", SYSROOT, "--build-dir", NOBUILD,
                    "--have", "sockperf", "--nul", "--write-pairs"]
            old, sys.stdout = sys.stdout, io.StringIO()
            try:
                self.assertEqual(plan.main(argv), 0)
            finally:
                sys.stdout = old
            with open(os.path.join(d, "plan.json")) as f:
                doc = json.load(f)
        self.assertEqual(doc["mode"], "quick")
        self.assertIn("1 paired round a job", " ".join(doc["shortened"]))
        # --quick: no conditional step (one round, no traced round)
        self.assertEqual(doc["total_est_s"], doc["total_max_s"])
        self.assertEqual(doc["conditional_steps"], 0)

    def test_estimates_with_and_without_extra_rounds(self):
        o, st = steps_of()
        o2 = plan.parse_options(BASE[:-1] + ["likwid"])  # likwid-mem: matched, 6 to 9 rounds
        st = plan.build_plan(o2)
        cfg = plan.settings(o2, st)
        extra = sum(s.est for s in st if s.cond)
        self.assertGreater(extra, 0)
        self.assertEqual(int(cfg["total_max"]) - int(cfg["total_est"]), extra)
        buf = io.StringIO()
        plan.write_text(o2, st, buf)
        self.assertIn("if needed: ", buf.getvalue())


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

    def test_paths_the_kernel_cannot_take(self):
        # issue 34: one line and exit 2 before any folder is made (run_all.sh wrote its
        # plan-args into a made --out of 4 KiB and stopped with exit 1)
        deep = "/tmp/peakbench-plan-test" + "/a folder" * 460
        name = "/tmp/" + "n" * 300
        for args, want in ((["--out", deep], "PATH_MAX"), (["--out", name], "NAME_MAX"),
                           (["--disk-dir", name], "NAME_MAX"), (["--build-dir", deep], "PATH_MAX"),
                           (["--hostfile", name + "/hosts"], "NAME_MAX")):
            r = self.run_plan("--dry-run", *args)
            self.assertEqual(r.returncode, 2, args[0])
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, (args[0], r.stderr))
            self.assertIn(want, r.stderr)
            self.assertIn(args[0] + ":", r.stderr)
        self.assertFalse(os.path.exists(deep))
        # a deep folder with spaces that the kernel takes is fine
        ok = "/tmp/peakbench-plan-test/my course" + "/a folder of the course" * 20 + "/pa1 bench"
        r = self.run_plan("--dry-run", "--out", ok, "--ncpu", "2", "--sysroot", SYSROOT,
                          "--build-dir", NOBUILD, "--have", "none")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_help(self):
        r = self.run_plan("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--hostfile FILE", r.stdout)


if __name__ == "__main__":
    unittest.main()
