"""The paired jobs of issue 13: the same job on both sides, derived from ours by each tool's
adapter (adapters/<tool>.py pair_jobs, from a PairEnv: adapters/pairing.py holds the job and
the machine facts it is derived from), each laid out as alternating rounds of ordinary steps
(steps)."""
import os

from ..adapters.pairing import cpu_flags
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


def rounds(job, o) -> tuple:
    """(the rounds always run, the most run) of paired job JOB (adapters.pairing.PairJob)."""
    m = mode_of(o)
    return (ROUNDS_MATCHED[m], ROUNDS_MATCHED_MAX[m]) if job.matched else (ROUNDS[m], ROUNDS_MAX[m])


def steps(job, o) -> list:
    """The traced round (trace_steps), then the rounds: the least always, the others
    "if needed" (their condition)."""
    out = trace_steps(job, o)
    d = f"pairs/{job.id}"
    least, most = rounds(job, o)
    for k in range(1, most + 1):
        cond = f"pairs {job.id} {k}" if k > least else ""

        def step(name, est, kind, binary, outf, argv):
            return Step("pair", f"{job.id} r{k} {name}", est, kind, binary, outf, argv, cond=cond,
                        limit=stall_limit(est))
        ours = [step(f"ours{'-' + part if part else ''}", job.ours_est, "bench",
                     argv[0] if not argv[0].startswith("scripts/") else argv[1],
                     f"{d}/r{k}-ours{'-' + part if part else ''}", argv) for part, argv in job.ours]
        if k <= min(least, BEST_ROUNDS[mode_of(o)]):
            ours += [step(f"best{'-' + part if part else ''}", job.ours_est, "bench", argv[0],
                          f"{d}/r{k}-best{'-' + part if part else ''}", argv) for part, argv in job.best]
        raw = os.path.join(o.out, "raw", d)
        tool = step(job.tool, job.est, "baseline", job.tool_argv[0], f"{d}/r{k}-tool",
                    job.tool_argv + ["--raw", os.path.join(raw, f"r{k}-tool.d"),
                                     "--json", os.path.join(raw, f"r{k}-tool.json")])
        out += ours + [tool] if k % 2 else [tool] + ours
    return out


def trace_steps(job, o) -> list:
    """One traced round before the rounds (issue 25 item 1; first since issue 42, so that
    a difference it finds settles the verdict at the least rounds): each part of ours and the
    tool, each under `peakresults trace run` (strace and a trace of its data calls) into
    raw/pairs/<id>/trace-ours[-part].txt and trace-tool.txt; trace.pair_cause compares
    them when pairs.py builds the records. Kind "trace": run_all.sh skips them, with the
    reason, when strace is not installed or trace.py is not there. The tool's side is its
    adapter, so the trace holds the adapter's own process too. The full protocol only:
    --quick's traced rounds (for a ratio outside the band) were 28 of its 349 s on a
    2-vCPU VM; its report says its pairs were not traced."""
    if job.tool not in TRACED_TOOLS or not job.ours or mode_of(o) != "full":
        return []
    raw = os.path.join(o.out, "raw", "pairs", job.id)
    pre = ["python3", "scripts/peakresults", "trace", "run"]
    out = [Step("pair", f"{job.id} trace ours{'-' + part if part else ''}", job.ours_est * 2, "trace",
                "python3", f"pairs/{job.id}/trace-ours{'-' + part if part else ''}",
                pre + [os.path.join(raw, f"trace-ours{'-' + part if part else ''}.txt"), "--"] + argv,
                limit=stall_limit(job.ours_est * 2))
           for part, argv in job.ours]
    # The adapter by its absolute path (run_all.sh resolves a bare program after "--" as
    # a built binary): python3 and the tool it runs are both in the trace.
    tool = ["/usr/bin/env", "python3", os.path.join(o.root, job.tool_argv[1])] + job.tool_argv[2:] + [
        "--raw", os.path.join(raw, "trace-tool.d"), "--json", os.path.join(raw, "trace-tool.json")]
    return out + [Step("pair", f"{job.id} trace {job.tool}", job.est * 2, "trace", "python3",
                       f"pairs/{job.id}/trace-tool", pre + [os.path.join(raw, "trace-tool.txt"), "--"] + tool,
                       limit=stall_limit(job.est * 2))]


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
