"""report.md reads in one page (issue 26, items 3 and 5): the summary of the recorded tiny run
(tests/fixtures/results/tiny) fits about 60 lines and names every subsystem; what it leaves
out is in report-appendix.md; a result set the size of the full protocol (synthesized: 4
thread counts, 6 disk block sizes x 2 engines, the 1 GiB latency sweep, paired jobs with
long command lines) stays under a size bound; the run's mode and what it shortened."""
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(REPO, "tests", "fixtures", "results", "tiny")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.core import schema  # noqa: E402
from peakresults.merge import pool  # noqa: E402
from peakresults.report import report_cluster, report_mode, report_refs  # noqa: E402
from peakresults.report.finish import finish  # noqa: E402

SUMMARY_MAX_LINES = 60
FULL_MAX_BYTES = 40_000
THREADS = (1, 2, 4, 8)


def fixture_copy(tmp: str) -> str:
    d = os.path.join(tmp, "run")
    shutil.copytree(FIX, d, ignore=shutil.ignore_patterns("old", "baseline-*.csv"))
    return d


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def summary_of(md: str) -> list[str]:
    """The lines from "## Summary" up to the next "## " heading."""
    lines = md.splitlines()
    start = lines.index("## Summary")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))
    return lines[start:end]


def row(suite, test, variant, threads, block, metric, unit, mean, flags="", theoretical=None):
    r = {c: None for c in schema.COLUMNS}
    r.update(suite=suite, test=test, variant=variant, threads=threads, block_bytes=block, metric=metric,
             unit=unit, flags=flags, baseline_tool="", theoretical=theoretical)
    r = pool.restat(r, [mean * 0.97, mean, mean * 1.03])
    if theoretical:
        r["efficiency"] = r["mean"] / theoretical
    return r


def full_rows() -> dict:
    """{raw file name: rows} of a full-protocol run on an AVX-512 machine (the shapes of
    plan.py's full plan; the numbers are made up)."""
    cpu, mem, disk, net, dpdk = [], [], [], [], []
    for isa in ("scalar", "sse", "avx", "avx2", "avx512"):
        for prec in ("sp", "dp"):
            v = f"{isa}_{prec}" + ("_fma" if isa in ("avx2", "avx512") else "_addmul")
            for t in THREADS:
                cpu.append(row("cpu", "flops", v, t, None, "flops", "GFLOPS", 10.0 * t, "", 11.0 * t))
                cpu.append(row("cpu", "frequency", v, t, None, "frequency", "GHz", 3.6))
        for w in ("i32_add", "i64_add", "i32_mulmix", "i64_mulmix"):
            for t in THREADS:
                cpu.append(row("cpu", "iops", f"{isa}_{w}", t, None, "iops_int", "GIOPS", 20.0 * t, "", 22.0 * t))
                cpu.append(row("cpu", "frequency", f"{isa}_{w}", t, None, "frequency", "GHz", 3.6))
    for test in ("seq_rw", "rand_rw", "seq_read", "seq_write", "rand_read", "rand_write"):
        for b, v in ((8, "scalar"), (8192, "avx512"), (8 << 20, "avx512"), (80 << 20, "avx512-nt")):
            for t in THREADS:
                mem.append(row("memory", test, v, t, b, "throughput", "MB/s", 9000.0 * t, "steal;steal_pct=2"))
    for k in ("copy", "scale", "add", "triad"):
        for t in THREADS:
            mem.append(row("memory", "stream", f"{k}-avx512-nt", t, 357913941, "throughput", "MB/s", 20000.0 * t))
    for i in range(73):  # 4 points per power of two, 4 KiB to 1 GiB, whole cache lines
        ws = round(4096 * 2 ** (i / 4) / 64) * 64
        for v in ("chase-4k", "chase-thp"):
            mem.append(row("memory", "latency", v, 1, ws, "latency", "ns", 1.2 + ws / 1e7))
            mem.append(row("memory", "latency", v, 1, ws, "latency", "cycles", 4.4 + ws / 3e6))
    for test in ("seq_rw", "seq_read", "seq_write", "rand_read", "rand_write", "seq_write_new"):
        for t in THREADS:
            for b in (8, 4096, 8192, 1 << 20, 8 << 20, 80 << 20):
                for e in ("psync", "uring-qd32"):
                    f = "buffer_pages=thp;time_based;steal;steal_pct=4"
                    disk.append(row("disk", test, e, t, b, "throughput", "MB/s", 300.0 * t, f))
                    if b <= 65536:
                        disk.append(row("disk", test, e, t, b, "iops", "IOPS", 70000.0 * t, f))
                    disk.append(row("disk", test, e, t, b, "latency", "us", 90.0 * t, f))
    for test, v, b, metrics in (("tcp_throughput", "tcp", 65536, ("throughput", "throughput_conn", "cpu_sender",
                                                                   "cpu_receiver")),
                                ("udp_throughput", "udp", 1472, ("throughput", "loss", "cpu_sender", "cpu_receiver")),
                                ("tcp_latency", "tcp", 16, ("latency", "transaction_rate", "cpu_sender",
                                                            "cpu_receiver")),
                                ("udp_latency", "udp", 16, ("latency", "transaction_rate", "loss", "cpu_sender",
                                                            "cpu_receiver"))):
        for t in THREADS:
            for m in metrics:
                unit = {"throughput": "Gbit/s", "throughput_conn": "Gbit/s", "loss": "%", "latency": "us",
                        "transaction_rate": "trans/s"}.get(m, "%")
                net.append(row("network", test, v, t, b, m, unit, 12.0 * t, "", 106.9 if m == "throughput" else None))
    for size in (64, 1500, 9000):
        for fl in (1, 8, 32, 256):
            v = f"ring-flows{fl}-q1-uni"
            for test, unit in (("rx_loopback", "Mpps"), ("tx_loopback", "Mpps"), ("loss_loopback", "%"),
                               ("latency_loopback", "us")):
                dpdk.append(row("dpdk", test, v, 1, size, "loss" if unit == "%" else
                                "latency" if unit == "us" else "throughput", unit, 50.0, "vdev"))
            for lv in ("l1", "l2"):
                dpdk.append(row("dpdk", "rx_loopback", f"{v}-{lv}", 1, size, "throughput", "Gbit/s", 40.0, "vdev"))
    memif = []
    for size in (64, 1500, 9000):
        for v in ("memif-flows1-q1-bi", "memif-flows8-q1-bi", "memif-flows1-q1-bi-r0.1"):
            for side in ("dut", "tester"):
                for test, metric, unit in ((f"rx_{side}", "throughput", "Mpps"), (f"loss_{side}", "loss", "%"),
                                           (f"tx_{side}", "throughput", "Mpps")):
                    memif.append(row("dpdk", test, v, 1, size, metric, unit, 12.0, "vdev;preempted"))
                for lv in ("l1", "l2"):
                    memif.append(row("dpdk", f"rx_{side}", f"{v}-{lv}", 1, size, "throughput", "Gbit/s", 9.0, "vdev"))
            memif.append(row("dpdk", "latency_roundtrip", v, 1, size, "latency", "us", 50.0, "vdev"))
    return {"dpdk-memif.json": memif, "cpu-cpubench.json": cpu, "memory-membench.json": mem,
            "disk-diskbench.json": disk, "network-netbench.json": net, "dpdk-dpdkbench.json": dpdk}


LONG_OURS = ("diskbench --test seq_write,seq_read --block 1MiB --engine psync --data-period 1MiB --dir "
             "/srv/results/20261126T050112Z/disk-tmp --file-size 1GiB --runtime 1 --threads 1 --cpus 0 "
             "--buffer-dir /dev/shm/peakbench-buffers.0.ec1152938a28 --reps 1 --quiet")
LONG_TOOL = ("fio --direct=1 --numjobs=1 --cpus_allowed=0 --size=1GiB --runtime=3 --mem=mmapshared:/dev/shm/"
             "peakbench-buffers.0.ec1152938a28/{read,write}.buf --scramble_buffers=0 --ramp_time=50ms")


def write_pairs(out: str, n_jobs: int = 15, rounds: int = 5) -> None:
    """N_JOBS paired jobs of one figure each, ROUNDS rounds, ratio 1.3 (every third has a cause)."""
    for j in range(n_jobs):
        key = {"suite": "disk", "test": "seq_read", "variant": "psync", "threads": 1 + j % 4,
               "block_bytes": 1 << 20, "metric": "throughput", "unit": "MB/s"}
        d = os.path.join(out, "raw", "pairs", f"job{j:02d}")
        os.makedirs(d)
        # two jobs in three have a measured cause, of the length the plan's causes have
        cause = ("fio's pages are 4 KiB, ours transparent huge pages (--buffer-pages auto): a 1 MiB transfer is one "
                 "DMA segment, on fio's 4 KiB pages up to 256") if j % 3 else ""
        with open(os.path.join(d, "job.json"), "w", encoding="utf-8") as f:
            json.dump({"id": f"job{j:02d}", "tool": "fio", "tool_job": LONG_TOOL + f" #{j}",
                       "figures": [{"key": key, "ours_job": LONG_OURS + f" #{j}", "cause": cause}]}, f)
        for k in range(1, rounds + 1):
            with open(os.path.join(d, f"r{k}-ours.json"), "w", encoding="utf-8") as f:
                json.dump({"context": {}, "results": [dict(key, n=1, mean=130.0, flags="")]}, f)
            with open(os.path.join(d, f"r{k}-tool.json"), "w", encoding="utf-8") as f:
                json.dump({"schema": schema.BASELINE_SCHEMA, "tool": "fio", "tool_version": "fio-3.33",
                           "rows": [dict(key, tool="fio", n=1, mean=100.0)], "skipped": []}, f)


class Tiny(unittest.TestCase):
    """The recorded tiny run (no paired rounds: the joined rows are the verdicts)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.out = fixture_copy(cls.tmp)
        cls.res, _ = finish(cls.out, draw=False)
        cls.md = read(os.path.join(cls.out, "report.md"))
        cls.app = read(os.path.join(cls.out, "report-appendix.md"))
        cls.summary = summary_of(cls.md)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_summary_fits_one_page(self):
        self.assertLessEqual(len(self.summary), SUMMARY_MAX_LINES, "\n".join(self.summary))
        self.assertLess(self.md.index("## Summary"), 600)  # the summary comes first

    def test_summary_names_every_subsystem(self):
        text = "\n".join(self.summary)
        for s in self.res.merged.suites:
            self.assertIn(f"\n| {s} | ", text, s)

    def test_summary_machine_row(self):
        self.assertIn("| AMD EPYC | 25/17 | 2 cores, 2 of 2 CPUs allowed | 23.5 GiB | Linux 6.18.44-fc-v669 | kvm | "
                      "3.684 GHz measured |", self.summary)

    def test_headline_against_its_peak(self):
        dp = [ln for ln in self.summary if ln.startswith("| cpu | FLOPS, double precision |")]
        self.assertEqual(dp, ["| cpu | FLOPS, double precision | 58.54 GFLOPS | 59.09 GFLOPS | 99.1% | "
                              "1t, avx512_dp_fma |  |"])
        mem = [ln for ln in self.summary if ln.startswith("| memory | STREAM triad |")][0]
        self.assertIn("unknown: set mem.gbps", mem)  # no peak: what to set, from the context
        self.assertIn("cached, small_arrays", mem)

    def test_verdicts_one_line_per_job(self):
        text = "\n".join(self.summary)
        self.assertIn("| 1.03 | likwid-bench | flops avx512_dp_fma 1t | 58.54 GFLOPS | 57.00 GFLOPS | in band |", text)
        self.assertIn("| 0.79 | hpcc | linpack dgesv 2t | 13.91 GFLOPS | 17.71 GFLOPS | unexplained |", text)
        # fio's seq_read ran throughput and latency: one line, the throughput
        self.assertEqual(text.count("| fio | seq_read psync 1 MiB 1t"), 1)

    def test_mode_and_what_it_shortened(self):
        text = "\n".join(self.summary)
        self.assertIn("Mode: **tiny**", text)
        self.assertIn("threads 1,2 (full: 1,2,4,8)", text)
        self.assertIn("diskbench --file-size 8MiB", text)

    def test_conclusion_warnings(self):
        text = "\n".join(self.summary)
        self.assertIn("**The host moved the vCPUs during the run**", text)  # c2c.moved in the context
        self.assertIn("14 of 22 reference ratios outside 0.90-1.10", text)
        self.assertIn("`vdev` on dpdk Packet rate", text)

    def test_moved_to_the_appendix(self):
        for heading in ("## Steps", "## Machine: every context key", "## Theoretical peaks and their sources"):
            self.assertNotIn(f"\n{heading}\n", self.md)
            self.assertIn(f"\n{heading}\n", self.app)
        self.assertIn("| clock.overhead_ns | 23 |", self.app)
        self.assertNotIn("clock.overhead_ns", self.md)
        self.assertIn("| likwid | baseline | ok | 23 |  |", self.app)
        self.assertIn("[commands.txt](commands.txt)", self.md)
        # the tools' jobs: in the appendix, not in report.md
        self.assertIn("likwid-bench peakflops_avx512_fma", self.app)
        self.assertNotIn("likwid-bench peakflops_avx512_fma", self.md)

    def test_disk_best_engine(self):
        sec = self.md[self.md.index("\n## Disk\n"):self.md.index("\n## Network\n")]
        self.assertEqual(sec.count("\n#### "), 3)  # one table per test: throughput
        self.assertIn("\n| 1 MiB | 2389 ± 195.5 (psync) | 2614 ± 220.9 (psync) |", sec)
        self.assertIn("\n| 4 KiB | 235.9 ± 159.6 (uring-qd32) | 684.7 ± 121.2 (uring-qd32) |", sec)
        self.assertNotIn("IOPS", sec.split("![")[0])  # IOPS and latency tables: the appendix


class FullSize(unittest.TestCase):
    """A result set the size of the full protocol, with 15 paired jobs of long command lines."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.out = fixture_copy(cls.tmp)
        for name, rows in full_rows().items():
            with open(os.path.join(cls.out, "raw", name), "w", encoding="utf-8") as f:
                json.dump({"context": {}, "results": rows}, f)
        write_pairs(cls.out)
        cls.res, _ = finish(cls.out, draw=False)
        cls.md = read(os.path.join(cls.out, "report.md"))
        cls.app = read(os.path.join(cls.out, "report-appendix.md"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_synthetic_set_is_full_size(self):
        # the old layout's size (about 134 KB for the full protocol) is what the bound is against
        self.assertGreater(len(self.res.merged.rows()), 1500)
        self.assertGreater(len(self.app), 150_000)

    def test_report_under_bound(self):
        self.assertLess(len(self.md.encode("utf-8")), FULL_MAX_BYTES)

    def test_summary_fits_one_page(self):
        s = summary_of(self.md)
        self.assertLessEqual(len(s), SUMMARY_MAX_LINES, "\n".join(s))

    def test_paired_verdicts_short_jobs_commands_in_appendix(self):
        s = "\n".join(summary_of(self.md))
        # five pairs: the t interval of their mean log ratio (pairs_settle), here all 1.30
        self.assertIn("| 1.30 [1.30-1.30] | fio | seq_read psync 1 MiB 2t | 130.0 MB/s | 100.0 MB/s | fio's pages "
                      "are 4 KiB", s)
        self.assertIn("| 1.30 [1.30-1.30] | fio | seq_read psync 1 MiB 1t | 130.0 MB/s | 100.0 MB/s | unexplained |", s)
        self.assertNotIn("--buffer-dir", self.md)
        self.assertIn(f"`{LONG_OURS} #0`", self.app)
        self.assertIn(f"`{LONG_TOOL} #14`", self.app)
        # (five equal ratios outside the band: settled, not wide)
        self.assertIn("| 1.30 [1.30-1.30] | fio-3.33 | seq_read psync 1 MiB 1t | 130.0 MB/s | 100.0 MB/s | 5 |\n",
                      self.md)
        self.assertEqual(self.md.count("fio's pages are 4 KiB"), 10)  # once each, in the summary

    def test_disk_one_table_per_test(self):
        sec = self.md[self.md.index("\n## Disk\n"):self.md.index("\n## Network\n")]
        self.assertEqual(sec.count("\n#### "), 6)
        self.assertEqual(sec.count("\n| 8 MiB | "), 6)
        self.assertIn("| Block size | 1 thread | 2 threads | 4 threads | 8 threads | Notes |", sec)

    def test_latency_sweep_thinned_in_report_whole_in_appendix(self):
        sec = self.md[self.md.index("#### latency: latency (ns)"):]
        sec = sec[:sec.index("\n\n", sec.index("| ---"))]
        self.assertIn("| 1 GiB | ", sec)
        self.assertNotIn("| 4.8 KiB | ", sec)  # 2^12.25: only powers of two here
        self.assertEqual(self.app.count("| chase-4k | 1 | "), 73)


class PairVerdicts(unittest.TestCase):
    """The summary's ratio cell and verdict from pairs.py's records (issue 25)."""

    REC = {"tool": "iperf3", "tool_version": "3.12", "suite": "network", "test": "udp_throughput",
           "variant": "udp", "threads": 1, "block_bytes": 1472, "metric": "throughput", "unit": "Gbit/s",
           "kind": "like_for_like", "ours_median": 2.0, "tool_median": 1.0, "ratio_min": 1.9,
           "ratio_max": 2.1, "cause": "", "flags": ""}

    def verdict(self, **kw):
        (v,) = report_refs.pair_verdicts([dict(self.REC, **kw)])
        return v

    def test_one_pair_says_so(self):
        # issue 41: one round is shown, not judged, in band or out of it (--quick put "7 of 14
        # reference ratios outside 0.90-1.10" on page 1 from single rounds on a noisy host)
        for ratio in (1.03, 0.54):
            v = self.verdict(ratio_median=ratio, ratio_min=ratio, ratio_max=ratio, n_pairs=1)
            self.assertEqual(v["ratio_txt"], f"{ratio:.2f} (1 pair)")
            self.assertEqual(v["verdict"], "one round: not judged")
            self.assertFalse(v["unexplained"])
            self.assertTrue(v["single"])
        self.assertEqual(report_refs.judged_notes([v, self.verdict(ratio_median=1.0, n_pairs=6, ratio_ci_low=0.98,
                                                                   ratio_ci_high=1.02)]),
                         ["", "1 of 2 ratios come from one paired round each: shown, not judged (one round on a "
                              "shared host says little; the full protocol runs 6 or more)."])
        # a measured cause stands beside one round (our best configuration's)
        self.assertEqual(self.verdict(ratio_median=1.47, n_pairs=1, cause="huge pages")["verdict"], "huge pages")

    def test_alarm_only_when_the_interval_excludes_the_band(self):
        # the full run's fio seq_read: 0.80 [0.72-0.87]: every value of the interval outside
        v = self.verdict(ratio_median=0.80, n_pairs=6, ratio_ci_low=0.72, ratio_ci_high=0.87)
        self.assertEqual((v["verdict"], v["unexplained"]), ("unexplained", True))
        # fio seq_write 0.88 [0.78-1.03]: the interval reaches into the band
        v = self.verdict(ratio_median=0.88, n_pairs=6, ratio_ci_low=0.78, ratio_ci_high=1.03)
        self.assertEqual((v["verdict"], v["unexplained"], v["undecided"]),
                         ("not decided: its interval 0.78-1.03 reaches 0.90-1.10", False, True))
        # fewer than 6 rounds: no 95% interval, the rounds' range stands for it
        self.assertTrue(self.verdict(ratio_median=1.3, n_pairs=3, ratio_min=1.2, ratio_max=1.4)["unexplained"])
        self.assertFalse(self.verdict(ratio_median=1.3, n_pairs=3, ratio_min=1.05, ratio_max=1.4)["unexplained"])

    def test_library_gemm_is_not_the_same_job(self):
        # the Zen 5 run's oneDNN INT8: 1.17 [1.11-1.58], each side against the row's peak
        rec = dict(self.REC, tool="oneDNN", suite="cpu", test="iops", variant="avx512_int8_dot", threads=2,
                   block_bytes=None, metric="iops_int", unit="GIOPS", ours_median=1707.5, tool_median=1465.4,
                   ratio_median=1.17, n_pairs=6, ratio_ci_low=1.11, ratio_ci_high=1.58)
        row = {k: rec[k] for k in schema.KEY}
        (v,) = report_refs.pair_verdicts([rec], [dict(row, theoretical=1795.7)])
        self.assertFalse(v["unexplained"])
        self.assertEqual(v["verdict"], "not the same job: our peak kernel keeps its operands in registers, oneDNN's "
                                       "GEMM moves them through the caches and packs them: ours 0.95 of the row's "
                                       "peak (1796 GIOPS), oneDNN's 0.82")
        # without the row's peak: the reason, no shares
        (v,) = report_refs.pair_verdicts([rec])
        self.assertTrue(v["verdict"].endswith("packs them"))

    def test_interval_and_wide(self):
        v = self.verdict(ratio_median=1.0, n_pairs=8, ratio_ci_low=0.9, ratio_ci_high=1.12, flags="pairs_wide")
        self.assertEqual(v["ratio_txt"], "1.00 [0.90-1.12, wide]")
        self.assertIn("(wide)", v["pairs"])

    def test_trace_difference_is_not_like_for_like(self):
        v = self.verdict(ratio_median=2.0, n_pairs=6, flags="trace_differs",
                         cause="receive: ours recvmmsg, 1.45 messages a call; iperf3 read, 1 a call")
        self.assertTrue(v["verdict"].startswith("not the same job: receive: ours recvmmsg"))
        self.assertFalse(v["unexplained"])
        self.assertTrue(self.verdict(ratio_median=2.0, n_pairs=6)["unexplained"])


class Pieces(unittest.TestCase):
    def test_ratio_text(self):
        # two decimals, but never one that puts an outside ratio on the band's edge
        self.assertEqual([report_refs.ratio_txt(x) for x in (0.8964, 0.9, 1.26, None)], ["0.896", "0.90", "1.26", "–"])

    def test_short_job(self):
        key = {"suite": "network", "test": "tcp_throughput", "variant": "tcp", "threads": 2, "block_bytes": 65536,
               "metric": "throughput", "unit": "Gbit/s"}
        self.assertEqual(report_refs.short_job(dict(key, kind="best")), "tcp_throughput 64 KiB 2t (our best)")
        self.assertEqual(report_refs.short_job(dict(key, test="rand_read", variant="psync", block_bytes=4096,
                                                    metric="iops")), "rand_read psync 4 KiB 2t iops")

    def test_cluster_headlines(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(report_cluster.headlines(d), [])
            rows = [{"test": "net_matrix", "variant": "tcp", "metric": "throughput", "unit": "Gbit/s",
                     "host": h, "peer": p, "median": v, "flags": ""}
                    for h, p, v in (("a", "b", 9.0), ("b", "a", 9.4), ("a", "c", 2.5), ("c", "a", 9.2))]
            with open(os.path.join(d, "cluster-net_matrix.json"), "w", encoding="utf-8") as f:
                json.dump({"context": {"nodes": [{"host": "a"}, {"host": "b"}, {"host": "c"}]}, "results": rows}, f)
            self.assertEqual(report_cluster.headlines(d),
                             [("TCP throughput, median link", "9.1 Gbit/s", "4 links"),
                              ("TCP throughput, slowest link", "2.5 Gbit/s", "a -> c")])


class FailedStep(unittest.TestCase):
    def test_said_in_the_summary(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = fixture_copy(tmp)
            path = os.path.join(out, "status.tsv")
            text = read(path).replace("diskbench\tdisk\tok\t9\t", "diskbench\tdisk\tfailed\t9\texit 1")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            finish(out, draw=False)
            s = "\n".join(summary_of(read(os.path.join(out, "report.md"))))
            self.assertIn("- Steps that did not run or failed: diskbench (failed)", s)


class Mode(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def commands(self, *lines):
        with open(os.path.join(self.tmp, "commands.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    def test_header_line_first(self):
        self.commands("# peakbench run_all.sh x", "# mode: quick", "baseline-fio: scripts/baseline/fio.sh --mode full")
        self.assertEqual(report_mode.run_mode(self.tmp), "quick")

    def test_script_mode(self):
        self.commands("# peakbench run_all.sh x", "baseline-fio: scripts/baseline/fio.sh --mode quick --threads 1,2")
        self.assertEqual(report_mode.run_mode(self.tmp), "quick")

    def test_second_pass_is_full(self):
        self.commands("cpu-cpubench: cpubench --reps 2", "cpu-cpubench.pass2: cpubench --reps 1")
        self.assertEqual(report_mode.run_mode(self.tmp), "full")

    def test_unknown(self):
        self.assertEqual(report_mode.run_mode(self.tmp), "")
        self.commands("cpu-cpubench: cpubench --threads 1,2")  # --isa missing: no plan has it
        self.assertEqual(report_mode.run_mode(self.tmp), "")

    def test_no_baselines_run_found_by_its_sizes(self):
        # no --mode (no reference tool ran), no second pass: the plan whose sizes the run has
        for mode in ("quick", "tiny"):
            planned = report_mode.full_plan(self.tmp, mode)
            self.assertIn("disk-diskbench", planned)
            self.commands(*[f"{name}: {' '.join(argv)}" for name, argv in planned.items()
                            if name in ("cpu-linpack", "disk-diskbench", "memory-membench")])
            self.assertEqual(report_mode.run_mode(self.tmp), mode)

    def test_plan_json_first(self):
        self.commands("baseline-fio: scripts/baseline/fio.sh --mode tiny")
        with open(os.path.join(self.tmp, "plan.json"), "w", encoding="utf-8") as f:
            json.dump({"mode": "quick", "shortened": ["threads 1,2 (full: 1,2,4,8)", "one pass"]}, f)
        self.assertEqual(report_mode.run_mode(self.tmp), "quick")
        self.assertEqual(report_mode.shortened(self.tmp, "quick"), ["- threads 1,2 (full: 1,2,4,8); one pass"])

    def test_quick_shortened_against_the_plan(self):
        # a folder without plan.json: the run's commands against the full plan's
        membench = report_mode.full_plan(self.tmp, "quick")["memory-membench"]
        self.commands("# mode: quick", "memory-membench: " + " ".join(membench))
        lines = report_mode.shortened(self.tmp, "quick")
        self.assertIn("threads 1,2 (full: 1,2,4,8)", lines[0])
        mem = [ln for ln in lines if ln.startswith("- memory: membench --test seq_rw,rand_rw,latency,stream "
                                                   "--size 256MiB ")]
        self.assertEqual(len(mem), 1, lines)
        self.assertIn("(full: --test all --size 1GiB ", mem[0])
        self.assertEqual(report_mode.shortened(self.tmp, "full"), [])


if __name__ == "__main__":
    unittest.main()
