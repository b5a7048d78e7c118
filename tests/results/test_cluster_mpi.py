"""The cluster's MPI part of the results program: hpcc across nodes (cluster_hpcc: grid,
N from memory, b_eff and HPL rows with the sum of the nodes' peaks), OSU and IMB outputs
(cluster_osu), and the report's tables, charts' data, transport line and pairing
(report_cluster_mpi) on fixture rows named as clusterbench's mpi_p2p and mpi_coll name them."""
import csv
import json
import os
import shutil
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(REPO, "tests", "fixtures", "cluster")
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.adapters import osu as cluster_osu  # noqa: E402
from peakresults.adapters.hpcc import cluster as cluster_hpcc  # noqa: E402
from peakresults.charts.charts import Charts  # noqa: E402
from peakresults.core import schema  # noqa: E402
from peakresults.report import report_cluster, report_cluster_mpi  # noqa: E402

NODES = [{"host": "node1", "fp64_gflops": 118.2, "mem_bytes": 25e9, "cpus": 2},
         {"host": "node2", "fp64_gflops": 100.0, "mem_bytes": 16e9, "cpus": 2}]


def fixture_rows(name: str) -> list:
    """A fixture CSV's rows, typed as clusterbench's JSON has them."""
    out = []
    with open(os.path.join(FIX, name), newline="") as f:
        for r in csv.DictReader(f):
            row = {c: None for c in schema.COLUMNS}
            row.update(r)
            for k in ("threads", "block_bytes"):
                row[k] = int(r[k]) if r[k] else None
            for k in ("mean", "median", "p50", "p99"):
                row[k] = float(r[k])
            out.append(row)
    return out


def write_run(d: str, transport: str = "tcp over veth eth1", warning: str = "") -> None:
    raw = os.path.join(d, "raw")
    os.makedirs(raw, exist_ok=True)
    nodes = [{"host": "node1", "mpi.transport": transport}, {"host": "node2", "mpi.transport": transport}]
    ctx = {"mpi.transport": transport, "mpi.pml": "ob1", "mpi.btl": "self,tcp", "nodes": nodes}
    if warning:
        ctx["warnings"] = warning
    for test in ("mpi_p2p", "mpi_coll"):
        with open(os.path.join(raw, f"cluster-{test}.json"), "w") as f:
            json.dump({"context": ctx, "results": fixture_rows(f"cluster-{test}.csv")}, f)


class Sizing(unittest.TestCase):
    def test_grid_is_as_square_as_the_count_allows(self):
        self.assertEqual([cluster_hpcc.grid(n) for n in (1, 2, 4, 6, 7, 12, 16)],
                         [(1, 1), (1, 2), (2, 2), (2, 3), (1, 7), (3, 4), (4, 4)])

    def test_n_from_the_smallest_node_and_scaled_by_mode(self):
        n = cluster_hpcc.hpl_n("full", [32e9, 16e9])
        self.assertEqual(n % cluster_hpcc.NB, 0)
        self.assertLessEqual(8 * n * n, 0.8 * 16e9 * 2)  # the matrix fits 80% of 2 x the smallest
        self.assertGreater(8 * (n + cluster_hpcc.NB) ** 2, 0.8 * 16e9 * 2)
        self.assertLess(cluster_hpcc.hpl_n("quick", [32e9, 16e9]), n)
        # nodes that small cap even the tiny size, at one block at least
        self.assertEqual(cluster_hpcc.hpl_n("tiny", [1e5, 1e5]), cluster_hpcc.NB)

    def test_input_has_the_grid(self):
        text = cluster_hpcc.hpccinf(2880, 192, 2, 3)
        self.assertIn("2            Ps\n3            Qs", text)
        self.assertIn("2880 ", text)


class Hpcc(unittest.TestCase):
    def setUp(self):
        self.version, self.rows = cluster_hpcc.parse(os.path.join(FIX, "hpccoutf-2procs.txt"), NODES, 1)
        self.by = {(r["test"], r["block_bytes"], r["metric"]): r for r in self.rows}

    def test_b_eff_keyed_to_ours(self):
        self.assertEqual(self.version, "hpcc 1.5.0")
        lat = self.by[("mpi_p2p_latency", 8, "latency")]
        self.assertAlmostEqual(lat["mean"], 0.132575)
        self.assertAlmostEqual(lat["min"], 0.129188)
        self.assertEqual((lat["suite"], lat["variant"], lat["unit"]), ("cluster", "mpi", "us"))
        bw = self.by[("mpi_p2p_bw", 2097152, "throughput")]
        self.assertAlmostEqual(bw["mean"], 16017.9)  # GB/s of 10^9 B -> MB/s of 10^6 B
        self.assertIn("message_bytes=2000000", bw["config"])
        self.assertIn(("hpcc_ring_random", 8, "latency"), self.by)
        self.assertIn(("hpcc_ring_natural", 2000000, "throughput"), self.by)

    def test_hpl_against_the_sum_of_the_nodes_peaks(self):
        hpl = self.by[("hpl", None, "flops")]
        self.assertAlmostEqual(hpl["mean"], 27.3551)
        self.assertAlmostEqual(hpl["theoretical"], 218.2)
        self.assertAlmostEqual(hpl["efficiency"], 27.3551 / 218.2)
        self.assertEqual(hpl["host"], "all")

    def test_a_node_without_peak_leaves_it_unknown(self):
        nodes = [dict(NODES[0]), dict(NODES[1], fp64_gflops=None)]
        _, rows = cluster_hpcc.parse(os.path.join(FIX, "hpccoutf-2procs.txt"), nodes, 1)
        hpl = next(r for r in rows if r["test"] == "hpl")
        self.assertIsNone(hpl["theoretical"])
        self.assertIsNone(hpl["efficiency"])
        self.assertEqual(hpl["flags"], "peak_unknown=node2")

    def test_tagged_peakinfo_split_by_rank(self):
        doc = {"context": {"mem.total_bytes": 8e9, "cpu.logical": 4},
               "results": [{"suite": "cpu", "test": "peak", "variant": "avx2_dp", "theoretical": 50.0},
                           {"suite": "cpu", "test": "peak", "variant": "avx512_dp", "theoretical": 90.0},
                           {"suite": "cpu", "test": "peak", "variant": "avx512_sp", "theoretical": 180.0}]}
        text = "\n".join(f"[1,1]<stdout>:{ln}" for ln in json.dumps(doc, indent=1).splitlines())
        # a chunk that ended mid-line: the line's rest comes under its own tag, after another
        # rank's chunk (as mpirun forwarded peakinfo's JSON on the namespace nodes)
        cut = text.index('"mem.total_bytes"') + 5
        text = text[:cut] + "[1,0]<stderr>:noise\n[1,1]<stdout>:" + text[cut:]
        nodes = cluster_hpcc.nodes_from_tagged(text + "\n", ["a", "b"])
        self.assertEqual(nodes[1]["fp64_gflops"], 90.0)
        self.assertEqual(nodes[1]["mem_bytes"], 8e9)
        self.assertIsNone(nodes[0]["fp64_gflops"])
        self.assertIn("no peakinfo output", nodes[0]["problem"])

    def test_not_hpcc_output(self):
        with self.assertRaises(ValueError):
            cluster_hpcc.parse(os.path.join(FIX, "osu_bw-5.8.txt"), NODES, 1)


class Osu(unittest.TestCase):
    def test_each_tool_to_its_test(self):
        want = {"osu_latency-5.8.txt": ("mpi_p2p_latency", "us", 8, 27.62),
                "osu_latency-7.3.txt": ("mpi_p2p_latency", "us", 8, 27.40),
                "osu_bw-5.8.txt": ("mpi_p2p_bw", "MB/s", 4194304, 1143.02),
                "osu_bibw-5.8.txt": ("mpi_p2p_bibw", "MB/s", 4194304, 2105.31),
                "osu_mbw_mr-5.8.txt": ("mpi_p2p_msgrate", "Mmsg/s", 8, 0.2512206),
                "imb-pingpong-2021.3.txt": ("mpi_p2p_latency", "us", 8, 27.58)}
        for name, (test, unit, size, value) in want.items():
            _, rows = cluster_osu.parse(os.path.join(FIX, name))
            r = next(r for r in rows if r["block_bytes"] == size)
            self.assertEqual((r["test"], r["unit"], r["variant"]), (test, unit, "mpi"), name)
            self.assertAlmostEqual(r["mean"], value, places=6, msg=name)
            self.assertNotIn(0, [x["block_bytes"] for x in rows], name)  # size 0 has no row of ours

    def test_not_a_tool_output(self):
        with self.assertRaises(ValueError):
            cluster_osu.parse(os.path.join(FIX, "hpccoutf-2procs.txt"))


class Report(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.d)

    def refs(self):
        _, rows = cluster_hpcc.parse(os.path.join(FIX, "hpccoutf-2procs.txt"), NODES, 1)
        with open(os.path.join(self.d, "raw", "cluster-hpcc.json"), "w") as f:
            json.dump({"schema": schema.BASELINE_SCHEMA, "tool": "hpcc", "rows": rows, "nodes": NODES,
                       "skipped": []}, f)
        osu = [os.path.join(FIX, n) for n in ("osu_latency-5.8.txt", "osu_bw-5.8.txt")]
        self.assertEqual(cluster_osu.main(["--out", os.path.join(self.d, "raw", "cluster-osu.json")] + osu), 0)

    def section(self) -> str:
        return "\n".join(report_cluster.section(self.d, Charts(self.d, False)))

    def test_tables_per_size(self):
        write_run(self.d)
        md = self.section()
        self.assertIn("## Cluster", md)
        self.assertIn("MPI point-to-point (2 pair(s)", md)
        line = next(ln for ln in md.splitlines() if ln.startswith("| 8B |"))
        # p50 median over the pairs, p99 the worst pair's, then bw, bibw, msgrate
        self.assertEqual(len(line.split("|")), 8, line)
        self.assertIn("| 27 |", line)
        self.assertIn("| 4MiB |", md)
        self.assertIn("MPI collectives", md)
        self.assertIn("| size | allgather | allreduce | alltoall | barrier | bcast |", md)

    def test_transport_line_and_fallback(self):
        write_run(self.d, "tcp over ena eth0", "node1: MPI fell back to TCP (tcp over ena eth0) although 1 RDMA device")
        md = self.section()
        self.assertIn("Transport: tcp over ena eth0 (pml ob1, btl self,tcp", md)
        self.assertIn("Warning: node1: MPI fell back to TCP", md)

    def test_beside_the_reference_tools(self):
        write_run(self.d)
        self.refs()
        md = self.section()
        beside = [ln for ln in md.splitlines() if ln.startswith("| latency | 8B |")]
        tools = {ln.split("|")[4].strip() for ln in beside}
        self.assertEqual(tools, {"hpcc", "osu"})
        hp = next(ln for ln in beside if "| hpcc |" in ln)
        self.assertIn("| 27 | hpcc | 0.133 |", hp)  # ours beside b_eff's, in one line
        self.assertIn("| bw | 2MiB | ", md)
        self.assertIn("b_eff rings", md)
        self.assertIn("HPL across the nodes", md)
        self.assertIn("of 218 GFLOPS, the sum of the nodes' FP64 peaks (node1 118, node2 100)", md)

    def test_hpl_in_the_summary(self):
        os.makedirs(os.path.join(self.d, "raw"))
        self.assertEqual(report_cluster.headlines(self.d), [])
        self.refs()
        (label, value, where), = report_cluster.headlines(self.d)
        self.assertEqual(label, "HPL across 2 nodes (hpcc)")
        self.assertEqual(value, "27.4 GFLOPS (12.5% of the nodes' summed peak)")
        self.assertIn("P=1;Q=2", where)

    def test_charts_data(self):
        write_run(self.d)
        self.refs()
        self.section()
        with open(os.path.join(self.d, "charts", "data", "cluster-mpi-latency.dat")) as f:
            head, *data = f.read().splitlines()
        self.assertEqual(head, 'message_bytes "ours p50" "ours p99" "hpcc" "osu"')
        self.assertTrue(data[0].startswith("1 "))
        self.assertTrue(os.path.isfile(os.path.join(self.d, "charts", "data", "cluster-mpi-bandwidth.gp")))

    def test_hpcc_alone_and_skipped(self):
        os.makedirs(os.path.join(self.d, "raw"))
        self.assertEqual(report_cluster_mpi.section(self.d, Charts(self.d, False)), [])
        self.assertEqual(cluster_hpcc.main(["skip", "--reason", "hpcc not installed",
                                            "--out", os.path.join(self.d, "raw", "cluster-hpcc.json")]), 0)
        md = "\n".join(report_cluster_mpi.section(self.d, Charts(self.d, False)))
        self.assertIn("HPL across the nodes: not run (hpcc not installed).", md)


if __name__ == "__main__":
    unittest.main()
