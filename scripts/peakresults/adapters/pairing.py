"""What an adapter's pair_jobs builds its paired jobs from (issue 13): the job as both sides
run it (PairJob, the same job derived from ours), and the machine facts the jobs are derived
from (CPU flags, huge pages, the shared buffers' folder, the CPUs of a network pair). The
plan lays each job out as alternating rounds of steps (plan/plan_pairs.py)."""
import os


class PairJob:
    """A figure (or a few) measured by us and by a reference tool in alternating rounds
    (A B A B ...: ours first in odd rounds, the tool first in even ones), written to
    OUT/raw/pairs/<id>/r<k>-ours[-part].json and r<k>-tool.json (pairs.py reads them).
    figures: [{"key": {...}, "ours_job", "cause", and for our best configuration beside
    the like-for-like one "best_key", "best_job", "best_cause"}]; ours: [(part, argv)];
    best: [(part, argv)] run after ours in the first rounds (plan_pairs.BEST_ROUNDS); tool_argv:
    the tool's adapter (adapters.argv).
    matched: the figures span two CPUs, so pairs.py compares a round's sides only when they
    ran in one VM placement (run_all.sh fingerprints each side), over more rounds
    (plan_pairs.ROUNDS_MATCHED). The plan lays the rounds out as steps (plan_pairs.steps)."""

    def __init__(self, jid, tool, suite, tool_argv, tool_job, figures, ours, best=(), est=10, ours_est=5,
                 matched=False):
        self.id, self.tool, self.suite, self.tool_argv = jid, tool, suite, tool_argv
        self.tool_job, self.figures, self.ours, self.best = tool_job, figures, ours, list(best)
        self.est, self.ours_est = est, ours_est  # seconds of a tool run, of one of ours
        self.matched = matched

    def doc(self, rounds_max: int) -> dict:
        """job.json: the job, its figures and its most rounds (pairs.enough_line)."""
        return dict({"id": self.id, "tool": self.tool, "tool_job": self.tool_job, "figures": self.figures,
                     "rounds_max": rounds_max}, **({"placement": "matched"} if self.matched else {}))


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
