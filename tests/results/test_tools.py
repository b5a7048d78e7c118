"""The reference tools' parsers (each adapter's parse, scripts/peakresults/adapters) on
outputs of each tool recorded in tests/fixtures/baseline: known rows, keyed by the peakbench
row each is the reference for (no ours= in flags), in our units; a file of another tool is
rejected; `adapters TOOL --parse FILE... --out F` writes baseline-<tool>.json. (Each
adapter's job on recorded plans: test_adapters.py.)"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.adapters import fio, hpcc, iozone, iperf3, likwid, sockperf  # noqa: E402
from peakresults.adapters.common import BASELINE_COLUMNS, NotToolOutput  # noqa: E402
from peakresults.core import schema  # noqa: E402

FX = os.path.join(REPO, "tests", "fixtures", "baseline")


def fx(name):
    return os.path.join(FX, name)


def find(rows, **key):
    got = [r for r in rows if all(r.get(k) == v for k, v in key.items())]
    if len(got) != 1:
        raise AssertionError(f"{len(got)} rows with {key}: {[schema.row_key(r) for r in rows]}")
    return got[0]


class Parsers(unittest.TestCase):
    def check_rows(self, rows):
        for r in rows:
            self.assertEqual(set(r), set(BASELINE_COLUMNS))
            self.assertNotIn("ours=", r["flags"] or "")
            self.assertIn(r["suite"], ("cpu", "memory", "disk", "network"))

    def test_fio(self):
        ver, rows = fio.parse(fx("fio.json"), {})
        self.check_rows(rows)
        self.assertEqual(ver, "fio-3.33")
        self.assertEqual(len(rows), 12)
        k = dict(suite="disk", variant="psync", threads=1)
        self.assertAlmostEqual(find(rows, test="seq_read", block_bytes=1048576, metric="throughput", **k)["mean"], 481.947692)
        self.assertAlmostEqual(find(rows, test="seq_write", metric="throughput", **k)["mean"], 1243.490226)
        self.assertAlmostEqual(find(rows, test="rand_read", metric="iops", **k)["mean"], 12230.309073)
        self.assertAlmostEqual(find(rows, test="rand_read", metric="iops", variant="uring-qd32", threads=1)["mean"],
                               46006.993007)
        self.assertAlmostEqual(find(rows, test="seq_read", metric="throughput", variant="psync", threads=2)["mean"],
                               1375.078706)
        lat = find(rows, test="rand_read", metric="latency", **k)
        self.assertEqual(lat["unit"], "us")
        self.assertAlmostEqual(lat["p99"], 280.576)
        self.assertIn("mem=malloc", lat["config"])
        self.assertIn("direct=1", lat["config"])

    def test_iperf3(self):
        rows = []
        for f in ("iperf3_tcp_P1.json", "iperf3_tcp_P2.json", "iperf3_udp_P1.json"):
            rows += iperf3.parse(fx(f), {})[1]
        self.check_rows(rows)
        self.assertAlmostEqual(find(rows, test="tcp_throughput", threads=1)["mean"], 10.62593457, places=6)
        self.assertAlmostEqual(find(rows, test="tcp_throughput", threads=2)["mean"], 12.55923209, places=6)
        self.assertEqual(find(rows, test="tcp_throughput", threads=1)["block_bytes"], 65536)
        udp = find(rows, test="udp_throughput", metric="throughput")
        self.assertAlmostEqual(udp["mean"], 0.2381340947, places=8)
        self.assertEqual((udp["variant"], udp["unit"], udp["block_bytes"]), ("udp", "Gbit/s", 1472))
        self.assertAlmostEqual(find(rows, test="udp_throughput", metric="loss")["mean"], 83.00965981, places=6)
        self.assertNotIn(" -w ", udp["job"])  # the fixture ran with iperf3's default buffers
        # -w (the socket buffers of netbench's UDP sockets) is in the job the row names
        with open(fx("iperf3_udp_P1.json")) as f:
            doc = json.load(f)
        doc["start"]["sock_bufsize"] = 4194304
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(doc, f)
            f.flush()
            udp = find(iperf3.parse(f.name, {})[1], test="udp_throughput", metric="throughput")
        self.assertTrue(udp["job"].endswith(" -w 4194304"), udp["job"])

    def test_sockperf(self):
        _, (half,) = sockperf.parse(fx("sockperf_tcp_halfrtt.txt"), {})
        self.assertAlmostEqual(half["mean"], 22.418)
        self.assertIn("half_rtt_doubled", half["flags"])
        _, (tcp,) = sockperf.parse(fx("sockperf_tcp_rtt.txt"), {})
        _, (udp,) = sockperf.parse(fx("sockperf_udp_rtt.txt"), {"msg": "64"})
        self.check_rows([half, tcp, udp])
        self.assertEqual(schema.row_key(tcp), ("network", "tcp_latency", "tcp", 1, 16, "latency", "us"))
        self.assertAlmostEqual(tcp["mean"], 45.219)
        self.assertAlmostEqual(tcp["p50"], 14.904)
        self.assertEqual(tcp["n"], 12157)
        self.assertEqual(tcp["tool_version"], "sockperf 3.7-no.git")
        self.assertEqual(schema.row_key(udp)[:5], ("network", "udp_latency", "udp", 1, 64))
        self.assertAlmostEqual(udp["mean"], 12.021)

    def test_likwid(self):
        _, (fma,) = likwid.parse(fx("likwid_peakflops_avx512_fma_1.txt"), {})
        _, (scalar,) = likwid.parse(fx("likwid_peakflops_2.txt"), {})
        _, (stream,) = likwid.parse(fx("likwid_stream_mem_avx512_2.txt"), {})
        self.check_rows([fma, scalar, stream])
        self.assertEqual(schema.row_key(fma), ("cpu", "flops", "avx512_dp_fma", 1, None, "flops", "GFLOPS"))
        self.assertAlmostEqual(fma["mean"], 21.50222, places=4)
        self.assertAlmostEqual(scalar["mean"], 1.63227, places=4)
        # non-temporal stores: the reference for membench's -nt variant; three arrays
        self.assertEqual(schema.row_key(stream),
                         ("memory", "stream", "triad-avx512-nt", 2, 333332992, "throughput", "MB/s"))
        self.assertAlmostEqual(stream["mean"], 3429.65)
        _, (named,) = likwid.parse(fx("likwid_stream_mem_avx512_2.txt"), {"block_bytes": "357913856"})
        self.assertEqual(named["block_bytes"], 357913856)
        # copy_mem is STREAM's copy: membench stream's copy row, keyed by membench's array
        with open(fx("likwid_stream_mem_avx512_2.txt")) as f:
            text = f.read().replace("Test: stream_mem_avx512", "Test: copy_mem_avx512")
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as t:
            t.write(text)
            t.flush()
            _, (copy,) = likwid.parse(t.name, {"membench_size": str(1 << 30)})
            _, (bare,) = likwid.parse(t.name, {})
        self.assertEqual(schema.row_key(copy)[:4], ("memory", "stream", "copy-avx512-nt", 2))
        self.assertEqual(copy["block_bytes"], likwid.membench_array_bytes(1 << 30, 2))
        self.assertEqual(bare["block_bytes"], 999998976 // 2)  # likwid's Size over its two arrays

    def test_hpcc(self):
        ver, rows = hpcc.parse(fx("hpcc_hpccoutf.txt"), {"isa": "avx2"})
        self.check_rows(rows)
        hpl = find(rows, test="linpack")
        self.assertEqual(schema.row_key(hpl), ("cpu", "linpack", "dgesv", 1, None, "flops", "GFLOPS"))
        self.assertAlmostEqual(hpl["mean"], 11.1771)
        self.assertIn("N=2000;NB=192", hpl["config"])
        # hpcc's STREAM has no non-temporal stores: membench's variant without -nt
        triad = find(rows, test="stream", variant="triad-avx2")
        # One process: StarSTREAM's table, the first of hpcc's two STREAM calls (the second,
        # SingleSTREAM, inherits the first's times). mean: 3 arrays x 1333333 doubles / the
        # average time (0.0113 s); max: STREAM's best; min: the slowest pass
        self.assertAlmostEqual(triad["mean"], 3 * 8 * 1333333 / 0.0113 / 1e6, places=3)
        self.assertAlmostEqual(triad["max"], 7824.84, places=1)
        self.assertAlmostEqual(triad["min"], 3 * 8 * 1333333 / 0.0167 / 1e6, places=3)
        self.assertEqual(triad["n"], 9)  # 10 passes, the first not timed
        self.assertIn("nt_stores=0", triad["config"])
        self.assertIn("StarSTREAM", triad["job"])
        copy = find(rows, variant="copy-avx2")  # copy moves 2 arrays
        self.assertAlmostEqual(copy["mean"], 2 * 8 * 1333333 / 0.0068 / 1e6, places=3)
        self.assertAlmostEqual(copy["max"], 9208.31, places=1)

    def test_hpcc_stream_second_call(self):
        # More processes: SingleSTREAM, whose average, min and max carry StarSTREAM's (the
        # fixture's Single Triad max 0.0167 is Star's): its best pass only
        with open(fx("hpcc_hpccoutf.txt")) as f:
            text = f.read().replace("CommWorldProcs=1", "CommWorldProcs=2")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "hpccoutf.txt")
            with open(path, "w") as f:
                f.write(text)
            _, rows = hpcc.parse(path, {"isa": "avx2"})
        triad = find(rows, test="stream", variant="triad-avx2")
        self.assertAlmostEqual(triad["mean"], 9139.55, places=1)
        self.assertIn("best_pass_only", triad["flags"])
        self.assertIn("SingleSTREAM", triad["job"])

    def test_hpcc_vector_width(self):
        self.assertEqual(hpcc.isa_of_disassembly("mulpd %xmm8,%xmm15\nmovups %xmm15,(%rsi)"), "sse2")
        self.assertEqual(hpcc.isa_of_disassembly("vmulpd %ymm1,%ymm2,%ymm3\nmulpd %xmm1,%xmm2"), "avx2")
        self.assertEqual(hpcc.isa_of_disassembly("vfmadd231pd %zmm1,%zmm2,%zmm3\n%ymm0"), "avx512")
        isa, how = hpcc.vector_isa("/nonexistent/hpcc")
        self.assertEqual(isa, "sse2")
        self.assertIn("not measured", how)

    def test_hpcc_stream_triad_code(self):
        def block(*insns):
            return "".join(f"  1f{i:03x}:\t{x}\n" for i, x in enumerate(insns)) + \
                "  1f999:\tcall   2440 <MPI_Wtime@plt>\n"
        start = "  1e000:\tcall   2440 <MPI_Wtime@plt>\n"
        ptrans = block("mulpd  %xmm1,%xmm2", "addpd  %xmm2,%xmm3")  # another test's timed code
        copy = block("call   24f0 <memcpy@plt>")
        scale = block("movsd  (%r8),%xmm12", "mulsd  %xmm11,%xmm12", "movsd  %xmm12,(%rdi)")
        add = block("movsd  (%r9),%xmm11", "addsd  (%rcx),%xmm11", "movsd  %xmm11,(%rdx)")
        scalar = block("subsd  0xa0(%rbx),%xmm0", "movsd  (%rcx),%xmm11", "mulsd  %xmm10,%xmm11",
                       "addsd  (%r9),%xmm11", "movsd  %xmm11,(%rdx)")
        # Debian's hpcc: every STREAM loop scalar, though other code is packed
        self.assertEqual(hpcc.stream_triad_isa(start + ptrans + copy + scale + add + scalar), "scalar")
        packed = block("vmovupd (%rcx,%rax),%ymm1", "vfmadd213pd (%r9,%rax),%ymm0,%ymm1")
        self.assertEqual(hpcc.stream_triad_isa(start + ptrans + copy + scale + add + packed), "avx2")
        wide = block("vmulpd (%rcx),%zmm0,%zmm1", "vaddpd (%r9),%zmm1,%zmm1", "vmovupd %zmm1,(%rdx)")
        self.assertEqual(hpcc.stream_triad_isa(start + copy + scale + add + wide), "avx512")
        # no add-only block before it: not STREAM's Triad; no timer at all: nothing found
        self.assertIsNone(hpcc.stream_triad_isa(start + ptrans + scalar))
        self.assertIsNone(hpcc.stream_triad_isa("mulsd %xmm1,%xmm2\naddsd %xmm2,%xmm3"))

    def test_iozone(self):
        _, rows = iozone.parse(fx("iozone_a_pa1.txt"), {})
        self.check_rows(rows)
        self.assertEqual(len(rows), 176)  # 45 rows x 4 mapped columns, less the short row
        w = [r for r in rows if r["test"] == "seq_write" and r["block_bytes"] == 4096 and "file_kb=64;" in r["config"]]
        self.assertAlmostEqual(w[0]["mean"], 689.2523, places=3)
        self.assertIn("cached", w[0]["flags"])
        _, rows = iozone.parse(fx("iozone_s_pa1.txt"), {})
        self.assertAlmostEqual(find(rows, test="rand_read", block_bytes=rows[0]["block_bytes"])["mean"], 3581.90592)
        _, rows = iozone.parse(fx("iozone_synthetic_twoline.txt"), {})
        rw = find(rows, test="rand_write", block_bytes=4096)
        self.assertAlmostEqual(rw["mean"], 40.96)
        self.assertIn("direct=1;fsync", rw["config"])
        self.assertEqual(rw["flags"], "")

    def test_wrong_inputs(self):
        for mod, f in ((likwid, "fio.json"), (hpcc, "fio.json"), (sockperf, "fio.json"), (iozone, "fio.json"),
                       (fio, "hpcc_hpccoutf.txt"), (iperf3, "fio.json")):
            with self.assertRaises(NotToolOutput, msg=mod.__name__):
                mod.parse(fx(f), {})


class CommandLine(unittest.TestCase):
    def run_tools(self, *args):
        """`adapters TOOL --parse ARGS...`"""
        return subprocess.run([sys.executable, os.path.join(REPO, "scripts", "peakresults", "adapters"), args[0],
                               "--parse"] + list(args[1:]), capture_output=True, text=True)

    def test_doc(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "baseline-fio.json")
            r = self.run_tools("fio", fx("fio.json"), "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["schema"], "peakbench-baseline/1")
            self.assertEqual((doc["tool"], doc["tool_version"]), ("fio", "fio-3.33"))
            self.assertEqual(len(doc["rows"]), 12)
            self.assertEqual(doc["skipped"], [])

    def test_set_and_errors(self):
        r = self.run_tools("likwid", fx("likwid_peakflops_2.txt"), "--set", "threads=3")
        self.assertEqual(json.loads(r.stdout.splitlines()[0])["threads"], 3)
        r = self.run_tools("fio", fx("hpcc_hpccoutf.txt"))
        self.assertEqual(r.returncode, 1)
        r = self.run_tools("gpu")
        self.assertEqual(r.returncode, 2)
        r = self.run_tools("fio", fx("fio.json"), "--set", "mean=3")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()
