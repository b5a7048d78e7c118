"""run_all.sh's plan, its paired rounds (issue 13; scripts/peakresults/plan/plan_pairs.py and
each adapter's pair_jobs): rounds alternating sides, the same job on both sides (pages, sizes,
ISA, threads), our best configuration in the first round only, the traced round, job.json.
Nothing is run."""
import io
import json
import os
import sys
import tempfile
import unittest

from plan_common import BASE, SYSROOT, plan

from peakresults.adapters import hpcc as hpcc_adapter  # (plan_common puts scripts/ on the path)
from peakresults.adapters import pairing


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
            self.assertEqual(pairing.heap_pages_args(o), [])  # malloc gets THP: membench's default
            os.remove(os.path.join(thp, "enabled"))
            self.assertEqual(pairing.heap_pages_args(o), ["--hugepages", "off"])  # no THP at all

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
                    self.assertEqual(pairing.shared_buffer_dir(o), bufdir)
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


if __name__ == "__main__":
    unittest.main()
