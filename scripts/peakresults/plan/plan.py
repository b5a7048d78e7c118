"""run_all.sh's plan: the steps its options make (suite, name, estimated seconds, kind,
binary, output name, the condition of a paired round that runs only while needed, argv).
run_all.sh reads them NUL-separated (no eval) and keeps the sequencing: progress, locks,
calling the binaries, status.tsv, commands.txt. The options are plan_options.py's, the
paired jobs plan_pairs.py's; docs/benchmarks/suite.md lists the steps."""
import json
import os
import re
import shutil
import sys

from ..adapters.hpcc import PAIR_N
from ..core.cache_env import measured as measured_caches
from . import plan_pairs
from .plan_options import (BASELINE_TOOLS, FULL_MIN_TIME, SUITES, TOOL_PROGRAM, USAGE, Step,  # noqa: F401
                           UsageError, fmt_duration, have_tool, mode_of,
                           parse_options, parts_estimate, shquote, stall_limit)
from .plan_pairs import pair_jobs


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


def build_plan(o) -> list:
    """The steps, in order. Estimates: points x (reps + 1 warm-up) x seconds per
    repetition, point counts calibrated on the development machine."""
    steps = []
    full = not o.quick
    # The full protocol's first pass takes --reps repetitions a point (the PA1 protocol's
    # three), more while --ci and the point's budget allow; the second pass (at the end)
    # adds one to a representative subset, minutes later (issue 13, item 4; issue 26).
    split = full
    reps = o.reps
    nthreads = len(o.threads.split(","))
    rep_s = float(o.min_time)
    common = ["--threads", o.threads, "--reps", str(reps), "--quiet", "--min-time", o.min_time]
    disk_dir = o.disk_dir or os.path.join(o.out, "disk-tmp")
    want = set(o.suites)
    # OpenBLAS threads, the second pass's counts: the largest count that fits the CPUs.
    tmax = max([1] + [int(t) for t in o.threads.split(",") if int(t) <= o.ncpu])

    # --quick keeps its repetitions: --ci 0, no more than --reps. The full protocol's go on
    # until the interval is narrow (--ci, docs/methodology.md), up to a cap per suite sized
    # by what a repetition costs: a CPU kernel's 0.2 s, but a disk point's untimed layout and
    # cache drop, a 20 s linpack solve, and membench's 540 points.
    def fixed(suite, rep_len=None):
        if o.quick:
            return ["--ci", "0"]
        argv = ["--max-reps", str(reps + FULL_EXTRA_REPS[suite])]
        if suite in FULL_BUDGET_REPS:
            # the budget in repetitions of the suite's length (--min-time, a disk --runtime)
            budget = FULL_BUDGET_REPS[suite] * float(rep_len or o.min_time)
            argv += ["--point-budget", f"{budget:g}"]
        return argv

    def est(points, secs, r=None):
        """points x (repetitions + calibration's about two, the last the warm-up) x seconds each"""
        return int(points * ((r if r is not None else reps) + 2) * secs + 1)

    def est_disk(points, runtime):
        """A disk point: its time-based repetitions, the warm-up (--min-time at most) and
        what is not timed (the file's layout and cache drop, the I/O each thread finishes
        past the runtime at 8 and 80 MiB blocks): 1.3 s a point in the full run's 725 s
        for 288 points on a 2-vCPU VM."""
        extra = 0.1 if o.tiny else 0.5 if o.quick else 1.3
        return int(points * (reps * float(runtime) + rep_s + extra) + 1)

    def add(*a):
        steps.append(Step(*a))

    # The sweeps the second pass repeats: (step, its options for the second pass). It
    # re-measures a representative subset, not the whole sweep (see pass2_argv).
    sweeps = []

    add("info", "peakinfo", 5, "bench", "peakinfo", "peakinfo", ["peakinfo", "--quiet"])
    if "cpu" in want:
        isa = "best" if o.tiny else "all"
        add("cpu", "cpubench", est(53 * nthreads, rep_s), "bench", "cpubench", "cpu-cpubench",
            ["cpubench", "--test", "flops,iops", "--isa", isa, "--precision", "sp,dp"] + common + fixed("cpu"))
        sweeps.append((steps[-1], {"--threads": pass2_threads(o, tmax)}))
        # --quick: N = hpcc's own in --quick (adapters/hpcc.py), the problem its HPL
        # figure is joined with: --max-time 5 chose an N small enough that linpack read 0.66
        # of hpcc's HPL, against 1.09 in the full run (N about 8000 for --max-time 20, hpcc
        # 8000); a dgesv of 2880 is well under a second on 2 vCPUs, 66 MB.
        lp = ["--n", "200"] if o.tiny else ["--n", str(QUICK_LINPACK_N)] if o.quick else ["--max-time", "20"]
        # (--n 200 takes well under a second: the bash plan took 200 for seconds there)
        lp_s = 0.5 if o.tiny else 2.0 if o.quick else float(lp[1])
        add("cpu", "linpack", int(est(1, lp_s) * 3 / 4), "bench", "linpack", "cpu-linpack",
            ["linpack"] + lp + ["--threads", tmax, "--reps", reps, "--quiet"] + fixed("linpack"))
        sweeps.append((steps[-1], {}))
    if "memory" in want:
        size, blocks, sweep, tests = "1GiB", "8B,8KiB,8MiB,80MiB", "4KiB:1GiB", "all"
        if o.tiny:
            size, blocks, sweep = "16MiB", "8B,8KiB,1MiB", "4KiB:16MiB:1"
        elif o.quick:
            size, blocks, sweep = "256MiB", "8B,8KiB,8MiB,80MiB", "4KiB:64MiB:1"
        if o.quick and not o.tiny:  # (--tiny runs every test: the tests' end-to-end run)
            tests = QUICK_MEMORY_TESTS
        # points a thread count, calibrated: 135 for every test; --quick's tests took 25 s
        # of a 2-vCPU VM against 40 s for every test, so about 75
        add("memory", "membench", est((135 if tests == "all" else 75) * nthreads, rep_s), "bench", "membench",
            "memory-membench", ["membench", "--test", tests, "--block", blocks, "--size", size, "--sweep", sweep]
            + common + fixed("memory"))
        # The second pass: a cache-resident and a DRAM-sized block, and the latency curve at
        # one size per power of two (sizes the first pass's curve holds). The whole sweep
        # again took 152 s of a 2-vCPU VM's full run, half of it the latency curve.
        p2_blocks = ",".join(b for b in blocks.split(",") if b in ("8KiB", "80MiB")) or blocks
        sweeps.append((steps[-1], {"--threads": pass2_threads(o, tmax), "--block": p2_blocks,
                                   "--sweep": ":".join(sweep.split(":")[:2] + ["1"])}))
        # Bandwidth of each memory level for the roofline: reads over a buffer that fits
        # the level (half of it per thread for private caches), every CPU reading. The
        # level's effective size: run_all.sh measured the run's latency knees (peakinfo
        # --caches) before this plan; where a knee says less than the machine, it wins.
        sysroot = o.sysroot or "/"
        knee = measured_caches()
        l1 = knee.get(1) or cache_bytes(1, 32768, sysroot)
        l2 = knee.get(2) or cache_bytes(2, 1048576, sysroot)
        l3 = knee.get(3) or cache_bytes(3, 33554432, sysroot)
        dram = "16MiB" if o.tiny else "256MiB" if o.quick else "1GiB"
        sizes = {"L1": f"{l1 * o.ncpu // 2048}KiB", "L2": f"{l2 * o.ncpu // 2048}KiB",
                 "L3": f"{l3 // 2048}KiB", "DRAM": dram}
        for lv in ("L1", "L2", "L3", "DRAM"):
            argv = ["membench", "--test", "seq_read", "--block", "4KiB", "--size", sizes[lv],
                    "--threads", o.ncpu, "--reps", o.reps, "--quiet"] + fixed("memory")
            if o.min_time:
                argv += ["--min-time", o.min_time]
            add("memory", f"bandwidth {lv}", est(1, rep_s, o.reps), "bench", "membench", f"levels-{lv}", argv)
    if "disk" in want:
        # Time-based repetitions (fio's time_based): a size-based pass of 4 KiB random reads
        # over 1 GiB takes 10-20 s here per repetition, and the plan has hundreds of points.
        fsize, dblocks, runtime, dtests = "1GiB", "8B,4KiB,8KiB,1MiB,8MiB,80MiB", "0.3", "all"
        if o.tiny:
            fsize, dblocks, runtime = "8MiB", "4KiB,1MiB", "0.05"
        elif o.quick:
            fsize, dblocks, runtime = "256MiB", "4KiB,1MiB", "0.2"
        if o.quick and not o.tiny:
            dtests = QUICK_DISK_TESTS
        blocks = dblocks.split(",")
        base = ["diskbench", "--dir", disk_dir, "--file-size", fsize]
        # Every test and block on psync (the PA1 workloads and blocks, the writes fio and
        # IOZone are compared on); io_uring where a queue of 32 changes the answer: reads of
        # small blocks (fio's io_uring rows are 4 KiB random reads). Until issue 26 io_uring
        # ran every point too, half of the disk sweep's 725 s on a 2-vCPU VM.
        ntests = 6 if dtests == "all" else len(dtests.split(","))
        add("disk", "diskbench", est_disk(ntests * len(blocks) * nthreads, runtime), "bench", "diskbench",
            "disk-diskbench", base + ["--test", dtests, "--block", dblocks, "--engine", "psync",
                                      "--runtime", runtime] + common + fixed("disk", runtime))
        # The second pass: the PA1 workloads and the overwrite, at the blocks the reference
        # tools are compared at (4 KiB: IOPS, 1 MiB: bandwidth), 1 thread and all CPUs.
        p2_blocks = ",".join(b for b in blocks if b in ("4KiB", "1MiB")) or blocks[0]
        sweeps.append((steps[-1], {"--threads": pass2_threads(o, tmax), "--test": "seq_rw,seq_read,rand_read,seq_write",
                                   "--block": p2_blocks}))
        ublocks = ",".join(b for b in blocks if b in ("4KiB", "8KiB", "1MiB")) or blocks[0]
        add("disk", "diskbench io_uring", est_disk(2 * len(ublocks.split(",")) * nthreads, runtime), "bench",
            "diskbench", "disk-diskbench-uring", base + ["--test", "seq_read,rand_read", "--block", ublocks,
                                                         "--engine", "uring", "--runtime", runtime]
            + common + fixed("disk", runtime))
        if o.sustain_s:  # one sequential read held: burst and baseline (docs/disk.md)
            add("disk", "diskbench --sustain", o.sustain_s + 10, "bench", "diskbench", "disk-sustain",
                base + ["--sustain", f"{o.sustain_s}s", "--quiet"])
            steps[-1].limit = stall_limit(0, o.sustain_s + 10)
    if "network" in want:
        nbytes = "1MiB" if o.tiny else "128MiB" if o.quick else "1GiB"
        # --tiny: the latency tests 0.05 s a repetition, not netbench's default second (--bytes
        # sizes the throughput tests, --time the latency tests)
        amount = ["--bytes", nbytes] + (["--time", TINY_LATENCY_S] if o.tiny else [])
        add("network", "netbench", est(4 * nthreads, 1), "bench", "netbench", "network-netbench",
            ["netbench", "loopback", "--test", "all", "--buffer", "64KiB"] + amount + common
            + fixed("network", NETWORK_REP_S))
        sweeps.append((steps[-1], {"--threads": pass2_threads(o, tmax)}))
        if o.peer:
            add("network", f"netbench --peer {o.peer}", est(4 * nthreads, 2), "bench", "netbench",
                "network-remote", ["netbench", "client", "--host", o.peer, "--test", "all",
                                   "--buffer", "64KiB"] + amount + common + fixed("network"))
            sweeps.append((steps[-1], {"--threads": pass2_threads(o, tmax)}))
        if o.sustain_s:  # to the peer when there is one: a provider shapes what leaves the VM
            where = ["client", "--host", o.peer] if o.peer else ["loopback"]
            add("network", "netbench --sustain", o.sustain_s + 5, "bench", "netbench", "network-sustain",
                ["netbench"] + where + ["--sustain", f"{o.sustain_s}s", "--quiet"])
            steps[-1].limit = stall_limit(0, o.sustain_s + 5)
    if "dpdk" in want:
        # a repetition of 0.5 s is millions of packets even at 9000 B (issue 26: 1 s cost
        # the full protocol about 80 s more)
        sizes, flows, pflows, t = "64,1500,9000", "1,8,32,256", "1,8", "0.5"
        if o.quick:
            flows, pflows, t = "1,32", "1", QUICK_DPDK_S
        if o.tiny:
            sizes, flows, pflows, t = "64", "1", "1", "0.1"
        nsizes, tf = len(sizes.split(",")), float(t)
        # Hugepages when enough are free (much faster), else ordinary memory: the EAL
        # arguments say which, in the plan and in the results' context (dpdk_eal_args).
        add("dpdk", "dpdkbench", est(3 * 4, tf, o.reps), "bench", "dpdkbench", "dpdk-dpdkbench",
            ["dpdkbench", "-l", "0"] + dpdk_eal_mem(1, 512) +
            ["--no-pci", "--no-telemetry", "--log-level=*:critical", "--file-prefix=peakbench-runall",
             "--vdev=net_ring0", "--", "--role", "loopback", "--sizes", sizes, "--flows", flows,
             "--time", t, "--reps", o.reps] + fixed("dpdk"))
        # Tester and dut in two processes over net_memif, one CPU each, both directions.
        add("dpdk", "memif pair", est(nsizes * len(pflows.split(",")), tf, o.reps) + 3, "bench",
            "dpdkbench", "dpdk-memif", ["scripts/dpdk_memif_pair.sh", "dpdkbench", "--sizes", sizes,
                                        "--flows", pflows, "--direction", "bi", "--time", t, "--reps", o.reps]
            + fixed("dpdk"))
        # The same pair at a light load (0.1 Mpps per direction): the round trip without
        # queueing in full rings, comparable with the kernel's ping-pong below.
        add("dpdk", "memif latency", est(nsizes, tf, o.reps) + 3, "bench", "dpdkbench", "dpdk-memif-rate",
            ["scripts/dpdk_memif_pair.sh", "dpdkbench", "--sizes", sizes, "--flows", "1", "--direction",
             "bi", "--rate", "0.1", "--time", t, "--reps", o.reps] + fixed("dpdk"))
        # The kernel's UDP path at the same sizes: a frame of S bytes (with FCS) carries
        # S - 46 bytes of UDP payload. One connection, as the pair runs one tester lcore.
        payloads = ",".join(f"{int(s) - 46}B" for s in sizes.split(","))
        add("dpdk", "kernel udp", est(2 * nsizes, tf, o.reps), "bench", "netbench", "network-udpframes",
            ["netbench", "loopback", "--test", "udp_throughput,udp_latency", "--datagram", payloads,
             "--msg-size", payloads, "--time", t, "--threads", "1", "--reps", o.reps, "--quiet"]
            + fixed("network", t))
    # The tools' own sweep, unpaired: its figures carry no ratio (the paired rounds are the
    # comparison), so only --tiny runs it, to test each tool's parser end to end. It took
    # 82 of --quick's 413 s and about 285 s of the full protocol on a 2-vCPU VM (issue 26).
    if not o.no_baselines and o.tiny:
        steps += baseline_steps(o, want, disk_dir)
    o.pair_jobs = pair_jobs(o, want, disk_dir) if not o.no_baselines else []
    for job in o.pair_jobs:
        steps += plan_pairs.steps(job, o)
    if o.hostfile:
        steps.append(cluster_step(o))
    if split:
        # The second pass, at the end: one repetition of a representative subset of each
        # sweep (pass2_argv), pooled into the first pass's rows of the same points.
        for s, subset in sweeps:
            argv, kept = pass2_argv(s.argv, subset)
            argv += ["--ci", "0"]  # one repetition: the point is a sample minutes later
            steps.append(Step(s.suite, s.name + " pass 2", max(1, int(s.est * kept) * 3 // (reps + 2)), s.kind,
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


# The full protocol's first pass: repetitions past --reps the --ci target may add (a
# point's cap, --max-reps, is --reps plus these; the second pass adds one more sample).
FULL_EXTRA_REPS = {"cpu": 3, "linpack": 0, "memory": 2, "disk": 1, "network": 1, "dpdk": 2}
# ... and only while the point's measured time stays within its budget (--point-budget):
# this many repetitions of the suite's length (--min-time for cpu and memory, --runtime
# for disk, NETWORK_REP_S for a netbench run), so a noisy point gets one or two more and a
# slow one (an 80 MiB block, a 1 GiB chase) none. With the caps alone the first pass took
# 1,541 s of a 2-vCPU VM's full run, 623 of 1,226 rows at their cap (issue 26).
FULL_BUDGET_REPS = {"cpu": 5, "memory": 5, "disk": 4, "network": 4}
TINY_LATENCY_S = "0.05"  # --tiny's latency repetitions (its numbers are meaningless anyway)
NETWORK_REP_S = 0.5  # a netbench throughput run of 1 GiB on loopback, about
QUICK_LINPACK_N = PAIR_N["quick"]  # hpcc's N in --quick's paired job (adapters/hpcc.py)
# --quick's tests: the PA1 workloads (memory: sequential and random read+write; disk:
# sequential read+write, sequential read, random read) and the ones the report's summary
# leads with (STREAM triad, the latency curve; sequential write). The full protocol runs
# every test. membench's read-only and write-only tests were 27 of --quick's 40 memory
# seconds, diskbench's random write and first write 8 of its 28 (2-vCPU VM, issue 26).
QUICK_MEMORY_TESTS = "seq_rw,rand_rw,latency,stream"
QUICK_DISK_TESTS = "seq_rw,seq_read,seq_write,rand_read"
# --quick's dpdk repetitions: 0.25 s is still millions of packets at 64 B
QUICK_DPDK_S = "0.25"


def pass2_threads(o, tmax: int) -> str:
    """The second pass's thread counts: the smallest of the run's and the largest that fits
    the CPUs (1 and 2 of 1,2,4,8 on 2 vCPUs). Counts past the CPUs measure how the
    scheduler shares them; the second pass is there to see the VM drift between minutes
    (its modes) in the figures the report leads with."""
    ts = [int(t) for t in o.threads.split(",")]
    keep = sorted({min(ts)} | ({tmax} & set(ts)))
    return ",".join(map(str, keep))


def pass2_argv(argv: list, subset: dict) -> tuple:
    """(argv with --reps 1 and SUBSET's option values, the share of the points kept)."""
    out = list(argv)
    out[out.index("--reps") + 1] = "1"
    kept = 1.0
    for opt, val in subset.items():
        i = out.index(opt) + 1
        old = out[i].split(",")
        n_old = 6 if old == ["all"] else len(old)
        if opt != "--sweep":  # (a coarser latency curve shrinks with the blocks: not counted twice)
            kept *= len(val.split(",")) / n_old
        out[i] = val
    return out, kept


BASELINE_EST = {"tiny": {"hpcc": 5, "likwid": 5, "fio": 5, "iperf3": 3, "sockperf": 3}}
def baseline_steps(o, want, disk_dir) -> list:
    """The tools' own sweep: one step per adapter whose suites are wanted (a second when the
    tool is missing: the adapter writes its skipped entries)."""
    from .. import adapters
    mode = mode_of(o)
    steps = []
    for b in BASELINE_TOOLS:
        ad = adapters.get(b)
        if not want.intersection(ad.SUITES):
            continue
        be = BASELINE_EST.get(mode, {}).get(b, 5) if have_tool(o, b) else 1
        argv = adapters.argv(b, mode, "--threads", o.threads, "--raw", os.path.join(o.out, "raw"),
                             *ad.baseline_extra(o, disk_dir))
        steps.append(Step("baseline", b, be, "baseline", "python3", f"baseline-{b}", argv))
    return steps


def cluster_step(o) -> Step:
    """The cluster part (docs/cluster.md): scripts/cluster_run.sh when present (with hpcc
    across the nodes unless --no-baselines);
    run_all.sh skips the step with the reason otherwise."""
    argv = ["scripts/cluster_run.sh", "--hostfile", os.path.abspath(o.hostfile)]
    if o.mpirun:
        argv += ["--mpirun", o.mpirun]
    argv += ["--mode", mode_of(o), "--out", os.path.join(o.out, "raw"), "--build-dir", o.build_dir]
    if o.no_baselines:
        argv.append("--no-hpcc")  # hpcc across the nodes is a reference tool too
    est = {"full": 300, "quick": 60, "tiny": 10}[mode_of(o)]
    return Step("cluster", "cluster", est, "script", "scripts/cluster_run.sh", "cluster", argv)


def settings(o, steps) -> dict:
    # the paired disk job's shared buffers (diskbench --buffer-dir): run_all.sh removes them
    bufdirs = {s.argv[i + 1] for s in steps for i, a in enumerate(s.argv[:-1]) if a == "--buffer-dir"}
    return {"out": o.out, "build_dir": o.build_dir, "disk_dir": o.disk_dir or "",
            "buffer_dir": " ".join(sorted(bufdirs)),
            "build": "0" if o.no_build else "1", "threads": o.threads, "reps": str(o.reps),
            "quick": "1" if o.quick else "0", "peer": o.peer or "",
            # the placement calibration's gap between fingerprints (run_all.sh): none in --tiny
            "calibration_gap": "0" if o.tiny else "0.2",
            "conf_set": "\n".join(o.set),
            "steps": str(len(steps)), "total_est": str(sum(s.est for s in steps if not s.cond)),
            "total_max": str(sum(s.est for s in steps))}


def shortened(o) -> list:
    """What --quick (or --tiny) measures less of than the full protocol, one phrase each
    (OUT/plan.json "shortened", for the report); [] for the full protocol."""
    if not o.quick:
        return []
    from . import plan_pairs as pp
    m = mode_of(o)
    out = []
    if o.threads != "1,2,4,8":
        out.append(f"threads {o.threads} (full: 1,2,4,8)")
    if o.min_time != FULL_MIN_TIME:
        out.append(f"repetitions of at least {o.min_time} s (full: {FULL_MIN_TIME} s)")
    out.append("one pass (full: a second pass of a subset at the end)")
    want = set(o.suites)
    if "cpu" in want:
        out.append(f"linpack N={200 if o.tiny else QUICK_LINPACK_N} (full: N for a 20 s solve)")
    if "memory" in want:
        out.append("memory " + ("16 MiB, latency sweep to 16 MiB" if o.tiny else "256 MiB, latency sweep to 64 MiB")
                   + " (full: 1 GiB, to 1 GiB)")
        if not o.tiny:
            out.append(f"memory tests {QUICK_MEMORY_TESTS} (full: also the read-only and write-only tests)")
    if "disk" in want:
        out.append("disk file " + ("8 MiB, 0.05 s" if o.tiny else "256 MiB, 0.2 s") + " a repetition, blocks "
                   "4KiB,1MiB (full: 1 GiB, 0.3 s, blocks 8B,4KiB,8KiB,1MiB,8MiB,80MiB)")
        if not o.tiny:
            out.append(f"disk tests {QUICK_DISK_TESTS} (full: also random write and first write)")
    if "network" in want:
        out.append("netbench " + (f"1 MiB a run, latency {TINY_LATENCY_S} s" if o.tiny else "128 MiB a run")
                   + " (full: 1 GiB, latency 1 s)")
    if "dpdk" in want:
        out.append("dpdk " + ("64 B, 1 flow, 0.1 s" if o.tiny else f"flows 1,32, {QUICK_DPDK_S} s") +
                   " (full: 64,1500,9000 B, flows 1,8,32,256, 0.5 s)")
    if getattr(o, "pair_jobs", None):
        out.append(f"{pp.ROUNDS[m]} paired round a job: a ratio, no interval (full: {pp.ROUNDS['full']} to "
                   f"{pp.ROUNDS_MAX['full']}, {pp.ROUNDS_MATCHED['full']} to {pp.ROUNDS_MATCHED_MAX['full']} "
                   "placement-matched, while a verdict can still change: its interval across 0.90 or 1.10)")
        out.append("no traced round (full: every disk and network pair once more under strace)")
        out.append("our best configuration " + ("run" if pp.BEST_ROUNDS[m] else "not run")
                   + " (full: in the first round)")
    return out


def write_plan_json(o, steps, path: str) -> None:
    """OUT/plan.json: the mode, what it shortened, the estimates (for the report)."""
    doc = {"mode": mode_of(o), "threads": o.threads, "reps": o.reps, "shortened": shortened(o),
           "steps": len(steps), "conditional_steps": sum(1 for s in steps if s.cond),
           "total_est_s": sum(s.est for s in steps if not s.cond), "total_max_s": sum(s.est for s in steps),
           "parts": [{"part": p, "est_s": e, "max_s": m} for p, e, m in parts_estimate(steps)]}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def write_nul(o, steps, out) -> None:
    """Settings as key=value fields up to an empty field; then per step: suite, name,
    estimate, kind, binary, output name, condition ("" or "pairs JOB K"), stall limit (seconds,
    0: none), the quoted command, argv..., an empty field."""
    fields = [f"{k}={v}" for k, v in settings(o, steps).items()] + [""]
    for s in steps:
        fields += [s.suite, s.name, str(s.est), s.kind, s.binary, s.outf, s.cond, str(s.limit),
                   s.command()] + s.argv + [""]
    out.write("".join(f + "\0" for f in fields))


def write_text(o, steps, out) -> None:
    total = sum(s.est for s in steps if not s.cond)
    out.write(f"peakbench plan: {len(steps)} steps, estimated {fmt_duration(total)} "
              f"(threads {o.threads}, reps {o.reps}{', quick' if o.quick else ''})\n")
    out.write(f"results: {o.out}\n")
    extra = [s for s in steps if s.cond]
    if extra:
        out.write(f"{len(extra)} steps marked 'if needed': paired rounds past the least, run while a job's "
                  f"verdict can still change: up to {fmt_duration(sum(s.est for s in extra))} more\n")
    out.write("parts: " + ", ".join(f"{p} ~{fmt_duration(e)}" + (f" (up to {fmt_duration(m)})" if m > e else "")
                                    for p, e, m in parts_estimate(steps)) + "\n")
    limited = sorted({s.limit for s in steps if s.limit})
    if limited:
        out.write(f"a paired side or sustained run with no result after its limit ({fmt_duration(limited[0])}"
                  + (f" to {fmt_duration(limited[-1])}" if len(limited) > 1 else "")
                  + ", each step's below) is stopped as stalled: exit 1\n")
    for q in shortened(o):
        out.write(f"shortened: {q}\n")
    for i, s in enumerate(steps, 1):
        out.write(f"{i:2d}. {s.suite:<8} {s.name:<22} ~{fmt_duration(s.est):<7} "
                  f"{f'(stops at {fmt_duration(s.limit)}) ' if s.limit else ''}"
                  f"{'if needed: ' if s.cond else ''}{s.command()}\n")


def main(argv: list) -> int:
    """`peakresults plan [run_all.sh options] [--nul] [--write-pairs]`: the plan as text
    (what --dry-run prints) or NUL-separated for run_all.sh; --write-pairs also writes each
    paired job's OUT/raw/pairs/<id>/job.json and OUT/plan.json from the same plan. Usage
    errors: one line, exit 2."""
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
        # run_all.sh, before the steps: each paired job's job.json, from the same plan, and
        # OUT/plan.json (the mode, what it shortened, the estimates)
        os.makedirs(o.out, exist_ok=True)
        write_plan_json(o, steps, os.path.join(o.out, "plan.json"))
        for job in o.pair_jobs:
            d = os.path.join(o.out, "raw", "pairs", job.id)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "job.json"), "w") as f:
                json.dump(job.doc(plan_pairs.rounds(job, o)[1]), f, indent=1)
    try:
        if o.nul and not o.dry_run:
            write_nul(o, steps, sys.stdout)
        else:
            write_text(o, steps, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `--dry-run | head`
        sys.stderr.close()
    return 0
