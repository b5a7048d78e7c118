"""run_all.sh's options (USAGE, parse_options: a bad one is a UsageError, one line and exit 2
in run_all.sh) and the plan's step record (Step). plan.py makes the steps from them."""
import argparse
import os
import re
import shutil
import time

from .. import adapters

SUITES = ("cpu", "memory", "disk", "network", "dpdk")
# The reference tools' adapters (scripts/peakresults/adapters/<tool>.py) and the program
# each needs (its PROGRAM).
# oneDNN (peak_ref_gemm) runs in paired rounds only: its unit is the one oneDNN picks, known
# once it ran, so no unpaired sweep over --threads.
BASELINE_TOOLS = tuple(n for n in adapters.NAMES if n != "onednn")
TOOL_PROGRAM = {n: adapters.get(n).PROGRAM for n in adapters.NAMES}

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
  --sustain DURATION each sustained job's length: diskbench --sustain (a sequential read)
                     and netbench --sustain (TCP, to --peer when given, else loopback),
                     their throughput every second, burst and baseline (e.g. 30m, 1h;
                     0: none; default 30s in the full protocol, none in --quick)
  --set KEY=VALUE    a peaks.conf line for every binary of the run, after PEAKBENCH_CONF's
                     or ./peaks.conf's (e.g. cloud.instance_type=m5.large; repeatable)
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
  --resume DIR       continue the run in DIR (interrupted, or with failed steps) with its own
                     options: the steps not done yet (failed and interrupted ones again);
                     no other option goes with it
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
    """One step of the plan. cond: "" (always run) or "pairs JOB K" (round K of a paired job,
    past its least: run_all.sh runs the round only while `peakresults pairs-enough OUT JOB K`
    says a verdict can still change). limit: the seconds after which a step that has given
    no result is stopped as stalled, exit 1 (0: none; stall_limit)."""

    def __init__(self, suite, name, est, kind, binary, outf, argv, cond="", limit=0):
        self.suite, self.name, self.est, self.kind = suite, name, int(est), kind
        self.binary, self.outf, self.argv = binary, outf, [str(a) for a in argv]
        self.cond, self.limit = cond, int(limit)
        if any(a == "" for a in self.argv):
            raise ValueError(f"step {name}: an empty argument")

    def command(self) -> str:
        """The command as commands.txt and --dry-run show it."""
        return " ".join(shquote(a) for a in self.argv)


# The shortest repetition (--min-time) run_all.sh gives the binaries: --quick 0.05 s; the
# full protocol 0.1 s, three repetitions a point at least, so that each row has the three
# the PA1 protocol asks for (the binaries' own default is 0.2 s). A point costs its
# calibration (about two --min-time), a warm-up and its repetitions; at 0.1 s three
# repetitions cost less than two at 0.2 s, and Student's t at 2 degrees of freedom (4.3)
# against 1 (12.7) makes their interval about a third as wide for the same spread.
QUICK_MIN_TIME = "0.05"
FULL_MIN_TIME = "0.1"

# A paired round's side or a sustained run that has given no result after this long has
# stalled (a tool waiting on a peer that is gone, a disk that stopped answering): run_all.sh
# stops it, says where it stood and records it failed, exit 1 (issue 42). A side is expected
# in seconds (its estimate); six times that, and at least a minute, is no slow host's noise
# (the Zen 5 record's slowest side, hpcc, took 19 s against 15-19). A sustained run is
# expected in its --sustain length plus its setup: a minute past that.
# PEAKBENCH_STALL_S=S sets every such limit to S seconds (a host known to be slower; the
# stall tests).
STALL_FACTOR, STALL_MIN_S = 6, 60
STALL_ENV = "PEAKBENCH_STALL_S"
# PEAKBENCH_TICK_S=S: run_all.sh's progress line every S seconds, not 10 (run_all_watch.sh;
# the stall test). Both are whole seconds from 1; another value is a usage error.
TICK_ENV = "PEAKBENCH_TICK_S"


def stall_limit(est: int, sustain_s: int = 0) -> int:
    """The stated seconds after which a paired side (EST: its estimate) or a sustained run
    (SUSTAIN_S: its length) without a result is stopped."""
    forced = os.environ.get(STALL_ENV, "")
    if forced.isdigit() and int(forced) > 0:
        return int(forced)
    return sustain_s + STALL_MIN_S if sustain_s else max(STALL_MIN_S, STALL_FACTOR * int(est))


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


# The parts of a run whose cost the plan states and the report's header sets against the
# time they took (issue 42), in the order they run: each step's suite, but the paired rounds
# (suite "pair") as "pairs", the second pass's steps (" pass 2") as "pass 2", the results
# program (suite "post") as "finish".
PARTS = ("info", "cpu", "memory", "disk", "network", "dpdk", "baseline", "pairs", "cluster", "pass 2", "finish")


def part_of(suite: str, name: str) -> str:
    """The part of PARTS a step (SUITE, NAME as in the plan and status.tsv) belongs to."""
    if name.endswith(" pass 2"):
        return "pass 2"
    return {"pair": "pairs", "post": "finish"}.get(suite, suite)


def parts_estimate(steps: list) -> list:
    """[(part, seconds of its steps that always run, seconds with every conditional round)]
    in PARTS' order, the parts with a step."""
    est: dict = {}
    for s in steps:
        e = est.setdefault(part_of(s.suite, s.name), [0, 0])
        e[0] += 0 if s.cond else s.est
        e[1] += s.est
    return [(p, *est[p]) for p in PARTS if p in est] + [(p, *v) for p, v in est.items() if p not in PARTS]


# What the kernel takes (Linux PATH_MAX with its NUL, NAME_MAX), and the room a run's own
# files need under --out (raw/pairs/<id>/<tool>-r<N>.json, charts/<name>.svg, ...).
PATH_MAX = 4096
NAME_MAX = 255
OUT_ROOM = 256


def check_path(flag: str, path: str, room: int = 0) -> None:
    """A path the kernel cannot take (with room bytes of files under it) is bad input:
    one line, exit 2, before anything runs (issue 34)."""
    size = len(os.fsencode(path))
    if size + room >= PATH_MAX:
        extra = f" and {room} for the run's files under it" if room else ""
        raise UsageError(f"{flag}: path of {size} bytes{extra} is longer than the kernel "
                         f"takes (PATH_MAX {PATH_MAX})")
    for name in path.split("/"):
        if len(os.fsencode(name)) > NAME_MAX:
            raise UsageError(f"{flag}: a name in the path has {len(os.fsencode(name))} bytes, "
                             f"more than the kernel takes (NAME_MAX {NAME_MAX}): '{name[:40]}...'")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(message)


def parse_options(argv: list) -> argparse.Namespace:
    p = _Parser(prog="run_all.sh", add_help=False, allow_abbrev=False)
    for flag in ("--quick", "--tiny", "--dry-run", "--no-build", "--no-baselines",
                 "--no-charts", "-h", "--help", "--nul", "--write-pairs"):
        p.add_argument(flag, action="store_true")
    for opt in ("--only", "--reps", "--threads", "--min-time", "--out", "--disk-dir", "--sustain",
                "--peer", "--build-dir", "--hostfile", "--mpirun",
                # for tests: the CPUs, the tools taken as installed, where /sys is
                "--ncpu", "--have", "--sysroot", "--root"):
        p.add_argument(opt)
    p.add_argument("--set", action="append", default=[])
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
    for var in (STALL_ENV, TICK_ENV):
        v = os.environ.get(var, "")
        if v and not re.fullmatch(r"[1-9][0-9]{0,5}", v):
            raise UsageError(f"{var}: '{v}' is not a whole number of seconds (1 or more)")
    o.min_time_given = o.min_time is not None
    if o.min_time is None:
        o.min_time = QUICK_MIN_TIME if o.quick else FULL_MIN_TIME
    else:
        ok = re.fullmatch(r"([0-9]+\.?[0-9]*|\.[0-9]+)", o.min_time)
        if not ok or not 0 < float(o.min_time) <= 3600:
            raise UsageError(f"--min-time: '{o.min_time}' is not a number of seconds in (0, 3600]")
    for kv in o.set:
        if not re.fullmatch(r"[a-z][a-z0-9_.]*=[^\n#]*[^\s#]", kv):
            raise UsageError(f"--set: '{kv}' is not KEY=VALUE with a peaks.conf key (docs/peaks-conf.md)")
    o.sustain_s = sustain_seconds(o.sustain, o.quick)
    stall = os.environ.get(STALL_ENV)
    if stall is not None and not (stall.isdigit() and int(stall) > 0):
        raise UsageError(f"{STALL_ENV}='{stall}' is not a whole number of seconds above 0")
    if o.peer and not re.fullmatch(r"[A-Za-z0-9.:_-]+", o.peer):
        raise UsageError(f"--peer: '{o.peer}' is not a host name or address")
    if o.mpirun is not None and not o.hostfile:
        raise UsageError("--mpirun needs --hostfile")
    o.root = o.root or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    o.out = os.path.abspath(o.out or os.path.join(o.root, "results",
                                                  time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())))
    o.build_dir = os.path.abspath(o.build_dir or os.path.join(o.root, "build"))
    check_path("--out", o.out, OUT_ROOM)
    check_path("--build-dir", o.build_dir)
    for flag, value in (("--disk-dir", o.disk_dir), ("--hostfile", o.hostfile)):
        if value:
            check_path(flag, os.path.abspath(value))
    if o.ncpu is not None:
        if not re.fullmatch(r"[1-9][0-9]*", o.ncpu):
            raise UsageError(f"--ncpu: '{o.ncpu}' is not a count")
        o.ncpu = int(o.ncpu)
    else:
        o.ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    o.help = False
    return o


_VALUED = {"set", "sustain", "only", "reps", "threads", "min_time", "out", "disk_dir", "peer", "build_dir",
           "hostfile", "mpirun", "ncpu", "have", "sysroot", "root"}


# The full protocol's sustained jobs: 30 s each (disk, network), a minute in all, enough
# for a bucket that lasts seconds; a cloud's burst lasts minutes (give --sustain 30m).
FULL_SUSTAIN_S = 30


def sustain_seconds(value, quick: bool) -> int:
    """--sustain as whole seconds (0: no sustained job), as the binaries take it: 90, 90s,
    30m, 1h; 4 s to 24 h."""
    if value is None:
        return 0 if quick else FULL_SUSTAIN_S
    m = re.fullmatch(r"([0-9]+)([smh]?)", value)
    if not m:
        raise UsageError(f"--sustain: '{value}' is not a duration like 90s, 30m or 1h")
    secs = int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
    if secs != 0 and not 4 <= secs <= 86400:
        raise UsageError(f"--sustain: '{value}' is not 0 nor a duration of 4 s to 24 h")
    return secs


def have_tool(o, name: str) -> bool:
    if o.have is not None:
        return name in o.have.split(",")
    return shutil.which(TOOL_PROGRAM.get(name, name)) is not None


def mode_of(o) -> str:
    return "tiny" if o.tiny else "quick" if o.quick else "full"
