"""run_all.sh's plan: its options, and the steps they make (suite, name, estimated seconds,
kind, binary, output name, argv). run_all.sh reads the steps NUL-separated (no eval) and
keeps the sequencing: progress, locks, calling the binaries, status.tsv, commands.txt.

The steps and their commands are what run_all.sh's build_plan made in bash before (same
commands, same outputs); docs/benchmarks/suite.md lists them."""
import argparse
import json
import os
import re
import shutil
import sys
import time

SUITES = ("cpu", "memory", "disk", "network", "dpdk")
BASELINE_TOOLS = ("hpcc", "likwid", "fio", "iozone", "iperf3", "sockperf")
# The program a baseline step needs (the tool's name when absent).
TOOL_PROGRAM = {"likwid": "likwid-bench"}

USAGE = """Usage: ./run_all.sh [options]
Run the peakbench protocol (the PA1 protocol by default: 1/2/4/8 threads, every block
size, 3 repetitions) and write results/<timestamp>/ with CSV, JSON, charts and report.md.

Options:
  --quick            reduced plan that finishes in a few minutes (1,2 threads, smaller
                     sizes, --min-time 0.05 unless given)
  --only LIST        suites to run: cpu,memory,disk,network,dpdk (default: all built)
  --reps N           repetitions per point (default 3)
  --threads LIST     thread counts (default 1,2,4,8; --quick: 1,2)
  --min-time S       shortest repetition, passed to every benchmark
  --out DIR          results folder (default results/<timestamp>)
  --disk-dir DIR     directory for diskbench's and fio's test files (default: under --out)
  --peer HOST        also run netbench against a `netbench server` on HOST (two-node part)
  --hostfile FILE    also run the cluster part on the hosts of FILE (scripts/cluster_run.sh)
  --mpirun "ARGS"    extra arguments for mpirun in the cluster part
  --build-dir DIR    use binaries from DIR (default build/, built with `make`)
  --no-build         do not run make; use what is already built
  --no-baselines     skip the reference tools (fio, iperf3, sockperf, hpcc, likwid-bench);
                     without it, missing tools are installed first when root or sudo -n
                     can (scripts/deps.sh --tools), else the command to run is printed
  --no-charts        skip gnuplot
  --tiny             tiny sizes for tests (implies --quick; numbers are meaningless)
  --dry-run          print the plan with the estimated time and run nothing
  -h, --help         this help

The full protocol (neither --quick nor --tiny) runs each suite's sweep with reps-1
repetitions, and again with 1 repetition at the end of the run (<name>.pass2.json), so
that a point's repetitions span minutes, not seconds (docs/methodology.md).

Environment: PEAKBENCH_LOCK=FILE takes flock(1) on FILE around every measuring step, so
runs that share a machine measure one at a time. PEAKBENCH_DPDK_HUGE=auto|yes|no: dpdkbench
on hugepages when a hugetlbfs is mounted and enough pages are free (auto), always, or never
(--no-huge); run_all.sh never allocates hugepages itself. PEAK_DEPS=required: install no
reference tool (scripts/deps.sh).

DPDK steps (--only dpdk): net_ring loopback; a tester and a dut over net_memif in two
processes (scripts/dpdk_memif_pair.sh, 2 CPUs), at full load and again at --rate 0.1 Mpps
for the round trip without queueing; and netbench's kernel UDP path at the same frame sizes
(payload = frame - 46 bytes), compared in the report.

Exit status: 0 when every step ran (skipped steps included), 1 when a step failed,
2 on a usage error.
"""


class UsageError(Exception):
    """A bad option: run_all.sh prints one line and exits 2."""


class Step:
    def __init__(self, suite, name, est, kind, binary, outf, argv):
        self.suite, self.name, self.est, self.kind = suite, name, int(est), kind
        self.binary, self.outf, self.argv = binary, outf, [str(a) for a in argv]
        if any(a == "" for a in self.argv):
            raise ValueError(f"step {name}: an empty argument")

    def command(self) -> str:
        """The command as commands.txt and --dry-run show it."""
        return " ".join(shquote(a) for a in self.argv)


def shquote(word: str) -> str:
    """One word for a shell command line: bare when safe, else single-quoted."""
    if re.fullmatch(r"[A-Za-z0-9_./:,=+@%-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def fmt_duration(s: float) -> str:
    s = int(s)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m{s % 60:02d}s"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(message)


def parse_options(argv: list) -> argparse.Namespace:
    p = _Parser(prog="run_all.sh", add_help=False, allow_abbrev=False)
    for flag in ("--quick", "--tiny", "--dry-run", "--no-build", "--no-baselines",
                 "--no-charts", "-h", "--help", "--nul", "--write-pairs"):
        p.add_argument(flag, action="store_true")
    for opt in ("--only", "--reps", "--threads", "--min-time", "--out", "--disk-dir",
                "--peer", "--build-dir", "--hostfile", "--mpirun",
                # for tests: the CPUs, the tools taken as installed, where /sys is
                "--ncpu", "--have", "--sysroot", "--root"):
        p.add_argument(opt)
    if any(a in ("-h", "--help") for a in argv):
        o = argparse.Namespace(help=True)
        return o
    for i, a in enumerate(argv):
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if a.startswith("--") and a[2:].replace("-", "_") in _VALUED and (nxt is None or nxt == ""):
            raise UsageError(f"{a} needs a value")
    o, rest = p.parse_known_args(argv)
    if rest:
        raise UsageError(f"unknown option '{rest[0]}'")
    o.quick = o.quick or o.tiny
    if o.only:
        for s in o.only.split(","):
            if s not in SUITES:
                raise UsageError(f"--only: unknown suite '{s}' (cpu,memory,disk,network,dpdk)")
        o.suites = o.only.split(",")
    else:
        o.suites = list(SUITES)
    if o.reps is not None:
        if not re.fullmatch(r"[1-9][0-9]{0,3}", o.reps) or int(o.reps) > 1000:
            raise UsageError(f"--reps: '{o.reps}' is not a count from 1 to 1000")
        o.reps = int(o.reps)
    else:
        o.reps = 3
    if o.threads is not None:
        if not re.fullmatch(r"[1-9][0-9]*(,[1-9][0-9]*)*", o.threads):
            raise UsageError(f"--threads: '{o.threads}' is not a list like 1,2,4,8")
    else:
        o.threads = "1,2" if o.quick else "1,2,4,8"
    if o.min_time is None and o.quick:
        o.min_time = "0.05"
    elif o.min_time is not None:
        ok = re.fullmatch(r"([0-9]+\.?[0-9]*|\.[0-9]+)", o.min_time)
        if not ok or not 0 < float(o.min_time) <= 3600:
            raise UsageError(f"--min-time: '{o.min_time}' is not a number of seconds in (0, 3600]")
    if o.peer and not re.fullmatch(r"[A-Za-z0-9.:_-]+", o.peer):
        raise UsageError(f"--peer: '{o.peer}' is not a host name or address")
    if o.mpirun is not None and not o.hostfile:
        raise UsageError("--mpirun needs --hostfile")
    o.root = o.root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    o.out = os.path.abspath(o.out or os.path.join(o.root, "results",
                                                  time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())))
    o.build_dir = os.path.abspath(o.build_dir or os.path.join(o.root, "build"))
    if o.ncpu is not None:
        if not re.fullmatch(r"[1-9][0-9]*", o.ncpu):
            raise UsageError(f"--ncpu: '{o.ncpu}' is not a count")
        o.ncpu = int(o.ncpu)
    else:
        o.ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    o.help = False
    return o


_VALUED = {"only", "reps", "threads", "min_time", "out", "disk_dir", "peer", "build_dir",
           "hostfile", "mpirun", "ncpu", "have", "sysroot", "root"}


def cache_bytes(level: int, default: int, sysroot: str = "/") -> int:
    """Size of CPU 0's level-N data (or unified) cache, DEFAULT when unknown."""
    base = os.path.join(sysroot, "sys/devices/system/cpu/cpu0/cache")
    try:
        entries = sorted(e for e in os.listdir(base) if e.startswith("index"))
    except OSError:
        return default
    for e in entries:
        def read(name):
            try:
                with open(os.path.join(base, e, name)) as f:
                    return f.read().strip()
            except OSError:
                return ""
        if read("level") != str(level) or read("type") == "Instruction":
            continue
        sz = read("size")
        m = re.fullmatch(r"([0-9]+)([KM]?)", sz)
        if m:
            return int(m.group(1)) * {"": 1, "K": 1024, "M": 1048576}[m.group(2)]
    return default


def dpdk_eal_mem(procs: int, mb: int, mounts="/proc/mounts", meminfo="/proc/meminfo") -> list:
    """dpdkbench's EAL memory arguments (as lib.sh's peak_dpdk_eal_mem): hugepages when a
    hugetlbfs is mounted and the free, unreserved pages cover PROCS x MB, or
    PEAKBENCH_DPDK_HUGE=yes; ordinary memory otherwise or with =no."""
    mode = os.environ.get("PEAKBENCH_DPDK_HUGE", "auto")
    huge = mode == "yes"
    if mode not in ("yes", "no"):
        try:
            with open(mounts) as f:
                mounted = any(len(ln.split()) > 2 and ln.split()[2] == "hugetlbfs" for ln in f)
            vals = {}
            with open(meminfo) as f:
                for ln in f:
                    parts = ln.split()
                    if len(parts) >= 2 and parts[0] in ("HugePages_Free:", "HugePages_Rsvd:", "Hugepagesize:"):
                        vals[parts[0]] = int(parts[1])
            kb = vals.get("Hugepagesize:", 0)
            free = vals.get("HugePages_Free:", 0) - vals.get("HugePages_Rsvd:", 0)
            huge = mounted and kb > 0 and free * kb >= procs * mb * 1024
        except (OSError, ValueError):
            huge = False
    return ["-m", str(mb), "--in-memory"] if huge else ["--no-huge", "--no-shconf", "-m", str(mb)]


def have_tool(o, name: str) -> bool:
    if o.have is not None:
        return name in o.have.split(",")
    return shutil.which(TOOL_PROGRAM.get(name, name)) is not None


def mode_of(o) -> str:
    return "tiny" if o.tiny else "quick" if o.quick else "full"


def build_plan(o) -> list:
    """The steps, in order. Estimates: points x (reps + 1 warm-up) x seconds per
    repetition, point counts calibrated on the development machine."""
    steps = []
    full = not o.quick
    # The full protocol's first pass takes reps-1 repetitions, the second pass (at the end)
    # one more, so that each point's repetitions are minutes apart (issue 13, item 4).
    split = full and o.reps >= 2
    reps = o.reps - 1 if split else o.reps
    nthreads = len(o.threads.split(","))
    rep_s = float(o.min_time or 0.2)
    common = ["--threads", o.threads, "--reps", str(reps), "--quiet"]
    if o.min_time:
        common += ["--min-time", o.min_time]
    disk_dir = o.disk_dir or os.path.join(o.out, "disk-tmp")
    want = set(o.suites)

    def est(points, secs, r=None):
        return int(points * ((r if r is not None else reps) + 1) * secs + 1)

    def add(*a):
        steps.append(Step(*a))

    sweeps = []  # the suite sweeps the second pass repeats

    add("info", "peakinfo", 5, "bench", "peakinfo", "peakinfo", ["peakinfo", "--quiet"])
    if "cpu" in want:
        isa = "best" if o.tiny else "all"
        add("cpu", "cpubench", est(53 * nthreads, rep_s), "bench", "cpubench", "cpu-cpubench",
            ["cpubench", "--test", "flops,iops", "--isa", isa, "--precision", "sp,dp"] + common)
        sweeps.append(steps[-1])
        lp = ["--n", "200"] if o.tiny else ["--max-time", "5"] if o.quick else ["--max-time", "20"]
        # OpenBLAS threads: the largest count that fits the CPUs (as hpcc.sh uses).
        lpt = max([1] + [int(t) for t in o.threads.split(",") if int(t) <= o.ncpu])
        # (--n 200 takes well under a second: the bash plan took 200 for seconds there)
        lp_s = 0.5 if o.tiny else float(lp[1])
        add("cpu", "linpack", int(est(1, lp_s) * 3 / 4), "bench", "linpack", "cpu-linpack",
            ["linpack"] + lp + ["--threads", lpt, "--reps", reps, "--quiet"])
        sweeps.append(steps[-1])
    if "memory" in want:
        size, blocks, sweep = "1GiB", "8B,8KiB,8MiB,80MiB", "4KiB:1GiB"
        if o.tiny:
            size, blocks, sweep = "16MiB", "8B,8KiB,1MiB", "4KiB:16MiB:1"
        elif o.quick:
            size, blocks, sweep = "256MiB", "8B,8KiB,8MiB,80MiB", "4KiB:64MiB:1"
        add("memory", "membench", est(135 * nthreads, rep_s), "bench", "membench", "memory-membench",
            ["membench", "--test", "all", "--block", blocks, "--size", size, "--sweep", sweep] + common)
        sweeps.append(steps[-1])
        # Bandwidth of each memory level for the roofline: reads over a buffer that fits
        # the level (half of it per thread for private caches), every CPU reading.
        sysroot = o.sysroot or "/"
        l1, l2 = cache_bytes(1, 32768, sysroot), cache_bytes(2, 1048576, sysroot)
        l3 = cache_bytes(3, 33554432, sysroot)
        dram = "16MiB" if o.tiny else "256MiB" if o.quick else "1GiB"
        sizes = {"L1": f"{l1 * o.ncpu // 2048}KiB", "L2": f"{l2 * o.ncpu // 2048}KiB",
                 "L3": f"{l3 // 2048}KiB", "DRAM": dram}
        for lv in ("L1", "L2", "L3", "DRAM"):
            argv = ["membench", "--test", "seq_read", "--block", "4KiB", "--size", sizes[lv],
                    "--threads", o.ncpu, "--reps", o.reps, "--quiet"]
            if o.min_time:
                argv += ["--min-time", o.min_time]
            add("memory", f"bandwidth {lv}", est(1, rep_s, o.reps), "bench", "membench", f"levels-{lv}", argv)
    if "disk" in want:
        # Time-based repetitions (fio's time_based): a size-based pass of 4 KiB random reads
        # over 1 GiB takes 10-20 s here per repetition, and the plan has hundreds of points.
        fsize, dblocks, runtime = "1GiB", "8B,4KiB,8KiB,1MiB,8MiB,80MiB", "0.5"
        if o.tiny:
            fsize, dblocks, runtime = "8MiB", "4KiB,1MiB", "0.05"
        elif o.quick:
            fsize, dblocks, runtime = "256MiB", "4KiB,1MiB", "0.2"
        nb = len(dblocks.split(","))
        add("disk", "diskbench", est(6 * nb * 2 * nthreads, float(runtime)), "bench", "diskbench",
            "disk-diskbench", ["diskbench", "--dir", disk_dir, "--file-size", fsize, "--test", "all",
                               "--block", dblocks, "--runtime", runtime] + common)
        sweeps.append(steps[-1])
    if "network" in want:
        nbytes = "1MiB" if o.tiny else "128MiB" if o.quick else "1GiB"
        add("network", "netbench", est(4 * nthreads, 1), "bench", "netbench", "network-netbench",
            ["netbench", "loopback", "--test", "all", "--buffer", "64KiB", "--bytes", nbytes] + common)
        sweeps.append(steps[-1])
        if o.peer:
            add("network", f"netbench --peer {o.peer}", est(4 * nthreads, 2), "bench", "netbench",
                "network-remote", ["netbench", "client", "--host", o.peer, "--test", "all",
                                   "--buffer", "64KiB", "--bytes", nbytes] + common)
            sweeps.append(steps[-1])
    if "dpdk" in want:
        sizes, flows, pflows, t = "64,1500,9000", "1,8,32,256", "1,8", "1"
        if o.quick:
            flows, pflows, t = "1,32", "1", "0.5"
        if o.tiny:
            sizes, flows, pflows, t = "64", "1", "1", "0.1"
        nsizes, tf = len(sizes.split(",")), float(t)
        # Hugepages when enough are free (much faster), else ordinary memory: the EAL
        # arguments say which, in the plan and in the results' context (dpdk_eal_args).
        add("dpdk", "dpdkbench", est(3 * 4, tf, o.reps), "bench", "dpdkbench", "dpdk-dpdkbench",
            ["dpdkbench", "-l", "0"] + dpdk_eal_mem(1, 512) +
            ["--no-pci", "--no-telemetry", "--log-level=*:critical", "--file-prefix=peakbench-runall",
             "--vdev=net_ring0", "--", "--role", "loopback", "--sizes", sizes, "--flows", flows,
             "--time", t, "--reps", o.reps])
        # Tester and dut in two processes over net_memif, one CPU each, both directions.
        add("dpdk", "memif pair", est(nsizes * len(pflows.split(",")), tf, o.reps) + 3, "bench",
            "dpdkbench", "dpdk-memif", ["scripts/dpdk_memif_pair.sh", "dpdkbench", "--sizes", sizes,
                                        "--flows", pflows, "--direction", "bi", "--time", t, "--reps", o.reps])
        # The same pair at a light load (0.1 Mpps per direction): the round trip without
        # queueing in full rings, comparable with the kernel's ping-pong below.
        add("dpdk", "memif latency", est(nsizes, tf, o.reps) + 3, "bench", "dpdkbench", "dpdk-memif-rate",
            ["scripts/dpdk_memif_pair.sh", "dpdkbench", "--sizes", sizes, "--flows", "1", "--direction",
             "bi", "--rate", "0.1", "--time", t, "--reps", o.reps])
        # The kernel's UDP path at the same sizes: a frame of S bytes (with FCS) carries
        # S - 46 bytes of UDP payload. One connection, as the pair runs one tester lcore.
        payloads = ",".join(f"{int(s) - 46}B" for s in sizes.split(","))
        add("dpdk", "kernel udp", est(2 * nsizes, tf, o.reps), "bench", "netbench", "network-udpframes",
            ["netbench", "loopback", "--test", "udp_throughput,udp_latency", "--datagram", payloads,
             "--msg-size", payloads, "--time", t, "--threads", "1", "--reps", o.reps, "--quiet"])
    if not o.no_baselines:
        steps += baseline_steps(o, want, disk_dir)
    o.pair_jobs = pair_jobs(o, want, disk_dir) if not o.no_baselines else []
    for job in o.pair_jobs:
        steps += job.steps(o)
    if o.hostfile:
        steps.append(cluster_step(o))
    if split:
        # The second pass: the same sweeps once more, one repetition, at the end.
        for s in sweeps:
            argv = list(s.argv)
            argv[argv.index("--reps") + 1] = "1"
            steps.append(Step(s.suite, s.name + " pass 2", max(1, s.est // (reps + 1) * 2), s.kind,
                              s.binary, s.outf + ".pass2", argv))
    # The VM placement fingerprint again, against peakinfo's at the start: did the host
    # move the vCPUs during the run? (context c2c.moved, report's Machine table)
    add("info", "placement", 1, "bench", "peakinfo", "placement",
        ["peakinfo", "--placement-since", os.path.join(o.out, "raw", "peakinfo.json"), "--quiet"])
    finish = ["python3", "scripts/peakresults", "finish", o.out]
    if o.no_charts:
        finish.append("--no-charts")
    add("post", "finish", 12 if not o.no_charts else 2, "post", "python3", "finish", finish)
    return steps


BASELINE_EST = {"full": {"hpcc": 150, "likwid": 40, "fio": 60, "iperf3": 35, "sockperf": 10},
                "quick": {"hpcc": 35, "likwid": 28, "fio": 12, "iperf3": 8, "sockperf": 8}}
BASELINE_SUITES = {"hpcc": ("cpu", "memory"), "likwid": ("cpu", "memory"), "fio": ("disk",),
                   "iozone": ("disk",), "iperf3": ("network",), "sockperf": ("network",)}


def baseline_steps(o, want, disk_dir) -> list:
    mode = mode_of(o)
    steps = []
    for b in BASELINE_TOOLS:
        if not want.intersection(BASELINE_SUITES[b]):
            continue
        be = BASELINE_EST.get(mode, {}).get(b, 5) if have_tool(o, b) else 1
        argv = [f"scripts/baseline/{b}.sh", "--mode", mode, "--threads", o.threads,
                "--raw", os.path.join(o.out, "raw")]
        if b in ("fio", "iozone"):
            argv += ["--dir", disk_dir]
        steps.append(Step("baseline", b, be, "baseline", f"scripts/baseline/{b}.sh", f"baseline-{b}", argv))
    return steps


# Rounds per paired job. On a VM single figures swing between rounds (memory bandwidth
# modes, wake-up latency, the disk): the median of 5 ratios is not moved by one or two
# rounds in the other mode. hpcc took 3 until the fifth session (its three rounds had
# spread 0.75-1.44 in the fourth's full run, docs/benchmarks.md).
ROUNDS = {"full": 5, "quick": 2, "tiny": 1}
# A job whose figures span two CPUs runs as fast as where the host put the vCPUs, which
# moves every few seconds on a shared VM host (docs/benchmarks.md, seventh session): pairs.py
# counts only its rounds whose sides ran in one placement, so it has more, shorter rounds.
ROUNDS_MATCHED = {"full": 9, "quick": 4, "tiny": 1}


class PairJob:
    """A figure (or a few) measured by us and by a reference tool in alternating rounds
    (A B A B ...: ours first in odd rounds, the tool first in even ones), written to
    OUT/raw/pairs/<id>/r<k>-ours[-part].json and r<k>-tool.json (pairs.py reads them).
    figures: [{"key": {...}, "ours_job", "cause", and for our best configuration beside
    the like-for-like one "best_key", "best_job", "best_cause"}]; ours: [(part, argv)];
    best: [(part, argv)] run after ours in each round; tool: the baseline script's argv.
    matched: the figures span two CPUs, so pairs.py compares a round's sides only when they
    ran in one VM placement (run_all.sh fingerprints each side), over ROUNDS_MATCHED."""

    def __init__(self, jid, tool, suite, tool_argv, tool_job, figures, ours, best=(), est=10, ours_est=5,
                 matched=False):
        self.id, self.tool, self.suite, self.tool_argv = jid, tool, suite, tool_argv
        self.tool_job, self.figures, self.ours, self.best = tool_job, figures, ours, list(best)
        self.est, self.ours_est = est, ours_est  # seconds of a tool run, of one of ours
        self.matched = matched

    def rounds(self, o) -> int:
        return (ROUNDS_MATCHED if self.matched else ROUNDS)[mode_of(o)]

    def doc(self) -> dict:
        return dict({"id": self.id, "tool": self.tool, "tool_job": self.tool_job, "figures": self.figures},
                    **({"placement": "matched"} if self.matched else {}))

    def steps(self, o) -> list:
        out = []
        d = f"pairs/{self.id}"
        for k in range(1, self.rounds(o) + 1):
            ours = [Step("pair", f"{self.id} r{k} ours{'-' + part if part else ''}", self.ours_est, "bench",
                         argv[0] if not argv[0].startswith("scripts/") else argv[1],
                         f"{d}/r{k}-ours{'-' + part if part else ''}", argv) for part, argv in self.ours]
            ours += [Step("pair", f"{self.id} r{k} best{'-' + part if part else ''}", self.ours_est, "bench",
                          argv[0], f"{d}/r{k}-best{'-' + part if part else ''}", argv) for part, argv in self.best]
            raw = os.path.join(o.out, "raw", d)
            tool = Step("pair", f"{self.id} r{k} {self.tool}", self.est, "baseline", self.tool_argv[0],
                        f"{d}/r{k}-tool", self.tool_argv + ["--raw", os.path.join(raw, f"r{k}-tool.d"),
                                                            "--json", os.path.join(raw, f"r{k}-tool.json")])
            out += ours + [tool] if k % 2 else [tool] + ours
        return out


def cpu_flags(o) -> set:
    try:
        with open(os.path.join(o.sysroot or "/", "proc/cpuinfo")) as f:
            return set(next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), []))
    except OSError:
        return set()


def hugetlb_room(o, pages: int) -> bool:
    """Free, unreserved 2 MiB hugetlb pages for PAGES (diskbench's --buffer-pages auto
    takes hugetlb when the pool has room, and fio's --mem=shmhuge needs the same)."""
    vals = {}
    try:
        with open(os.environ.get("PEAKBENCH_MEMINFO") or os.path.join(o.sysroot or "/", "proc/meminfo")) as f:
            for ln in f:
                parts = ln.split()
                if len(parts) >= 2:
                    vals[parts[0]] = parts[1]
    except OSError:
        return False
    return vals.get("Hugepagesize:") == "2048" and \
        int(vals.get("HugePages_Free:", 0)) - int(vals.get("HugePages_Rsvd:", 0)) >= pages


def thp_available(o) -> bool:
    """Transparent huge pages on request ("always" or "madvise"): diskbench's --buffer-pages
    auto gets them without a hugetlb pool."""
    try:
        with open(os.path.join(o.sysroot or "/", "sys/kernel/mm/transparent_hugepage/enabled")) as f:
            return "[never]" not in f.read()
    except OSError:
        return False


SHM = "/dev/shm"


def shared_buffer_dir(o) -> str:
    """Where the paired diskbench job and fio share their I/O buffers (diskbench's
    --buffer-dir: a directory of its own on tmpfs, named after the results folder so that
    every read of the plan gives the same one; run_all.sh removes it), or "" when /dev/shm
    is not a writable tmpfs."""
    try:
        with open(os.path.join(o.sysroot or "/", "proc/mounts")) as f:
            tmpfs = any(ln.split()[1:3] == [SHM, "tmpfs"] for ln in f if len(ln.split()) >= 3)
    except OSError:
        tmpfs = False
    if not tmpfs or (not o.sysroot or o.sysroot == "/") and not os.access(SHM, os.W_OK | os.X_OK):
        return ""
    import hashlib
    tag = hashlib.sha1(os.path.abspath(o.out).encode()).hexdigest()[:12]
    return f"{SHM}/peakbench-buffers.{os.getuid()}.{tag}"


def heap_pages_args(o) -> list:
    """membench's --hugepages for a job paired with a tool whose arrays come from malloc
    (hpcc, likwid-bench): such memory is backed by transparent huge pages only when THP is
    "always"; in "madvise" or "never" mode it is 4 KiB pages, and membench maps 4 KiB pages
    too (--hugepages off), for the same TLB reach (a page walk per 4 KiB under a VM's nested
    paging)."""
    try:
        with open(os.path.join(o.sysroot or "/", "sys/kernel/mm/transparent_hugepage/enabled")) as f:
            always = "[always]" in f.read()
    except OSError:
        always = False  # no THP: malloc's memory is 4 KiB pages
    return [] if always else ["--hugepages", "off"]


def pair_cpus() -> tuple:
    """(client, server): the first two CPUs this process may run on (one twice on a
    single CPU), where a paired network job puts both tools' client and server."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = []
    cpus = cpus or [0]
    return cpus[0], cpus[1] if len(cpus) > 1 else cpus[0]


def hpcc_vector_isa() -> tuple:
    """(membench ISA, how) of the installed hpcc's STREAM code (tools/hpcc.py)."""
    from peakresults.tools.hpcc import vector_isa
    return vector_isa()


def pair_jobs(o, want, disk_dir) -> list:
    """The paired figures of issue 13, each the same job on both sides, with short rounds
    (the full protocol stays within 45 minutes on a 2-vCPU VM)."""
    mode = mode_of(o)
    jobs = []
    tmax = max([1] + [int(t) for t in o.threads.split(",") if int(t) <= o.ncpu])
    secs = {"full": "2", "quick": "1", "tiny": "1"}[mode]  # whole seconds: iperf3's and sockperf's -t
    reps = ["--reps", "3" if mode != "tiny" else "1", "--quiet"] + (["--min-time", o.min_time] if o.min_time else [])
    flags = cpu_flags(o)
    isa = "avx512" if "avx512f" in flags else "avx2" if {"avx2", "fma"} <= flags else "sse2" if "sse2" in flags else ""
    lisa = {"avx512": "avx512", "avx2": "avx", "sse2": "sse"}.get(isa)

    def key(suite, test, variant, threads, block, metric, unit):
        return dict(zip(("suite", "test", "variant", "threads", "block_bytes", "metric", "unit"),
                        (suite, test, variant, threads, block, metric, unit)))

    def script(tool, *extra):
        return [f"scripts/baseline/{tool}.sh", "--mode", mode] + list(extra)

    # One repetition of ours per round in a placement-matched job: its figure is then one
    # run as the tool's is, each within the seconds the host leaves the vCPUs in place, and
    # the job's rounds are its repetitions (issue 13).
    reps1 = ["--reps", "1", "--quiet"] + (["--min-time", o.min_time] if o.min_time else [])
    if "cpu" in want and have_tool(o, "likwid") and isa in ("avx512", "avx2"):
        t = f"peakflops_{'avx512' if isa == 'avx512' else 'avx'}_fma"
        argv = ["cpubench", "--test", "flops", "--isa", isa, "--precision", "dp", "--threads", tmax] + reps
        jobs.append(PairJob("likwid-flops", "likwid-bench", "cpu", script("likwid", "--threads", str(tmax), "--tests", t),
                            f"likwid-bench -t {t} -w S0:{16 * tmax}kB:{tmax}",
                            [{"key": key("cpu", "flops", f"{isa}_dp_fma", tmax, None, "flops", "GFLOPS"),
                              "ours_job": " ".join(map(str, argv)), "cause": ""}],
                            [("flops", argv)], est=5, ours_est=3))
    if "memory" in want and have_tool(o, "likwid") and lisa:
        # likwid's copy_mem and stream_mem are STREAM's copy and triad: one membench stream
        # job gives both rows, on arrays of the size likwid-bench is given
        # (scripts/baseline/likwid.sh: two or three of membench's arrays). At two threads
        # or more the bandwidth follows the vCPUs' placement (47 against 72 GB/s on the
        # seventh session's VM): placement-matched rounds, likwid-bench -s 0.5.
        size = {"full": 1 << 30, "quick": 256 << 20, "tiny": 16 << 20}[mode]
        tests = [f"copy_mem_{lisa}", f"stream_mem_{lisa}"]
        matched = tmax > 1
        stream = ["membench", "--test", "stream", "--size", f"{size}B", "--threads", tmax, "--nt", "on",
                  "--isa", isa] + heap_pages_args(o) + (reps1 if matched else reps)
        from peakresults.tools.likwid import membench_array_bytes
        arr = membench_array_bytes(size, tmax)
        sjob = " ".join(map(str, stream))
        figs = [{"key": key("memory", "stream", f"{k}-{isa}-nt", tmax, arr, "throughput", "MB/s"),
                 "ours_job": sjob, "cause": ""} for k in ("copy", "triad")]
        jobs.append(PairJob("likwid-mem", "likwid-bench", "memory",
                            script("likwid", "--threads", str(tmax), "--tests", ",".join(tests),
                                   "--min-seconds", "0.5"),
                            f"likwid-bench -t {','.join(tests)} -w S0:{size // 1000}kB:{tmax} -s 0.5 "
                            f"(copy_mem: S0:{size * 2 // 3 // 1000}kB, membench's two arrays)", figs,
                            [("stream", stream)], est=5, ours_est=5, matched=matched))
    if ("cpu" in want or "memory" in want) and have_tool(o, "hpcc"):
        n = {"full": 4000, "quick": 2000, "tiny": 500}[mode]
        from peakresults.tools.likwid import membench_array_bytes
        arr = membench_array_bytes(n * n * 8, 1)
        lp = ["linpack", "--n", n, "--threads", tmax] + reps[:3]
        # hpcc's STREAM runs the code its binary was built with, not the CPU's widest ISA:
        # membench runs the ISA read from the binary's timed Triad loop (tools/hpcc.py;
        # Debian's is scalar, movsd/mulsd/addsd, one double per instruction).
        hisa, how = hpcc_vector_isa()
        st = ["membench", "--test", "stream", "--size", f"{n * n * 8}B", "--threads", 1, "--nt", "off",
              "--isa", hisa] + heap_pages_args(o) + reps
        jobs.append(PairJob("hpcc", "hpcc", "cpu", script("hpcc", "--threads", str(tmax), "--n", str(n), "--ctx", f"stream_bytes={arr}", "--ctx", f"isa={hisa}"),
                            f"hpcc N={n} NB=192 P=Q=1 OPENBLAS_NUM_THREADS={tmax}",
                            [{"key": key("cpu", "linpack", "dgesv", tmax, None, "flops", "GFLOPS"),
                              "ours_job": " ".join(map(str, lp)),
                              "cause": "hpcc's HPL (blocked right-looking LU, NB=192) and linpack's LAPACK dgesv "
                                       "on OpenBLAS are different factorisations of the same N"},
                             {"key": key("memory", "stream", f"triad-{hisa}", 1, arr, "throughput", "MB/s"),
                              "ours_job": " ".join(map(str, st)),
                              "cause": "" if how == "measured" else how}],
                            [("hpl", lp), ("stream", st)], est={"full": 35, "quick": 12, "tiny": 3}[mode],
                            ours_est={"full": 8, "quick": 4, "tiny": 2}[mode]))
    if "disk" in want and have_tool(o, "fio"):
        huge = hugetlb_room(o, 41)
        shared = "" if huge else shared_buffer_dir(o)
        fsize = {"full": "1GiB", "quick": "256MiB", "tiny": "16MiB"}[mode]
        runtime = {"full": "3", "quick": "1", "tiny": "1"}[mode]
        # A 1 MiB transfer's speed on a VM disk follows its buffer's DMA segments: on 4 KiB
        # pages, as many as the pages' physical order makes (docs/benchmarks.md, fifth
        # session: 9-67 in one process, 244-257 in another, a 2x). The same job is the same
        # pages: huge pages from the hugetlb pool on both sides when it has room, else
        # diskbench's --buffer-dir files on tmpfs, which fio maps too (--mem=mmapshared), so
        # both tools do their I/O from the very same physical pages. Without /dev/shm:
        # scattered 4 KiB pages, the layout fio's malloc buffer mostly has, with the cause.
        pages = ["--buffer-pages", "hugetlb"] if huge else ["--buffer-dir", shared] if shared else \
            ["--buffer-pages", "scattered"]
        # Both on one CPU (diskbench --cpus, fio --cpus_allowed): each left to the scheduler,
        # the I/O thread lands near the disk's interrupts or not (a VM's virtio queue
        # interrupts often all go to one vCPU), measured 10-11k against 14-17k 4 KiB reads
        # a second on this VM, for either tool (docs/benchmarks.md, sixth session).
        cpu0 = str(pair_cpus()[0])
        # two parts, so that each test runs only the blocks and engines it is paired on
        base = ["diskbench", "--dir", disk_dir, "--file-size", fsize, "--runtime", f"{float(runtime) / 3:.3g}",
                "--threads", "1", "--cpus", cpu0] + pages + reps[:3]
        # --data-period 1MiB with fio's --scramble_buffers=0: both write one unchanging
        # megabyte, the same data (docs/benchmarks/disk.md: distinct vs repeated data is
        # worth about 10% on a VM disk, and fio's default scrambles its buffer per write).
        seq = base[:1] + ["--test", "seq_write,seq_read", "--block", "1MiB", "--engine", "psync",
                          "--data-period", "1MiB"] + base[1:]
        rand = base[:1] + ["--test", "rand_read", "--block", "4KiB", "--engine", "all"] + base[1:]
        sjob, rjob = " ".join(map(str, seq)), " ".join(map(str, rand))
        # diskbench's warm-up before each point's repetitions: up to --min-time of I/O
        # (its default 0.2 s); fio ramps up as long before it counts
        ramp_ms = round(float(o.min_time or "0.2") * 1000)
        rkey = key("disk", "seq_read", "psync", 1, 1 << 20, "throughput", "MB/s")
        # Our best beside, where the kernel gives huge pages the pairing did not use (THP):
        # a 1 MiB transfer in one DMA segment.
        with_best = not huge and thp_available(o)
        best_seq = seq[:seq.index(pages[0])] + ["--buffer-pages", "auto"] + seq[seq.index(pages[0]) + 2:]
        small_cause = "" if huge or shared else (
            "both on 4 KiB pages, whose physical order sets the DMA segments of a 1 MiB transfer: "
            "diskbench's scattered buffer has 256 every time, fio's malloc buffer as many as the kernel's "
            "free lists gave (measured 244-257, once 32)")
        figs = [dict({"key": rkey, "ours_job": sjob, "cause": small_cause},
                     **({} if not with_best else {
                         "best_key": rkey, "best_job": " ".join(map(str, best_seq)),
                         "best_cause": "diskbench's best takes the transparent huge pages the kernel gives "
                                       "(--buffer-pages auto): a 1 MiB transfer is one DMA segment, on fio's "
                                       "4 KiB pages up to 256"})),
                {"key": key("disk", "seq_write", "psync", 1, 1 << 20, "throughput", "MB/s"), "ours_job": sjob,
                 "cause": small_cause},
                {"key": key("disk", "rand_read", "psync", 1, 4096, "iops", "IOPS"), "ours_job": rjob, "cause": ""},
                {"key": key("disk", "rand_read", "uring-qd32", 1, 4096, "iops", "IOPS"), "ours_job": rjob, "cause": ""}]
        mem = ["--mem", "shmhuge"] if huge else ["--buffer-dir", shared] if shared else ["--mem", "malloc"]
        fio_mem = "shmhuge" if huge else f"mmapshared:{shared}/{{read,write}}.buf" if shared else "malloc"
        jobs.append(PairJob("fio", "fio", "disk", script("fio", "--threads", "1", "--dir", disk_dir, "--tests",
                                                          "seq_write,seq_read,rand_read", *mem, "--same-data",
                                                          "--ramp-ms", str(ramp_ms), "--cpu", cpu0),
                            f"fio --direct=1 --numjobs=1 --cpus_allowed={cpu0} --size={fsize} --runtime={runtime} "
                            f"--mem={fio_mem} --scramble_buffers=0 --ramp_time={ramp_ms}ms "
                            f"(seq 1M psync, rand 4k psync and io_uring qd32)",
                            figs, [("seq", seq), ("rand", rand)], [("seq", best_seq)] if with_best else [],
                            est=int(float(runtime) * 4 + 4),
                            ours_est=int(float(runtime) * 2 * 4 / 3 + 3)))
    if "network" in want and have_tool(o, "iperf3"):
        # iperf3 3.12 runs every stream in one thread and sends UDP without GSO: the
        # like-for-like rows are netbench at one thread, and --no-gso for UDP (both unpaced,
        # as iperf3 -b 0); our best configuration is beside them.
        # Client and server on fixed CPUs, the same for both tools (netbench --cpus and
        # --server-cpus, iperf3 -A C,S): left to the scheduler, where a loopback receiver
        # wakes changed iperf3's TCP stream between 9 and 24 Gbit/s from round to round
        # (docs/benchmarks.md, sixth session). Our best configuration is left unpinned.
        # TCP between two CPUs may run as fast as where the host put them (one probe, seventh
        # session: iperf3 14.2-15.0 Gbit/s with the vCPUs 52 ns apart, 12.8 in the one run
        # during which they moved 300 ns apart): placement-matched rounds of one run each. UDP keeps the plain five rounds of three
        # runs (within 0.97-1.04 in the sixth session's full runs; matched rounds for it too
        # would cost 80 s more).
        cpu0, scpu = map(str, pair_cpus())
        pin = ["--cpus", cpu0, "--server-cpus", scpu]
        matched = cpu0 != scpu
        tcp_reps = reps1 if matched else reps
        tcp = ["netbench", "loopback", "--test", "tcp_throughput", "--buffer", "64KiB", "--time", secs,
               "--threads", "1"] + pin + tcp_reps
        tcp_best = ["netbench", "loopback", "--test", "tcp_throughput", "--buffer", "64KiB", "--time", secs,
                    "--threads", tmax] + tcp_reps
        # iperf3 3.12 sends one datagram per send(): --no-gso --send-batch 1 is that job
        udp = ["netbench", "loopback", "--test", "udp_throughput", "--datagram", "1472B", "--time", secs,
               "--threads", "1", "--no-gso", "--send-batch", "1"] + pin + reps
        udp_best = ["netbench", "loopback", "--test", "udp_throughput", "--datagram", "1472B", "--time", secs,
                    "--threads", "1"] + reps
        tkey = key("network", "tcp_throughput", "tcp", 1, 65536, "throughput", "Gbit/s")
        ukey = key("network", "udp_throughput", "udp", 1, 1472, "throughput", "Gbit/s")
        tfig = dict({"key": tkey, "ours_job": " ".join(map(str, tcp)), "cause": ""},
                    **({"best_key": dict(tkey, threads=tmax), "best_job": " ".join(map(str, tcp_best)),
                        "best_cause": f"iperf3 3.12 runs every stream in one thread; netbench's best runs "
                                      f"{tmax} threads"} if tmax > 1 else {}))
        ufig = {"key": ukey, "ours_job": " ".join(map(str, udp)), "cause": "",
                "best_key": ukey, "best_job": " ".join(map(str, udp_best)),
                "best_cause": "netbench's best sends with UDP GSO (UDP_SEGMENT: one send call for many "
                              "datagrams); iperf3 3.12 sends one datagram per call"}
        for jid, test, fig, part, argv, best, extra, runs in (
                ("iperf3-tcp", "tcp_throughput", tfig, "tcp", tcp, [("tcp", tcp_best)] if tmax > 1 else [],
                 "-l 64K", 1 if matched else 3),
                ("iperf3-udp", "udp_throughput", ufig, "udp", udp, [("udp", udp_best)], "-u -b 0 -l 1472 -w 4M", 3)):
            jobs.append(PairJob(jid, "iperf3", "network",
                                script("iperf3", "--threads", "1", "--tests", test, "--seconds", secs,
                                       "--cpu", cpu0, "--server-cpu", scpu),
                                f"iperf3 -c 127.0.0.1 -P 1 -t {secs} -O 1 -A {cpu0},{scpu} {extra}",
                                [fig], [(part, argv)], best, est=int(secs) + 3,
                                ours_est=int(float(secs) * (runs + 1) + 1),
                                matched=matched and jid == "iperf3-tcp"))
    if "network" in want and have_tool(o, "sockperf"):
        # Client and server on one CPU for both tools: a ping-pong across two vCPUs waits
        # for the host to wake the other vCPU each way, which gave 65-84 us round trips alone
        # and 164-245 us under 1.2% steal, in rounds that swung 0.47-1.26; on one CPU it is
        # a context switch, 14-16 us for either tool (docs/benchmarks.md, sixth session).
        cpu0 = scpu = str(pair_cpus()[0])
        argv = ["netbench", "loopback", "--test", "tcp_latency", "--msg-size", "16B", "--time", secs,
                "--threads", "1", "--cpus", cpu0, "--server-cpus", scpu] + reps
        jobs.append(PairJob("sockperf", "sockperf", "network", script("sockperf", "--tests", "tcp_latency",
                                                                        "--seconds", secs, "--cpu", cpu0,
                                                                        "--server-cpu", scpu),
                            f"taskset -c {cpu0} sockperf ping-pong --tcp -m 16 -t {secs} --full-rtt "
                            f"(server: taskset -c {scpu})",
                            [{"key": key("network", "tcp_latency", "tcp", 1, 16, "latency", "us"),
                              "ours_job": " ".join(map(str, argv)), "cause": ""}],
                            [("", argv)], est=int(secs) + 2, ours_est=int(float(secs) * 4 + 2)))
    return jobs


def cluster_step(o) -> Step:
    """The cluster part (docs/cluster.md): scripts/cluster_run.sh when present;
    run_all.sh skips the step with the reason otherwise."""
    argv = ["scripts/cluster_run.sh", "--hostfile", os.path.abspath(o.hostfile)]
    if o.mpirun:
        argv += ["--mpirun", o.mpirun]
    argv += ["--mode", mode_of(o), "--out", os.path.join(o.out, "raw"), "--build-dir", o.build_dir]
    est = {"full": 300, "quick": 60, "tiny": 10}[mode_of(o)]
    return Step("cluster", "cluster", est, "script", "scripts/cluster_run.sh", "cluster", argv)


def settings(o, steps) -> dict:
    # the paired disk job's shared buffers (diskbench --buffer-dir): run_all.sh removes them
    bufdirs = {s.argv[i + 1] for s in steps for i, a in enumerate(s.argv[:-1]) if a == "--buffer-dir"}
    return {"out": o.out, "build_dir": o.build_dir, "disk_dir": o.disk_dir or "",
            "buffer_dir": " ".join(sorted(bufdirs)),
            "build": "0" if o.no_build else "1", "threads": o.threads, "reps": str(o.reps),
            "quick": "1" if o.quick else "0", "peer": o.peer or "",
            "steps": str(len(steps)), "total_est": str(sum(s.est for s in steps))}


def write_nul(o, steps, out) -> None:
    """Settings as key=value fields up to an empty field; then per step: suite, name,
    estimate, kind, binary, output name, the quoted command, argv..., an empty field."""
    fields = [f"{k}={v}" for k, v in settings(o, steps).items()] + [""]
    for s in steps:
        fields += [s.suite, s.name, str(s.est), s.kind, s.binary, s.outf, s.command()] + s.argv + [""]
    out.write("".join(f + "\0" for f in fields))


def write_text(o, steps, out) -> None:
    total = sum(s.est for s in steps)
    out.write(f"peakbench plan: {len(steps)} steps, estimated {fmt_duration(total)} "
              f"(threads {o.threads}, reps {o.reps}{', quick' if o.quick else ''})\n")
    out.write(f"results: {o.out}\n")
    for i, s in enumerate(steps, 1):
        out.write(f"{i:2d}. {s.suite:<8} {s.name:<22} ~{fmt_duration(s.est):<7} {s.command()}\n")


def main(argv: list) -> int:
    """`peakresults plan [run_all.sh options] [--nul] [--write-pairs]`: the plan as text
    (what --dry-run prints) or NUL-separated for run_all.sh; --write-pairs also writes each
    paired job's OUT/raw/pairs/<id>/job.json from the same plan. Usage errors: one line,
    exit 2."""
    try:
        o = parse_options(argv)
    except UsageError as e:
        print(f"run_all.sh: {e} (see ./run_all.sh --help)", file=sys.stderr)
        return 2
    if o.help:
        sys.stdout.write(USAGE)
        return 0
    steps = build_plan(o)
    if o.write_pairs and not o.dry_run:
        # run_all.sh, before the steps: each paired job's job.json, from the same plan
        for job in o.pair_jobs:
            d = os.path.join(o.out, "raw", "pairs", job.id)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "job.json"), "w") as f:
                json.dump(job.doc(), f, indent=1)
    try:
        if o.nul and not o.dry_run:
            write_nul(o, steps, sys.stdout)
        else:
            write_text(o, steps, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `--dry-run | head`
        sys.stderr.close()
    return 0
