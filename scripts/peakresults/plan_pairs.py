"""The paired jobs of issue 13 (plan.py's pair_jobs): the same job on both sides, derived
from ours, each laid out as alternating rounds of ordinary steps (PairJob.steps), and the
machine facts the jobs are derived from (pages, CPUs, the hpcc binary's ISA)."""
import os

from .plan_options import Step, have_tool, mode_of

# Rounds per paired job: (at least, at most). Rounds past the first count run only while
# the pairs are not enough (run_all.sh asks `peakresults pairs-enough` before each; pairs.py:
# the median ratio's 95% interval within 5% of it), so a quiet job stops at the least and a
# noisy one goes on to the cap, flagged pairs_wide. Six, because a distribution-free 95%
# interval of a median needs six values ([min, max] of five holds it 93.75% of the time).
# --quick and --tiny run a fixed count: too few for an interval, as their reports say.
ROUNDS = {"full": 6, "quick": 2, "tiny": 1}
ROUNDS_MAX = {"full": 8, "quick": 2, "tiny": 1}
# A job whose figures span two CPUs runs as fast as where the host put the vCPUs, which
# moves every few seconds on a shared VM host (docs/benchmarks.md, seventh session): pairs.py
# counts only its rounds whose sides ran in one placement, so it may need more rounds.
ROUNDS_MATCHED = {"full": 6, "quick": 2, "tiny": 1}
ROUNDS_MATCHED_MAX = {"full": 12, "quick": 2, "tiny": 1}
# The jobs whose tool moves data through system calls (disk, sockets): one traced round
# each after its rounds (strace, scripts/peakresults/trace.py), which pairs.py compares.
TRACED_TOOLS = ("fio", "iperf3", "sockperf")
# Our best configuration runs in the first rounds only: it is shown beside the like-for-like
# ratio, not judged, and the rounds past these tighten the like-for-like interval.
BEST_ROUNDS = {"full": 3, "quick": 1, "tiny": 1}


class PairJob:
    """A figure (or a few) measured by us and by a reference tool in alternating rounds
    (A B A B ...: ours first in odd rounds, the tool first in even ones), written to
    OUT/raw/pairs/<id>/r<k>-ours[-part].json and r<k>-tool.json (pairs.py reads them).
    figures: [{"key": {...}, "ours_job", "cause", and for our best configuration beside
    the like-for-like one "best_key", "best_job", "best_cause"}]; ours: [(part, argv)];
    best: [(part, argv)] run after ours in the first BEST_ROUNDS[mode] rounds; tool: the baseline
    script's argv.
    matched: the figures span two CPUs, so pairs.py compares a round's sides only when they
    ran in one VM placement (run_all.sh fingerprints each side), over ROUNDS_MATCHED."""

    def __init__(self, jid, tool, suite, tool_argv, tool_job, figures, ours, best=(), est=10, ours_est=5,
                 matched=False):
        self.id, self.tool, self.suite, self.tool_argv = jid, tool, suite, tool_argv
        self.tool_job, self.figures, self.ours, self.best = tool_job, figures, ours, list(best)
        self.est, self.ours_est = est, ours_est  # seconds of a tool run, of one of ours
        self.matched = matched

    def rounds(self, o) -> tuple:
        """(the rounds always run, the most run)."""
        m = mode_of(o)
        return (ROUNDS_MATCHED[m], ROUNDS_MATCHED_MAX[m]) if self.matched else (ROUNDS[m], ROUNDS_MAX[m])

    def doc(self) -> dict:
        return dict({"id": self.id, "tool": self.tool, "tool_job": self.tool_job, "figures": self.figures},
                    **({"placement": "matched"} if self.matched else {}))

    def steps(self, o) -> list:
        out = []
        d = f"pairs/{self.id}"
        least, most = self.rounds(o)
        for k in range(1, most + 1):
            cond = f"pairs {self.id} {k}" if k > least else ""

            def step(name, est, kind, binary, outf, argv):
                return Step("pair", f"{self.id} r{k} {name}", est, kind, binary, outf, argv, cond=cond)
            ours = [step(f"ours{'-' + part if part else ''}", self.ours_est, "bench",
                         argv[0] if not argv[0].startswith("scripts/") else argv[1],
                         f"{d}/r{k}-ours{'-' + part if part else ''}", argv) for part, argv in self.ours]
            if k <= min(least, BEST_ROUNDS[mode_of(o)]):
                ours += [step(f"best{'-' + part if part else ''}", self.ours_est, "bench", argv[0],
                              f"{d}/r{k}-best{'-' + part if part else ''}", argv) for part, argv in self.best]
            raw = os.path.join(o.out, "raw", d)
            tool = step(self.tool, self.est, "baseline", self.tool_argv[0], f"{d}/r{k}-tool",
                        self.tool_argv + ["--raw", os.path.join(raw, f"r{k}-tool.d"),
                                          "--json", os.path.join(raw, f"r{k}-tool.json")])
            out += ours + [tool] if k % 2 else [tool] + ours
        return out + self.trace_steps(o)

    def trace_steps(self, o) -> list:
        """One traced round after the rounds (issue 25 item 1): each part of ours and the
        tool, each under `peakresults trace run` (strace and a trace of its data calls) into
        raw/pairs/<id>/trace-ours[-part].txt and trace-tool.txt; trace.pair_cause compares
        them when pairs.py builds the records. Kind "trace": run_all.sh skips them, with the
        reason, when strace is not installed or trace.py is not there. The tool's side is its
        baseline script, so the trace holds the script's own processes too. The full
        protocol only (--quick and --tiny: no traced round)."""
        if self.tool not in TRACED_TOOLS or not self.ours or mode_of(o) != "full":
            return []
        raw = os.path.join(o.out, "raw", "pairs", self.id)
        pre = ["python3", "scripts/peakresults", "trace", "run"]
        out = [Step("pair", f"{self.id} trace ours{'-' + part if part else ''}", self.ours_est * 2, "trace",
                    "python3", f"pairs/{self.id}/trace-ours{'-' + part if part else ''}",
                    pre + [os.path.join(raw, f"trace-ours{'-' + part if part else ''}.txt"), "--"] + argv)
               for part, argv in self.ours]
        tool = self.tool_argv + ["--raw", os.path.join(raw, "trace-tool.d"), "--json",
                                 os.path.join(raw, "trace-tool.json")]
        return out + [Step("pair", f"{self.id} trace {self.tool}", self.est * 2, "trace", "python3",
                           f"pairs/{self.id}/trace-tool", pre + [os.path.join(raw, "trace-tool.txt"), "--"] + tool)]


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
    mt = ["--min-time", o.min_time] if o.min_time else []

    # One run of ours a side, as the tool's is one run: the job's rounds are its repetitions
    # (--ci 0: no further repetition to narrow an interval).
    def one(binary, min_time=True):
        return ["--reps", "1", "--ci", "0", "--quiet"] + (mt if min_time else [])
    flags = cpu_flags(o)
    isa = "avx512" if "avx512f" in flags else "avx2" if {"avx2", "fma"} <= flags else "sse2" if "sse2" in flags else ""
    lisa = {"avx512": "avx512", "avx2": "avx", "sse2": "sse"}.get(isa)

    def key(suite, test, variant, threads, block, metric, unit):
        return dict(zip(("suite", "test", "variant", "threads", "block_bytes", "metric", "unit"),
                        (suite, test, variant, threads, block, metric, unit)))

    def script(tool, *extra):
        return [f"scripts/baseline/{tool}.sh", "--mode", mode] + list(extra)

    if "cpu" in want and have_tool(o, "likwid") and isa in ("avx512", "avx2"):
        t = f"peakflops_{'avx512' if isa == 'avx512' else 'avx'}_fma"
        argv = ["cpubench", "--test", "flops", "--isa", isa, "--precision", "dp", "--threads", tmax] + one("cpubench")
        jobs.append(PairJob("likwid-flops", "likwid-bench", "cpu", script("likwid", "--threads", str(tmax), "--tests", t),
                            f"likwid-bench -t {t} -w S0:{16 * tmax}kB:{tmax}",
                            [{"key": key("cpu", "flops", f"{isa}_dp_fma", tmax, None, "flops", "GFLOPS"),
                              "ours_job": " ".join(map(str, argv)), "cause": ""}],
                            [("flops", argv)], est=5, ours_est=2))
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
                  "--isa", isa] + heap_pages_args(o) + one("membench")
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
        lp = ["linpack", "--n", n, "--threads", tmax] + one("linpack", False)
        # hpcc's STREAM runs the code its binary was built with, not the CPU's widest ISA:
        # membench runs the ISA read from the binary's timed Triad loop (tools/hpcc.py;
        # Debian's is scalar, movsd/mulsd/addsd, one double per instruction).
        hisa, how = hpcc_vector_isa()
        st = ["membench", "--test", "stream", "--size", f"{n * n * 8}B", "--threads", 1, "--nt", "off",
              "--isa", hisa] + heap_pages_args(o) + one("membench")
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
                            ours_est={"full": 5, "quick": 3, "tiny": 2}[mode]))
    if "disk" in want and have_tool(o, "fio"):
        huge = hugetlb_room(o, 41)
        shared = "" if huge else shared_buffer_dir(o)
        fsize = {"full": "1GiB", "quick": "256MiB", "tiny": "16MiB"}[mode]
        # one run of each test a side (fio's time_based jobs; diskbench --runtime, --reps 1)
        runtime = {"full": "2", "quick": "1", "tiny": "1"}[mode]
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
        base = ["diskbench", "--dir", disk_dir, "--file-size", fsize, "--runtime", runtime,
                "--threads", "1", "--cpus", cpu0] + pages + one("diskbench", False)
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
                            ours_est=int(float(runtime) * 2 + 3)))
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
        # during which they moved 300 ns apart): placement-matched rounds. UDP keeps plain
        # rounds (within 0.97-1.04 in the sixth session's full runs). One run a side for both.
        cpu0, scpu = map(str, pair_cpus())
        pin = ["--cpus", cpu0, "--server-cpus", scpu]
        matched = cpu0 != scpu
        tcp = ["netbench", "loopback", "--test", "tcp_throughput", "--buffer", "64KiB", "--time", secs,
               "--threads", "1"] + pin + one("netbench")
        tcp_best = ["netbench", "loopback", "--test", "tcp_throughput", "--buffer", "64KiB", "--time", secs,
                    "--threads", tmax] + one("netbench")
        # iperf3 3.12 sends one datagram per send(): --no-gso --send-batch 1 is that job
        udp = ["netbench", "loopback", "--test", "udp_throughput", "--datagram", "1472B", "--time", secs,
               "--threads", "1", "--no-gso", "--send-batch", "1"] + pin + one("netbench")
        udp_best = ["netbench", "loopback", "--test", "udp_throughput", "--datagram", "1472B", "--time", secs,
                    "--threads", "1"] + one("netbench")
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
        for jid, test, fig, part, argv, best, extra in (
                ("iperf3-tcp", "tcp_throughput", tfig, "tcp", tcp, [("tcp", tcp_best)] if tmax > 1 else [],
                 "-l 64K"),
                ("iperf3-udp", "udp_throughput", ufig, "udp", udp, [("udp", udp_best)], "-u -b 0 -l 1472 -w 4M")):
            jobs.append(PairJob(jid, "iperf3", "network",
                                script("iperf3", "--threads", "1", "--tests", test, "--seconds", secs,
                                       "--cpu", cpu0, "--server-cpu", scpu),
                                f"iperf3 -c 127.0.0.1 -P 1 -t {secs} -O 1 -A {cpu0},{scpu} {extra}",
                                [fig], [(part, argv)], best, est=int(secs) + 3,
                                ours_est=int(float(secs) * 2 + 1),
                                matched=matched and jid == "iperf3-tcp"))
    if "network" in want and have_tool(o, "sockperf"):
        # Client and server on one CPU for both tools: a ping-pong across two vCPUs waits
        # for the host to wake the other vCPU each way, which gave 65-84 us round trips alone
        # and 164-245 us under 1.2% steal, in rounds that swung 0.47-1.26; on one CPU it is
        # a context switch, 14-16 us for either tool (docs/benchmarks.md, sixth session).
        cpu0 = scpu = str(pair_cpus()[0])
        argv = ["netbench", "loopback", "--test", "tcp_latency", "--msg-size", "16B", "--time", secs,
                "--threads", "1", "--cpus", cpu0, "--server-cpus", scpu] + one("netbench")
        jobs.append(PairJob("sockperf", "sockperf", "network", script("sockperf", "--tests", "tcp_latency",
                                                                        "--seconds", secs, "--cpu", cpu0,
                                                                        "--server-cpu", scpu),
                            f"taskset -c {cpu0} sockperf ping-pong --tcp -m 16 -t {secs} --full-rtt "
                            f"(server: taskset -c {scpu})",
                            [{"key": key("network", "tcp_latency", "tcp", 1, 16, "latency", "us"),
                              "ours_job": " ".join(map(str, argv)), "cause": ""}],
                            [("", argv)], est=int(secs) + 2, ours_est=int(float(secs) * 2 + 2)))
    return jobs
