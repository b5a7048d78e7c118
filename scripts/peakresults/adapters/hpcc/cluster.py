"""hpcc across the cluster's nodes, one MPI rank per node (docs/cluster.md, "hpcc and HPL
across nodes"): the nodes' own peaks, hpccinf.txt sized from them, hpcc under mpirun, and
hpccoutf.txt read into reference rows. The hpcc adapter's cluster part: its one-node part
(__init__.py) gives it the input file, the paired N and the summary's reading.

  python3 scripts/peakresults/adapters hpcc cluster run --hostfile FILE --out DIR
      [--mpirun "ARGS"] [--mode full|quick|tiny] [--build-dir DIR] [--threads T] [--nodes NODES.json]
(scripts/cluster_hpcc.sh launches it, with the same options) runs peakinfo on every node
first (each node's FP64 peak and memory, mpirun --tag-output), then hpcc with HPL's P x Q
from the node count and N from the nodes' memory, its b_eff ping-pong and rings, and HPL's
GFLOPS against the sum of the nodes' peaks. It writes DIR/cluster-nodes.json (every node's
peak, memory, CPUs), DIR/cluster-hpcc.json (reference rows, or a skipped entry with the
reason), DIR/hpcc/ (hpccinf.txt, hpccoutf.txt) and DIR/logs/. --threads: OpenBLAS threads
per rank (default: the smallest node's CPUs). --nodes: an earlier run's cluster-nodes.json on
the same hosts (peakinfo not run again). Exit 0 (hpcc absent is a skipped entry), 1 when a
run failed, 2 on bad input. Its steps one by one (`cluster nodes|input|parse|skip`):
  nodes TAGGED --hostfile H --out NODES.json   peakinfo's tagged outputs -> every node
  input NODES.json --mode M > hpccinf.txt
  parse hpccoutf.txt --nodes NODES.json --threads T --out FILE
  skip --reason WHY --out FILE                 (hpcc absent or failed)

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
import shutil
import subprocess
import sys

from ..common import row, write_doc, write_json
from . import NB, PAIR_N, summary, write_input

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
    """hpccinf.txt for a P x Q grid."""
    return write_input(n, nb, p, q)


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
        kv = summary(f.read())
    if kv is None:
        raise ValueError("no summary section: not hpcc's output")
    version = "hpcc " + ".".join(kv.get(k, "?") for k in ("VersionMajor", "VersionMinor", "VersionMicro"))
    rows = b_eff_rows(kv, version)
    hpl = hpl_row(kv, version, nodes, threads)
    if hpl:
        rows.append(hpl)
    if not rows:
        raise ValueError("no b_eff or HPL figure in the summary")
    return version, rows



PROG = "cluster_hpcc.sh"  # the command a user runs (scripts/cluster_hpcc.sh launches `cluster run`)
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
LIMIT_S = {"full": 7200, "quick": 600, "tiny": 180}  # hpcc's run across the nodes, by mode
NODES_LIMIT_S = 300  # peakinfo on every node (it measures its clock: a few seconds)
_OPTIONS = {"--hostfile": "hostfile", "--mpirun": "mpirun", "--mode": "mode", "--out": "out",
            "--build-dir": "build_dir", "--threads": "threads", "--nodes": "nodes"}


class _Usage(Exception):
    """A bad option of `cluster run`: one line, exit 2."""


def run_options(argv: list) -> argparse.Namespace:
    """`cluster run`'s options, checked as cluster_hpcc.sh checked them."""
    o = argparse.Namespace(hostfile="", mpirun="", mode="quick", out="", build_dir=os.path.join(ROOT, "build"),
                           threads="", nodes="")
    for i in range(0, len(argv), 2):
        if argv[i] not in _OPTIONS:
            raise _Usage(f"unknown option '{argv[i]}'")
        if i + 1 >= len(argv):
            raise _Usage(f"{argv[i]} needs a value")
        setattr(o, _OPTIONS[argv[i]], argv[i + 1])
    if not (o.hostfile and os.access(o.hostfile, os.R_OK)):
        raise _Usage("--hostfile FILE is required and readable")
    if not o.out:
        raise _Usage("--out DIR is required")
    if o.nodes and not os.access(o.nodes, os.R_OK):
        raise _Usage(f"cannot read --nodes '{o.nodes}'")
    if o.mode not in LIMIT_S:
        raise _Usage("--mode wants full, quick or tiny")
    if o.threads and not re.fullmatch(r"[1-9][0-9]{0,2}", o.threads):
        raise _Usage(f"--threads wants a count, got '{o.threads}'")
    if not hostfile_names(o.hostfile):
        raise _Usage("the hostfile names no host")
    return o


def _tail(path: str) -> str:
    """The file's last line, as `tail -n 1` shows it ("" when unreadable)."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines[-1] if lines else ""


def skip_doc(path: str, reason: str) -> None:
    """The document of a cluster run that gave no rows: b_eff and HPL skipped, with REASON."""
    write_doc(path, "hpcc", "", [], [{"test": t, "reason": reason} for t in ("b_eff", "hpl")])


def run(argv: list) -> int:
    """`cluster run`: peakinfo on every node, then hpcc across them (see the top)."""
    try:
        o = run_options(argv)
    except _Usage as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    names = hostfile_names(o.hostfile)
    for d in ("logs", "hpcc"):
        os.makedirs(os.path.join(o.out, d), exist_ok=True)
    out = os.path.abspath(o.out)
    logs, work, doc = os.path.join(out, "logs"), os.path.join(out, "hpcc"), os.path.join(out, "cluster-hpcc.json")

    def skip(reason: str, rc: int = 0) -> int:
        print(f"{PROG}: {reason}", file=sys.stderr)
        skip_doc(doc, reason)
        return rc

    def launch(limit: int, args: list, files: list, env=None) -> int:
        """mpirun ARGS, one rank per node, under LIMIT seconds (timeout(1): 124 past it); its
        stdout and stderr to the two FILES. The launcher's options split as a shell would."""
        cmd = ["timeout", str(limit), "mpirun", "--bind-to", "none"] + o.mpirun.split() + [
            "--hostfile", o.hostfile, "-np", str(len(names)), "--map-by", "node"] + args
        with open(files[0], "w") as fo, open(files[1], "w") as fe:
            return subprocess.run(cmd, stdout=fo, stderr=fe, env=env).returncode

    pi = os.path.join(o.build_dir, "peakinfo", "peakinfo")
    if not os.access(pi, os.X_OK):
        return skip(f"peakinfo not built under {o.build_dir}: no node peaks", 1)
    if not shutil.which("hpcc"):
        return skip("hpcc not installed (Debian: apt install hpcc)")
    nodes_file = os.path.join(out, "cluster-nodes.json")
    try:
        if o.nodes:
            if not (os.path.exists(nodes_file) and os.path.samefile(o.nodes, nodes_file)):
                shutil.copyfile(o.nodes, nodes_file)
        else:
            tagged = [os.path.join(logs, "peakinfo-nodes.out"), os.path.join(logs, "peakinfo-nodes.err")]
            if launch(NODES_LIMIT_S, ["--tag-output", pi, "--format", "json", "--quiet"], tagged):
                return skip(f"peakinfo failed on a node: {_tail(tagged[1])}", 1)
            with open(tagged[0], errors="replace") as f:
                write_json(nodes_file, {"nodes": nodes_from_tagged(f.read(), names)})
        with open(nodes_file) as f:
            nodes = json.load(f)["nodes"]
        cpus = [n["cpus"] for n in nodes if n.get("cpus")]
        threads = int(o.threads) if o.threads else int(min(cpus)) if cpus else 1
        with open(os.path.join(work, "hpccinf.txt"), "w") as f:
            f.write(hpccinf(hpl_n(o.mode, [x.get("mem_bytes") for x in nodes]), NB, *grid(len(nodes))))
    except (OSError, ValueError, KeyError) as e:
        print(f"cluster_hpcc: {e}", file=sys.stderr)
        return 1
    res = os.path.join(work, "hpccoutf.txt")
    if os.path.exists(res):
        os.remove(res)
    # hpcc reads hpccinf.txt and writes hpccoutf.txt on rank 0 only, in its working directory:
    # every rank starts in OUT/hpcc (made where it is missing), rank 0 is the hostfile's first
    # host: OUT must be on that host (cluster_run.sh started there) or on a shared filesystem.
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS="1")
    err = os.path.join(logs, "hpcc.err")
    rc = launch(LIMIT_S[o.mode], ["-x", "OPENBLAS_NUM_THREADS", "-x", "OMP_NUM_THREADS", "sh", "-c",
                                  'mkdir -p "$1" && cd "$1" && exec hpcc', "sh", work],
                [os.path.join(logs, "hpcc.log"), err], env)
    if rc or not (os.path.exists(res) and os.path.getsize(res) > 0):
        return skip(f"hpcc exited {rc}: {_tail(err)}", 1)
    try:
        version, rows = parse(res, nodes, threads)
    except (OSError, ValueError, KeyError) as e:
        print(f"cluster_hpcc: {e}", file=sys.stderr)
        return skip(f"hpccoutf.txt unreadable: see {out}/hpcc", 1)
    write_doc(doc, "hpcc", version, rows, [], nodes=nodes)
    return 0


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"cluster_hpcc: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv: list) -> int:
    """`adapters hpcc cluster run|nodes|input|parse|skip ...` (see the top)."""
    if argv[:1] == ["run"]:
        return run(argv[1:])
    p = _Parser(prog="python3 scripts/peakresults/adapters hpcc cluster")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("run", help="peakinfo on every node, then hpcc across them")
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
        skip_doc(o.out, o.reason)
        return 0
    try:
        if o.cmd == "nodes":
            with open(o.tagged, errors="replace") as f:
                nodes = nodes_from_tagged(f.read(), hostfile_names(o.hostfile))
            write_json(o.out, {"nodes": nodes})
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
    write_doc(o.out, "hpcc", version, rows, [], nodes=nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
