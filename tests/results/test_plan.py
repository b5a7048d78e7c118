"""run_all.sh's plan (scripts/peakresults/plan.py): the steps of the full, quick and tiny
protocols, --only, the second pass, cache sizes from a fake /sys, the NUL format run_all.sh
reads, and bad options (one line, exit 2). Nothing is run."""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.adapters import hpcc as hpcc_adapter  # noqa: E402
from peakresults.plan import plan, plan_options, plan_pairs  # noqa: E402

SYSROOT = os.path.join(REPO, "tests", "fixtures", "sysroot-full")
# (no built binaries: options another change adds, such as --ci, are not passed)
NOBUILD = os.path.join(REPO, "tests", "fixtures", "no-such-build")
BASE = ["--out", "/tmp/peakbench-plan-test", "--ncpu", "2", "--sysroot", SYSROOT, "--build-dir", NOBUILD,
        "--have", "none"]


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


class PairedRounds(unittest.TestCase):
    """Issue 13: the same job on both sides, in alternating rounds (6 full, 1 quick, 1 tiny)."""

    def pairs(self, *args, have="likwid,hpcc,fio,iperf3,sockperf", meminfo=None, sysroot=SYSROOT):
        env = dict(os.environ)
        if meminfo:
            os.environ["PEAKBENCH_MEMINFO"] = meminfo
        base = [sysroot if a == SYSROOT else a for a in BASE[:-1]]
        try:
            o = plan.parse_options(list(args) + base + [have])
            return o, plan.pair_jobs(o, set(o.suites), "/d"), plan.build_plan(o)
        finally:
            os.environ.clear()
            os.environ.update(env)

    def test_rounds_alternate(self):
        # 3 to 6 rounds in the full protocol (past 3 only while a verdict can still change;
        # a 7th and 8th pair cannot narrow the interval), 1 quick, 1 tiny; a job of two CPUs'
        # figures (likwid-mem) up to 9
        _, _, steps = self.pairs()
        lm = [s for s in steps if s.suite == "pair" and s.name.startswith("likwid-mem r") and "ours" in s.name]
        self.assertEqual([s.cond for s in lm], [""] * 3 + [f"pairs likwid-mem {k}" for k in range(4, 10)])
        for mode, n, cap in (("--tiny", 1, 1), ("--quick", 1, 1), (None, 3, 6)):
            _, jobs, steps = self.pairs(*([mode] if mode else []))
            sq = [s for s in steps if s.suite == "pair" and s.name.startswith("sockperf r")
                  and not s.name.endswith(" best")]
            self.assertEqual(len(sq), 2 * cap, mode)
            # the like-for-like side serves from a process of its own, as sockperf does; our
            # best configuration (a server thread) only where the mode runs best rounds
            self.assertIn("--server-process", sq[0].argv)
            best = [s for s in steps if s.suite == "pair" and s.name.startswith("sockperf r")
                    and s.name.endswith(" best")]
            self.assertEqual(len(best), 0 if mode == "--quick" else 1, mode)
            self.assertTrue(all("--server-process" not in s.argv for s in best))
            order = [s.name.split()[-1] for s in sq]
            self.assertEqual(order, (["ours", "sockperf", "sockperf", "ours"] * 4)[:2 * cap])
            # the rounds past the least carry their condition: run_all.sh asks pairs-enough
            self.assertEqual([s.cond for s in sq], [""] * 2 * n + [f"pairs sockperf {k // 2 + 1}"
                                                                    for k in range(2 * n, 2 * cap)])
            self.assertEqual(sq[0].outf, "pairs/sockperf/r1-ours")
            tool = sq[1].argv
            self.assertEqual(tool[tool.index("--json") + 1], "/tmp/peakbench-plan-test/raw/pairs/sockperf/r1-tool.json")
        # the pairs come after the sweeps, before the second pass
        names = [s.name for s in steps]
        self.assertLess(names.index("kernel udp"), names.index("sockperf r1 ours"))
        self.assertLess(names.index("sockperf r6 ours"), names.index("cpubench pass 2"))
        self.assertEqual(len([s for s in steps if s.name.startswith("hpcc r") and s.name.endswith("hpcc")]), 6)

    def test_same_job_memory(self):
        # fixture CPU: AVX-512 (Cascade Lake), 2 CPUs; full mode: 1 GiB working set
        _, jobs, steps = self.pairs()
        by = {j.id: j for j in jobs}
        lf, lm = by["likwid-flops"], by["likwid-mem"]
        self.assertEqual(lf.tool_argv[lf.tool_argv.index("--tests") + 1], "peakflops_avx512_fma")
        self.assertEqual(lm.tool_argv[lm.tool_argv.index("--tests") + 1], "copy_mem_avx512,stream_mem_avx512")
        self.assertEqual(lm.tool_argv[lm.tool_argv.index("--min-seconds") + 1], "0.5")
        self.assertEqual([k for k, _ in lf.ours], ["flops"])
        # likwid's copy_mem and stream_mem are STREAM's copy and triad: one membench stream job
        ((part, stream),) = lm.ours
        self.assertEqual(part, "stream")
        self.assertEqual(stream[stream.index("--nt") + 1], "on")
        self.assertEqual(stream[stream.index("--size") + 1], "1073741824B")
        keys = [f["key"] for f in lf.figures + lm.figures]
        self.assertEqual([k["variant"] for k in keys], ["avx512_dp_fma", "copy-avx512-nt", "triad-avx512-nt"])
        self.assertEqual({k["threads"] for k in keys}, {2})
        self.assertEqual(keys[1]["block_bytes"], keys[2]["block_bytes"])  # membench's array
        self.assertIn("copy_mem: S0:715827kB", lm.tool_job)  # two of membench's three arrays
        # two threads: the bandwidth follows the vCPUs' placement, so placement-matched
        # rounds (9 in the full protocol) of one membench run each; flops is per core
        self.assertTrue(lm.matched)
        self.assertFalse(lf.matched)
        self.assertEqual(lm.doc(9)["placement"], "matched")
        self.assertNotIn("placement", lf.doc(6))
        self.assertEqual(lf.doc(6)["rounds_max"], 6)  # pairs.enough_line: the rounds left
        self.assertEqual(stream[stream.index("--reps") + 1], "1")
        mem = [s for s in steps if s.name.startswith("likwid-mem r") and s.name.endswith("bench")]
        self.assertEqual((len(mem), len([s for s in mem if not s.cond])), (9, 3))
        self.assertEqual(len([s for s in steps if s.name.startswith("likwid-flops r") and s.name.endswith("bench")]), 6)
        # one CPU: nothing to move, plain rounds
        _, jobs, _ = self.pairs("--threads", "1")
        lm = {j.id: j for j in jobs}["likwid-mem"]
        self.assertFalse(lm.matched)
        stream = lm.ours[0][1]
        self.assertEqual(stream[stream.index("--reps") + 1], "1")  # one run a side in every job

    def test_same_job_hpcc_stream_width(self):
        # hpcc's STREAM runs at the width its binary was built for: membench runs that ISA
        for isa, how in (("sse2", "measured"), ("avx2", "measured"),
                         ("sse2", "hpcc's vector width not measured (no objdump): SSE2 assumed")):
            old = hpcc_adapter.vector_isa
            hpcc_adapter.vector_isa = lambda: (isa, how)
            try:
                _, jobs, _ = self.pairs()
            finally:
                hpcc_adapter.vector_isa = old
            hp = {j.id: j for j in jobs}["hpcc"]
            st = dict(hp.ours)["stream"]
            self.assertEqual(st[st.index("--nt") + 1], "off")  # hpcc's STREAM has no NT stores
            self.assertEqual(st[st.index("--isa") + 1], isa)
            self.assertEqual(hp.figures[1]["key"]["variant"], f"triad-{isa}")
            self.assertIn(f"isa={isa}", hp.tool_argv)  # the tool's row is keyed alike
            self.assertEqual(hp.figures[1]["cause"], "" if how == "measured" else how)

    def test_same_job_memory_pages(self):
        # hpcc's and likwid-bench's arrays come from malloc: THP only when THP is "always";
        # the fixture's THP is "madvise", so membench maps 4 KiB pages as well
        _, jobs, _ = self.pairs()
        by = {j.id: j for j in jobs}
        for job, part in (("likwid-mem", "stream"), ("hpcc", "stream")):
            argv = dict(by[job].ours)[part]
            self.assertEqual(argv[argv.index("--hugepages") + 1], "off", job)
        with tempfile.TemporaryDirectory() as d:
            thp = os.path.join(d, "sys/kernel/mm/transparent_hugepage")
            os.makedirs(thp)
            with open(os.path.join(thp, "enabled"), "w") as f:
                f.write("[always] madvise never\n")
            o = plan.parse_options(BASE[:BASE.index("--sysroot") + 1] + [d])
            self.assertEqual(plan.heap_pages_args(o), [])  # malloc gets THP: membench's default
            os.remove(os.path.join(thp, "enabled"))
            self.assertEqual(plan.heap_pages_args(o), ["--hugepages", "off"])  # no THP at all

    def test_same_job_disk_pages(self):
        # The same pages on both sides: the hugetlb pool when it has room; else diskbench's
        # --buffer-dir files on /dev/shm, which fio maps (--mem=mmapshared); else (no tmpfs
        # /dev/shm) scattered 4 KiB pages against fio's malloc, with the measured cause.
        with tempfile.TemporaryDirectory() as d:
            mi = os.path.join(d, "meminfo")
            noshm = os.path.join(d, "root")  # a sysroot without /dev/shm on tmpfs
            os.makedirs(os.path.join(noshm, "sys/kernel/mm/transparent_hugepage"))
            for free, root, pages, mem in (("64", None, "hugetlb", "shmhuge"), ("0", None, "shared", None),
                                           ("0", noshm, "scattered", "malloc")):
                with open(mi, "w") as f:
                    f.write(f"HugePages_Free: {free}\nHugePages_Rsvd: 0\nHugepagesize: 2048 kB\n")
                o, jobs, steps = self.pairs("--quick", meminfo=mi, sysroot=root or SYSROOT)
                fj = {j.id: j for j in jobs}["fio"]
                parts = dict(fj.ours)
                for part in ("seq", "rand"):
                    argv = parts[part]
                    if pages == "shared":
                        self.assertNotIn("--buffer-pages", argv)
                        bufdir = argv[argv.index("--buffer-dir") + 1]
                    else:
                        self.assertNotIn("--buffer-dir", argv)
                        self.assertEqual(argv[argv.index("--buffer-pages") + 1], pages)
                if pages == "shared":
                    # one directory on /dev/shm, named after the results folder; fio is given it
                    self.assertTrue(bufdir.startswith(f"/dev/shm/peakbench-buffers.{os.getuid()}."), bufdir)
                    self.assertEqual(fj.tool_argv[fj.tool_argv.index("--buffer-dir") + 1], bufdir)
                    self.assertNotIn("--mem", fj.tool_argv)
                    self.assertEqual(plan.shared_buffer_dir(o), bufdir)
                    self.assertEqual(plan.settings(o, steps)["buffer_dir"], bufdir)  # run_all.sh removes it
                    self.assertEqual([f["cause"] for f in fj.figures], ["", "", "", ""])
                else:
                    self.assertEqual(fj.tool_argv[fj.tool_argv.index("--mem") + 1], mem)
                    self.assertEqual(plan.settings(o, steps)["buffer_dir"], "")
                    self.assertEqual(bool(fj.figures[0]["cause"]), pages == "scattered")
                # our best beside on the huge pages the kernel gives (auto) where the pairing
                # did not use them and THP is on (the fixture: madvise; the bare root: none)
                best = fj.figures[0].get("best_job", "").split()
                if pages != "shared":
                    self.assertEqual((fj.best, best), ([], []))
                else:
                    self.assertEqual(fj.figures[0]["best_key"], fj.figures[0]["key"])
                    self.assertEqual(best[best.index("--buffer-pages") + 1], "auto")
                    self.assertNotIn("--buffer-dir", best)
                    self.assertEqual([p for p, _ in fj.best], ["seq"])
                    self.assertEqual(fj.best[0][1], best)
                    self.assertIn("DMA segment", fj.figures[0]["best_cause"])
                argv = parts["seq"]
                self.assertEqual(argv[argv.index("--file-size") + 1], "256MiB")
                # fio ramps up as long as diskbench warms up (--min-time 0.05 in --quick)
                self.assertEqual(fj.tool_argv[fj.tool_argv.index("--ramp-ms") + 1], "50")
                self.assertEqual(argv[argv.index("--threads") + 1], "1")
                # The same data: one repeated megabyte on both sides.
                self.assertEqual(argv[argv.index("--data-period") + 1], "1MiB")
                self.assertIn("--same-data", fj.tool_argv)
                # both tools on one CPU
                cpu = str(min(os.sched_getaffinity(0)))
                self.assertEqual(fj.tool_argv[fj.tool_argv.index("--cpu") + 1], cpu)
                self.assertEqual(argv[argv.index("--cpus") + 1], cpu)
                self.assertEqual(parts["rand"][parts["rand"].index("--cpus") + 1], cpu)

    def test_network_like_for_like_and_best(self):
        _, jobs, _ = self.pairs("--quick")
        by = {j.id: j for j in jobs}
        it, iu = by["iperf3-tcp"], by["iperf3-udp"]
        (tcp,), (udp,) = it.figures, iu.figures
        self.assertEqual(tcp["key"]["threads"], 1)
        self.assertEqual(tcp["best_key"]["threads"], 2)
        self.assertIn("one thread", tcp["best_cause"])
        for j, test in ((it, "tcp_throughput"), (iu, "udp_throughput")):
            self.assertEqual(j.tool_argv[j.tool_argv.index("--threads") + 1], "1")
            self.assertEqual(j.tool_argv[j.tool_argv.index("--tests") + 1], test)
        # UDP: like-for-like without GSO at one thread; our best (GSO) beside it
        ours, best = dict(iu.ours)["udp"], dict(iu.best)["udp"]
        self.assertIn("--no-gso", ours)
        self.assertEqual(ours[ours.index("--send-batch") + 1], "1")  # iperf3: one datagram per send()
        self.assertNotIn("--no-gso", best)
        self.assertNotIn("--send-batch", best)
        # client and server on the same two CPUs on both sides (one CPU: both on it); our
        # best configuration left to the scheduler
        allowed = sorted(os.sched_getaffinity(0))
        cpu, scpu = str(allowed[0]), str(allowed[1] if len(allowed) > 1 else allowed[0])
        sp = by["sockperf"]
        # (the latency pair: both ends on the first CPU, a ping-pong without vCPU wake-ups)
        for tool_argv, ours_argvs, server in ((it.tool_argv, [dict(it.ours)["tcp"]], scpu),
                                              (iu.tool_argv, [ours], scpu),
                                              (sp.tool_argv, [sp.ours[0][1]], cpu)):
            self.assertEqual(tool_argv[tool_argv.index("--cpu") + 1], cpu)
            self.assertEqual(tool_argv[tool_argv.index("--server-cpu") + 1], server)
            for a in ours_argvs:
                self.assertEqual((a[a.index("--cpus") + 1], a[a.index("--server-cpus") + 1]), (cpu, server))
        for _, a in it.best + iu.best:
            self.assertNotIn("--cpus", a)
        self.assertEqual(ours[ours.index("--datagram") + 1], "1472B")
        self.assertIn("GSO", udp["best_cause"])
        # TCP across two CPUs: placement-matched rounds (4 quick) of one run; UDP and the
        # one-CPU latency pair keep the plain rounds
        self.assertEqual((it.matched, iu.matched, sp.matched), (cpu != scpu, False, False))
        a = dict(it.ours)["tcp"]
        self.assertEqual(a[a.index("--reps") + 1], "1")

    def test_write_pairs(self):
        with tempfile.TemporaryDirectory() as d:
            argv = ["--tiny", "--out", d, "--ncpu", "2", "--sysroot", SYSROOT, "--have", "sockperf,iperf3",
                    "--nul", "--write-pairs"]
            out = io.StringIO()
            old, sys.stdout = sys.stdout, out
            try:
                self.assertEqual(plan.main(argv), 0)
            finally:
                sys.stdout = old
            self.assertIn("pairs/sockperf/r1-ours", out.getvalue().split("\0"))
            with open(os.path.join(d, "raw", "pairs", "sockperf", "job.json")) as f:
                job = json.load(f)
            self.assertEqual(job["tool"], "sockperf")
            self.assertEqual(job["figures"][0]["key"]["test"], "tcp_latency")
            self.assertTrue(os.path.exists(os.path.join(d, "raw", "pairs", "iperf3-tcp", "job.json")))

    def test_no_pairs_without_tools_or_baselines(self):
        _, jobs, _ = self.pairs(have="none")
        self.assertEqual(jobs, [])
        o, _, steps = self.pairs("--no-baselines")
        self.assertFalse([s for s in steps if s.suite == "pair"])
        _, jobs, _ = self.pairs("--only", "disk")
        self.assertEqual([j.id for j in jobs], ["fio"])

    def test_best_only_in_first_round(self):
        # full and --tiny: in round 1 only; --quick: not run
        for mode, want in ((None, ["iperf3-udp r1 best-udp"]), ("--tiny", ["iperf3-udp r1 best-udp"]),
                           ("--quick", [])):
            _, _, steps = self.pairs(*([mode] if mode else []))
            best = [s.name for s in steps if s.name.startswith("iperf3-udp r") and " best" in s.name]
            self.assertEqual(best, want, mode)

    def test_traced_round(self):
        # full: after the rounds, each of our parts and the tool under `peakresults trace run`
        o, _, steps = self.pairs()
        tr = [s for s in steps if s.kind == "trace"]
        self.assertEqual([s.name for s in tr], ["fio trace ours-seq", "fio trace ours-rand", "fio trace fio",
                                                "iperf3-tcp trace ours-tcp", "iperf3-tcp trace iperf3",
                                                "iperf3-udp trace ours-udp", "iperf3-udp trace iperf3",
                                                "sockperf trace ours", "sockperf trace sockperf"])
        raw = os.path.join(o.out, "raw", "pairs")
        seq = tr[0].argv
        self.assertEqual(seq[:6], ["python3", "scripts/peakresults", "trace", "run",
                                   os.path.join(raw, "fio", "trace-ours-seq.txt"), "--"])
        self.assertEqual(seq[6], "diskbench")
        tool = tr[2].argv
        self.assertEqual(tool[4:9], [os.path.join(raw, "fio", "trace-tool.txt"), "--", "/usr/bin/env", "python3",
                                     os.path.join(o.root, "scripts", "peakresults", "adapters")])
        self.assertEqual(tool[9:11], ["fio", "--mode"])
        self.assertEqual(tool[tool.index("--json") + 1], os.path.join(raw, "fio", "trace-tool.json"))
        names = [s.name for s in steps]
        # first: a difference the trace finds settles the verdict at the least rounds
        self.assertLess(names.index("fio trace fio"), names.index("fio r1 ours-seq"))
        self.assertEqual({s.cond for s in tr}, {""})
        # --quick and --tiny trace nothing (the report says --quick's pairs were not traced)
        for mode in ("--quick", "--tiny"):
            _, _, steps = self.pairs(mode)
            self.assertFalse([s for s in steps if s.kind == "trace"], mode)

    def test_ci_options(self):
        # --quick fixes its repetitions (--ci 0), a pair's side and the second pass are one
        # run (--reps 1 --ci 0); the full protocol's sweeps repeat until the interval is narrow
        o = plan.parse_options(["--quick", "--out", "/tmp/x", "--ncpu", "2", "--sysroot", SYSROOT,
                                "--have", "sockperf"])
        by = {s.name: s.argv for s in plan.build_plan(o)}
        o = plan.parse_options(["--out", "/tmp/x", "--ncpu", "2", "--sysroot", SYSROOT, "--have", "none"])
        full = {s.name: s.argv for s in plan.build_plan(o)}
        cpu = by["cpubench"]
        self.assertEqual(cpu[cpu.index("--ci") + 1], "0")
        side = by["sockperf r1 ours"]
        self.assertEqual((side[side.index("--reps") + 1], side[side.index("--ci") + 1]), ("1", "0"))
        self.assertNotIn("--ci", full["cpubench"])  # the full protocol: adaptive
        p2 = full["cpubench pass 2"]
        self.assertEqual(p2[p2.index("--ci") + 1], "0")


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
