"""hpcc across the cluster's nodes (docs/cluster.md, "hpcc and HPL across nodes"): the
nodes' own peaks, hpccinf.txt sized from them, and hpccoutf.txt read into reference rows.

scripts/cluster_run.sh runs, one MPI rank per node:
  mpirun --tag-output ... peakinfo --format json   -> every node's peaks and memory
  python3 -m peakresults.cluster_hpcc nodes TAGGED --hostfile H --out NODES.json
  python3 -m peakresults.cluster_hpcc input NODES.json --mode M [--threads T] > hpccinf.txt
  mpirun ... hpcc                                  -> hpccoutf.txt
  python3 -m peakresults.cluster_hpcc parse hpccoutf.txt --nodes NODES.json --threads T --out FILE
  python3 -m peakresults.cluster_hpcc skip --reason WHY --out FILE   (hpcc absent or failed)

Rows (a reference tool's document, docs/results-schema.md, "Reference tools' rows"), keyed
by the clusterbench row each is the reference for (suite cluster, variant mpi, one thread):
  b_eff ping-pong latency (8-byte messages, half the round trip, average over the pairs
    hpcc picks; min and max beside) -> mpi_p2p_latency at 8 bytes, us
  b_eff ping-pong bandwidth (2,000,000-byte messages) -> mpi_p2p_bw at 2 MiB, MB/s
    (hpcc's GB = 10^9 B, ours MB = 10^6 B; the nearest of our powers of two: config says so)
  natural and random ring latency and bandwidth (per process) -> test hpcc_ring_natural and
    hpcc_ring_random (no row of ours: shown beside ours, not paired)
  HPL -> test hpl, variant hpcc, host all: GFLOPS with the sum of the nodes' FP64 peaks as
    its theoretical figure and its efficiency (the cluster's HPL: linpack is single-node).
"""
import argparse
import json
import math
import os
import re
import sys

from ..common import row
from . import PAIR_N, write_input

NB = 192
MEM_FRAC = 0.8  # hpcc's advice: the matrix in about 80% of the nodes' memory
_TAG = re.compile(r"\[\d+,(\d+)\]<(stdout|stderr|stddiag)>:")


def grid(nprocs: int) -> tuple:
    """(P, Q): P x Q = nprocs, P the largest divisor not above its square root (HPL runs
    best on a grid as square as it gets, P <= Q)."""
    p = max(d for d in range(1, int(math.isqrt(nprocs)) + 1) if nprocs % d == 0)
    return p, nprocs // p


def hpl_n(mode: str, mem_bytes: list, nb: int = NB) -> int:
    """HPL's order: the matrix (8 N^2 bytes) in MEM_FRAC of the nodes' memory (the smallest
    node's times their count: HPL spreads it evenly), a multiple of NB; --quick and --tiny
    scale the single-node sizes (adapters/hpcc.PAIR_N) by the square root of the node count
    (the same matrix per node), never above the memory's."""
    nodes = max(len(mem_bytes), 1)
    known = [m for m in mem_bytes if m]
    by_mem = int(math.sqrt(MEM_FRAC * min(known) * nodes / 8)) if known else 0
    if mode == "full" and by_mem:
        n = by_mem
    else:
        n = int(PAIR_N[mode] * math.sqrt(nodes))
        n = min(n, by_mem) if by_mem else n
    return max(nb, n // nb * nb)


def hpccinf(n: int, nb: int, p: int, q: int) -> str:
    """hpccinf.txt for a P x Q grid (adapters/hpcc.write_input's, whose grid is 1 x 1)."""
    text = write_input(n, nb)
    text, k = re.subn(r"^1(\s+)Ps\n1(\s+)Qs$", f"{p}\\1Ps\n{q}\\2Qs", text, flags=re.M)
    if k != 1:
        raise ValueError("hpccinf.txt's grid lines not found")
    return text


def node_of_peakinfo(doc: dict) -> dict:
    """A node's FP64 peak (the widest of peakinfo's cpu peak *_dp rows at its thread count,
    GFLOPS, None when unknown), memory and CPUs from its peakinfo document."""
    ctx = doc.get("context") or {}
    dp = [r.get("theoretical") for r in doc.get("results") or []
          if r.get("suite") == "cpu" and r.get("test") == "peak" and str(r.get("variant", "")).endswith("_dp")]
    dp = [v for v in dp if isinstance(v, (int, float)) and v > 0]
    return {"fp64_gflops": max(dp) if dp else None,
            "mem_bytes": ctx.get("mem.total_bytes"),
            "cpus": ctx.get("cpu.logical"),
            "cpu_model": ctx.get("cpu.model")}


def split_tagged(text: str) -> dict:
    """mpirun --tag-output's stdout as {rank: its text}. OpenMPI tags each chunk it forwards
    and each line in it, so a chunk that ends mid-line leaves the line's rest under a tag of
    its own, after the line's start (or after another rank's chunk): the text between one
    tag and the next is that rank's, in order."""
    parts = _TAG.split(text)
    out: dict = {}
    for i in range(1, len(parts) - 2, 3):
        if parts[i + 1] == "stdout":
            out.setdefault(int(parts[i]), []).append(parts[i + 2])
    return {k: "".join(v) for k, v in out.items()}


def hostfile_names(path: str) -> list:
    names = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and not w[0].startswith("#"):
                names.append(w[0])
    return names


def nodes_from_tagged(text: str, names: list) -> list:
    """One entry per rank (the hostfile's i-th host is rank i under --map-by node)."""
    per = split_tagged(text)
    nodes = []
    for rank in range(len(names)):
        try:
            entry = node_of_peakinfo(json.loads(per.get(rank, "")))
            entry["problem"] = "" if entry["fp64_gflops"] else "peakinfo gave no FP64 peak"
        except ValueError:
            entry = {"fp64_gflops": None, "mem_bytes": None, "cpus": None, "cpu_model": None,
                     "problem": "no peakinfo output from this node"}
        entry["host"] = names[rank]
        nodes.append(entry)
    return nodes


def _summary(text: str) -> dict:
    m = re.search(r"^Begin of Summary section\.?\s*$(.*?)^End of Summary section", text, re.M | re.S)
    if not m:
        raise ValueError("no summary section: not hpcc's output")
    return dict(ln.split("=", 1) for ln in m.group(1).splitlines() if "=" in ln)


def _num(kv: dict, key: str):
    try:
        v = float(kv[key])
    except (KeyError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 else None


def hpl_row(kv: dict, version: str, nodes: list, threads: int) -> dict | None:
    """The cluster's HPL: GFLOPS against the sum of the nodes' FP64 peaks (unknown when a
    node's is)."""
    tf = _num(kv, "HPL_Tflops")
    if tf is None:
        return None
    procs = int(float(kv.get("CommWorldProcs", "1")))
    peaks = [n.get("fp64_gflops") for n in nodes]
    total = sum(peaks) if peaks and all(peaks) else None
    unknown = [n["host"] for n in nodes if not n.get("fp64_gflops")]
    r = row("hpcc", version, ("cluster", "hpl", "hpcc", procs * threads, None, "flops", "GFLOPS"), tf * 1000,
            job=f"hpcc HPL N={kv.get('HPL_N')} NB={kv.get('HPL_NB')} P={kv.get('HPL_nprow')} "
            f"Q={kv.get('HPL_npcol')} over {procs} processes, OPENBLAS_NUM_THREADS={threads}",
            config=f"N={kv.get('HPL_N')};NB={kv.get('HPL_NB')};P={kv.get('HPL_nprow')};"
            f"Q={kv.get('HPL_npcol')};blas_threads={threads};nodes={len(nodes)}",
            flags="" if total else "peak_unknown=" + ",".join(unknown or ["no node"]))
    r["host"] = "all"
    r["peer"] = ""
    r["theoretical"] = total
    r["efficiency"] = tf * 1000 / total if total else None
    return r


# (summary key stem, our test, message bytes, metric, unit, scale to the unit, words)
B_EFF = (
    ("PingPongLatency_usec", "mpi_p2p_latency", 8, "latency", "us", 1.0, "b_eff ping-pong latency"),
    ("PingPongBandwidth_GBytes", "mpi_p2p_bw", 2097152, "throughput", "MB/s", 1000.0,
     "b_eff ping-pong bandwidth"),
)
RINGS = (("NaturallyOrdered", "hpcc_ring_natural"), ("RandomlyOrdered", "hpcc_ring_random"))


def b_eff_rows(kv: dict, version: str) -> list:
    rows = []
    procs = kv.get("CommWorldProcs", "?")
    for stem, test, nbytes, metric, unit, scale, words in B_EFF:
        avg = _num(kv, "Avg" + stem)
        if avg is None:
            continue
        lo, hi = _num(kv, "Min" + stem), _num(kv, "Max" + stem)
        msg = "8-byte" if nbytes == 8 else "2,000,000-byte"
        rows.append(row("hpcc", version, ("cluster", test, "mpi", 1, nbytes, metric, unit), avg * scale,
                        job=f"hpcc {words}: {msg} messages, average over its pairs of {procs} processes",
                        config=f"message_bytes={8 if nbytes == 8 else 2000000}",
                        min=lo * scale if lo else None, max=hi * scale if hi else None))
    for stem, test in RINGS:
        for kind, nbytes, metric, unit, scale in (("Latency_usec", 8, "latency", "us", 1.0),
                                                  ("Bandwidth_GBytes", 2000000, "throughput", "MB/s", 1000.0)):
            v = _num(kv, stem + "Ring" + kind)
            if v is not None:
                rows.append(row("hpcc", version, ("cluster", test, "mpi", 1, nbytes, metric, unit), v * scale,
                                job=f"hpcc b_eff {stem.lower().replace('ordered', '')} ring, per process, "
                                f"{procs} processes", config=f"message_bytes={nbytes}"))
    return rows


def parse(path: str, nodes: list, threads: int) -> tuple:
    """(version, rows) of a cluster hpcc run's hpccoutf.txt."""
    with open(path, errors="replace") as f:
        kv = _summary(f.read())
    version = "hpcc " + ".".join(kv.get(k, "?") for k in ("VersionMajor", "VersionMinor", "VersionMicro"))
    rows = b_eff_rows(kv, version)
    hpl = hpl_row(kv, version, nodes, threads)
    if hpl:
        rows.append(hpl)
    if not rows:
        raise ValueError("no b_eff or HPL figure in the summary")
    return version, rows


def _write(path: str, doc: dict) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"cluster_hpcc: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv: list) -> int:
    from ...core.schema import BASELINE_SCHEMA
    p = _Parser(prog="python3 -m peakresults.cluster_hpcc")
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("nodes")
    a.add_argument("tagged")
    a.add_argument("--hostfile", required=True)
    a.add_argument("--out", required=True)
    b = sub.add_parser("input")
    b.add_argument("nodes")
    b.add_argument("--mode", choices=("full", "quick", "tiny"), default="quick")
    c = sub.add_parser("parse")
    c.add_argument("hpccoutf")
    c.add_argument("--nodes", required=True)
    c.add_argument("--threads", type=int, default=1)
    c.add_argument("--out", required=True)
    d = sub.add_parser("skip")
    d.add_argument("--reason", required=True)
    d.add_argument("--out", required=True)
    o = p.parse_args(argv)
    if o.cmd == "skip":
        _write(o.out, {"schema": BASELINE_SCHEMA, "tool": "hpcc", "tool_version": "", "rows": [],
                       "skipped": [{"test": t, "reason": o.reason} for t in ("b_eff", "hpl")]})
        return 0
    try:
        if o.cmd == "nodes":
            with open(o.tagged, errors="replace") as f:
                nodes = nodes_from_tagged(f.read(), hostfile_names(o.hostfile))
            _write(o.out, {"nodes": nodes})
            return 0
        with open(o.nodes) as f:
            nodes = json.load(f)["nodes"]
        if o.cmd == "input":
            n = hpl_n(o.mode, [x.get("mem_bytes") for x in nodes])
            sys.stdout.write(hpccinf(n, NB, *grid(len(nodes))))
            return 0
        version, rows = parse(o.hpccoutf, nodes, o.threads)
    except (OSError, ValueError, KeyError) as e:
        print(f"cluster_hpcc: {e}", file=sys.stderr)
        return 1
    _write(o.out, {"schema": BASELINE_SCHEMA, "tool": "hpcc", "tool_version": version, "rows": rows,
                   "skipped": [], "nodes": nodes})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
