"""The paired jobs of issue 13: the same job on both sides, derived from ours by each tool's
adapter (adapters/<tool>.py pair_jobs, from a PairEnv), each laid out as alternating rounds
of ordinary steps (PairJob.steps), and the machine facts the jobs are derived from (pages,
CPUs, the hpcc binary's ISA)."""
import os

from ..core import schema
from .plan_options import Step, have_tool, mode_of, stall_limit

# Rounds per paired job: (at least, at most). Rounds past the least run only while one of
# the job's figures is open and can still settle in the rounds left (run_all.sh asks
# `peakresults pairs-enough OUT JOB K` before each; pairs_settle.py: the median ratio's
# interval wholly inside 0.90-1.10 or wholly outside, or a measured cause), so a quiet job
# stops at the least and a noisy one goes on while a verdict can still change, flagged
# pairs_wide if it ends open. Three at least: no verdict settles on fewer pairs
# (pairs_settle.LEAST), and on the Zen 5 record (../shared/machines/amd-zen5-turin-bhyve)
# likwid-bench flops and oneDNN BF16 were settled after three of their six rounds. Six at
# most: from six pairs the interval is the median's order statistics ([min, max] up to
# eight, so a 7th or 8th pair can only widen it: a figure open at six stays open).
# --quick and --tiny run one round: a ratio, no interval, as their reports say (two rounds
# were 2 x 82 s of --quick's 349 s on a 2-vCPU VM, and two pairs are no interval either).
ROUNDS = {"full": 3, "quick": 1, "tiny": 1}
ROUNDS_MAX = {"full": 6, "quick": 1, "tiny": 1}
# A job whose figures span two CPUs runs as fast as where the host put the vCPUs, which
# moves every few seconds on a shared VM host (docs/benchmarks.md, seventh session): pairs.py
# counts only its rounds whose sides ran in one placement, so it may need more rounds: up
# to nine, the count at which the interval first narrows past [min, max].
ROUNDS_MATCHED = {"full": 3, "quick": 1, "tiny": 1}
ROUNDS_MATCHED_MAX = {"full": 9, "quick": 1, "tiny": 1}
# The jobs whose tool moves data through system calls (disk, sockets): one traced round
# each before its rounds in the full protocol (strace, scripts/peakresults/trace/trace.py), which
# pairs.py compares; a difference found is a measured cause, which settles the job's verdict
# at its least rounds (the Zen 5 record's UDP pair ran six rounds beside one).
TRACED_TOOLS = ("fio", "iperf3", "sockperf")
# Our best configuration runs in the first round only: it is shown beside the like-for-like
# ratio, not judged, and the rounds past it tighten the like-for-like interval (it ran in
# three until the twelfth session: 2 x 13 s of the full protocol's 1,784). --quick leaves
# it out (its report says so); --tiny runs it, to test it end to end.
BEST_ROUNDS = {"full": 1, "quick": 0, "tiny": 1}


class PairJob:
    """A figure (or a few) measured by us and by a reference tool in alternating rounds
    (A B A B ...: ours first in odd rounds, the tool first in even ones), written to
    OUT/raw/pairs/<id>/r<k>-ours[-part].json and r<k>-tool.json (pairs.py reads them).
    figures: [{"key": {...}, "ours_job", "cause", and for our best configuration beside
    the like-for-like one "best_key", "best_job", "best_cause"}]; ours: [(part, argv)];
    best: [(part, argv)] run after ours in the first BEST_ROUNDS[mode] rounds; tool_argv: the
    tool's adapter (adapters.argv).
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

    def doc(self, rounds_max: int) -> dict:
        """job.json: the job, its figures and its most rounds (pairs.enough_line)."""
        return dict({"id": self.id, "tool": self.tool, "tool_job": self.tool_job, "figures": self.figures,
                     "rounds_max": rounds_max}, **({"placement": "matched"} if self.matched else {}))

    def steps(self, o) -> list:
        """The traced round (trace_steps), then the rounds: the least always, the others
        "if needed" (their condition)."""
        out = self.trace_steps(o)
        d = f"pairs/{self.id}"
        least, most = self.rounds(o)
        for k in range(1, most + 1):
            cond = f"pairs {self.id} {k}" if k > least else ""

            def step(name, est, kind, binary, outf, argv):
                return Step("pair", f"{self.id} r{k} {name}", est, kind, binary, outf, argv, cond=cond,
                            limit=stall_limit(est))
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
        return out

    def trace_steps(self, o) -> list:
        """One traced round before the rounds (issue 25 item 1; first since issue 42, so that
        a difference it finds settles the verdict at the least rounds): each part of ours and the
        tool, each under `peakresults trace run` (strace and a trace of its data calls) into
        raw/pairs/<id>/trace-ours[-part].txt and trace-tool.txt; trace.pair_cause compares
        them when pairs.py builds the records. Kind "trace": run_all.sh skips them, with the
        reason, when strace is not installed or trace.py is not there. The tool's side is its
        adapter, so the trace holds the adapter's own process too. The full protocol only:
        --quick's traced rounds (for a ratio outside the band) were 28 of its 349 s on a
        2-vCPU VM; its report says its pairs were not traced."""
        if self.tool not in TRACED_TOOLS or not self.ours or mode_of(o) != "full":
            return []
        raw = os.path.join(o.out, "raw", "pairs", self.id)
        pre = ["python3", "scripts/peakresults", "trace", "run"]
        out = [Step("pair", f"{self.id} trace ours{'-' + part if part else ''}", self.ours_est * 2, "trace",
                    "python3", f"pairs/{self.id}/trace-ours{'-' + part if part else ''}",
                    pre + [os.path.join(raw, f"trace-ours{'-' + part if part else ''}.txt"), "--"] + argv,
                    limit=stall_limit(self.ours_est * 2))
               for part, argv in self.ours]
        # The adapter by its absolute path (run_all.sh resolves a bare program after "--" as
        # a built binary): python3 and the tool it runs are both in the trace.
        tool = ["/usr/bin/env", "python3", os.path.join(o.root, self.tool_argv[1])] + self.tool_argv[2:] + [
            "--raw", os.path.join(raw, "trace-tool.d"), "--json", os.path.join(raw, "trace-tool.json")]
        return out + [Step("pair", f"{self.id} trace {self.tool}", self.est * 2, "trace", "python3",
                           f"pairs/{self.id}/trace-tool", pre + [os.path.join(raw, "trace-tool.txt"), "--"] + tool,
                           limit=stall_limit(self.est * 2))]


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


class PairEnv:
    """What every adapter's pair_jobs derives its jobs from: the options (o), the suites
    wanted, the disk folder, the mode, the largest thread count that fits the CPUs (tmax),
    the CPU's widest ISA for our kernels (isa) and likwid-bench's name for it (lisa). A
    round's length is each adapter's own (round_value)."""

    def __init__(self, o, want, disk_dir):
        self.o, self.want, self.disk_dir, self.mode = o, want, disk_dir, mode_of(o)
        self.tmax = max([1] + [int(t) for t in o.threads.split(",") if int(t) <= o.ncpu])
        flags = cpu_flags(o)
        self.isa = "avx512" if "avx512f" in flags else "avx2" if {"avx2", "fma"} <= flags else \
            "sse2" if "sse2" in flags else ""
        self.lisa = {"avx512": "avx512", "avx2": "avx", "sse2": "sse"}.get(self.isa)

    def have(self, tool: str) -> bool:
        return have_tool(self.o, tool)

    def round_value(self, table: dict) -> str:
        """The length of a paired round's side in this mode: the adapter's TABLE (its
        measured ROUND_S: seconds; hpcc's N), or the value `adapters pair --runtimes` is
        measuring (o.pair_round, set by adapters/pair.py)."""
        forced = getattr(self.o, "pair_round", None)
        return str(forced) if forced else str(table[self.mode])

    def one(self, binary, min_time=True) -> list:
        """One run of ours a side, as the tool's is one run: the job's rounds are its
        repetitions (--ci 0: no further repetition to narrow an interval)."""
        mt = ["--min-time", self.o.min_time] if self.o.min_time and min_time else []
        return ["--reps", "1", "--ci", "0", "--quiet"] + mt

    @staticmethod
    def key(suite, test, variant, threads, block, metric, unit) -> dict:
        return dict(zip(schema.KEY, (suite, test, variant, threads, block, metric, unit)))

    def script(self, tool, *extra) -> list:
        """The tool's side of a paired round: its adapter, on this mode."""
        from .. import adapters
        return adapters.argv(tool, self.mode, *extra)


def pair_jobs(o, want, disk_dir) -> list:
    """The paired figures of issue 13, each the same job on both sides, with short rounds
    (the full protocol stays within 45 minutes on a 2-vCPU VM): each adapter's pair_jobs
    (scripts/peakresults/adapters/<tool>.py holds its pairing rules)."""
    from .. import adapters
    e = PairEnv(o, want, disk_dir)
    return [j for name in adapters.PAIR_ORDER for j in adapters.get(name).pair_jobs(e)]
