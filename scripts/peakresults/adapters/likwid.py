"""likwid-bench for cpubench and membench.

Mapping (likwid-bench test -> peakbench row; MFlops/s / 1000 = GFLOPS, MByte/s = MB/s, both
decimal; likwid counts bytes read + written, as membench and STREAM do):
  peakflops              -> cpu flops scalar_dp_addmul   (-w S0:16kB per thread)
  peakflops_avx_fma      -> cpu flops avx2_dp_fma
  peakflops_avx512_fma   -> cpu flops avx512_dp_fma
  copy_mem_<isa>         -> memory stream copy-<isa>-nt, membench's arrays
  stream_mem_<isa>       -> memory stream triad-<isa>-nt, membench's arrays
<isa>: the widest this CPU has (avx512, else avx, else sse; membench avx512/avx2/sse2); the
_mem kernels store non-temporally, as membench does beyond the LLC. The memory working set
is membench's --size of the same mode (1 GiB full, 256 MiB quick, 16 MiB tiny), given to
likwid-bench in kB (10^3 bytes): membench's three STREAM arrays for stream_mem, two of them
(2/3 of it) for copy_mem, so each array is membench's. Thread counts above the CPUs are left
out (likwid-bench pins one thread per hwthread). --min-seconds S (a paired round):
likwid-bench -s S, the shortest timed run (default 1 s).
peakflops (scalar) is another loop than cpubench's scalar add+mul: the job says so."""
import os
import re
import subprocess

from .common import NotToolOutput, cpuinfo_flags_line, last_line, row, unavailable_reason

NAME = "likwid"
TOOL = PROGRAM = "likwid-bench"
SUITES = ("cpu", "memory")
FLOPS = {"peakflops": "scalar_dp_addmul", "peakflops_sp": "scalar_sp_addmul",
         "peakflops_avx_fma": "avx2_dp_fma", "peakflops_sp_avx_fma": "avx2_sp_fma",
         "peakflops_avx512_fma": "avx512_dp_fma", "peakflops_sp_avx512_fma": "avx512_sp_fma"}
# likwid ISA suffix -> membench's kernel name
ISA = {"avx512": "avx512", "avx": "avx2", "sse": "sse2"}
SIZE = {"full": 1 << 30, "quick": 256 << 20, "tiny": 16 << 20}  # membench's --size
# The paired flops job's timed run, on both sides (whole seconds: likwid-bench 5.2 reads -s
# so, and 1 is its shortest). On the Zen 5 record (../shared/machines/amd-zen5-turin-bhyve)
# its ratio read 0.991-1.013 over six rounds: three settle it. A side took 3-6 s.
FLOPS_SECONDS = "1"
ROUND_S = {"full": FLOPS_SECONDS, "quick": FLOPS_SECONDS, "tiny": FLOPS_SECONDS}
# The paired STREAM job's: likwid-bench -s 0.5 is read as 0 whole seconds, its floor of 10
# iterations a thread (0.2-0.3 s over these arrays on a 2-vCPU VM), and membench --min-time
# 0.5 times about as long; no shorter run exists on likwid-bench's side. A side took 8-9 s
# on the Zen 5 record (the arrays' first touch on 4 KiB pages, membench's four kernels).
STREAM_SECONDS = "0.5"
PLAN_TESTS = ("peakflops peakflops_avx_fma peakflops_avx512_fma copy_mem_avx512 stream_mem_avx512 "
              "copy_mem_avx stream_mem_avx copy_mem_sse stream_mem_sse").split()


def membench_array_bytes(size: int, threads: int) -> int:
    """One STREAM array of membench --size SIZE at THREADS threads: its block_bytes
    (memory/mem_stream.c elems_per_thread: per thread a multiple of 16 doubles)."""
    n = size // 3 // 8 // threads // 16 * 16 or 16
    return n * threads * 8


def _output(argv: list) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def run(r, a) -> int:
    if not r.have("likwid-bench"):
        why = unavailable_reason("likwid-bench") or "likwid-bench not installed (Debian: apt install likwid)"
        r.skip("flops", why)
        r.skip("memory", why)
        return r.finish()
    available = PLAN_TESTS if r.plan else [ln.split()[0] for ln in _output(["likwid-bench", "-a"]).splitlines()
                                          if ln.split()]
    isa = cpuinfo_flags_line()

    def has_test(t):
        if t not in available:
            return False
        if "avx512" in t:
            return " avx512f" in isa
        if "avx_fma" in t:
            return " fma" in isa
        return True
    threads = a.threads_upto_cpus()
    size = SIZE["full"]
    if a.mode == "quick":
        threads, size = [a.max_threads()], SIZE["quick"]
    elif a.mode == "tiny":
        threads, size = [1], SIZE["tiny"]
    if a.tests:  # a paired job runs the thread count membench's matching run has
        threads = a.threads_upto_cpus()
    # The widest ISA of the CPU for the memory kernels (never assume AVX-512).
    misa = "avx512" if " avx512f" in isa else "avx" if " avx" in isa else "sse"
    rc = 0
    for t in threads:
        for test in ("peakflops", "peakflops_avx_fma", "peakflops_avx512_fma", f"copy_mem_{misa}",
                     f"stream_mem_{misa}"):
            if not a.want(test):
                continue
            if not has_test(test):
                r.skip(test, f"{test} not available here (likwid-bench -a or CPU flags)")
                continue
            if test.startswith("peakflops"):
                ws = f"S0:{16 * t}kB:{t}"
            elif test.startswith("copy_mem_"):
                ws = f"S0:{size * 2 // 3 // 1000}kB:{t}"
            else:
                ws = f"S0:{size // 1000}kB:{t}"
            out = os.path.join(r.raw, f"likwid-{test}-{t}.txt")
            argv = ["likwid-bench", "-t", test, "-w", ws] + (["-s", a.min_seconds] if a.min_seconds else [])
            if not r.run(120, out, argv):
                r.say(f"likwid-bench -t {test} -w {ws} failed: {last_line(out + '.err')}")
                r.skip(test, f"failed: likwid-bench -t {test} exited non-zero")
                rc = 1
    if r.plan:
        return 0
    m = re.search(r"Version *([0-9.]*)", _output(["likwid-bench", "-h"]))
    ver = f"likwid-bench {m.group(1)}" if m else "likwid-bench"
    return r.finish(membench_size=size, version=ver) or rc




def _num(text, label):
    m = re.search(r"^" + re.escape(label) + r":?\s+([0-9.eE+-]+)\s*$", text, re.M)
    return float(m.group(1)) if m else None


def parse(path: str, ctx: dict) -> tuple:
    """likwid-bench output -> cpu flops or memory rows."""
    with open(path, errors="replace") as f:
        text = f.read()
    t = re.search(r"^Test:\s+(\S+)", text, re.M)
    th = re.search(r"^Using ([0-9]+) threads", text, re.M)
    if not t or not th:
        raise NotToolOutput("no 'Test:' and 'Using N threads'")
    test, threads = t.group(1), int(th.group(1))
    size = _num(text, "Size (Byte)")
    ver = ctx.get("version", "likwid-bench")
    job = f"likwid-bench -t {test} -w S0:{int(size) if size else '?'}B:{threads}"
    config = f"working_set_bytes={int(size) if size else ''}"
    if test.startswith("peakflops"):
        v = _num(text, "MFlops/s")
        if v is None or test not in FLOPS:
            raise NotToolOutput(f"no MFlops/s for {test}" if v is None else f"{test} has no peakbench row")
        return ver, [row(TOOL, ver, ("cpu", "flops", FLOPS[test], threads, None, "flops", "GFLOPS"),
                         v / 1000, job=job, config=config)]
    v = _num(text, "MByte/s")
    m = re.fullmatch(r"(copy|stream)_mem_(avx512|avx|sse)", test)
    if v is None or not m:
        raise NotToolOutput(f"no MByte/s for {test}" if v is None else f"{test} has no peakbench row")
    isa = ISA[m.group(2)]
    # STREAM copy (two arrays) or triad (three): the job is membench --test stream --size S
    # (ctx membench_size, from which run() derives likwid-bench's working set), keyed by
    # membench's array; else likwid's Size over its arrays.
    arrays = 2 if m.group(1) == "copy" else 3
    if "membench_size" in ctx:
        arr = membench_array_bytes(int(ctx["membench_size"]), threads)
    else:
        arr = int(ctx.get("block_bytes", int(size // arrays) if size else 0)) or None
    key = ("memory", "stream", f"{'copy' if arrays == 2 else 'triad'}-{isa}-nt", threads, arr)
    return ver, [row(TOOL, ver, key + ("throughput", "MB/s"), v, job=job, config=config + ";nt_stores=1")]


def baseline_extra(o, disk_dir: str) -> list:
    return []


def pair_jobs(e) -> list:
    """The paired flops job (cpubench) and STREAM job (membench) (plan_pairs.PairEnv E)."""
    from .pairing import PairJob, heap_pages_args
    if not e.have("likwid"):
        return []
    isa, lisa, tmax, mode, key, one = e.isa, e.lisa, e.tmax, e.mode, e.key, e.one
    jobs = []
    if "cpu" in e.want and isa in ("avx512", "avx2"):
        # Both sides time a second: likwid-bench -s 1, cpubench --min-time 1. At --quick's
        # 0.05 s against likwid-bench's second, a few ms of a shared vCPU's jitter cost ours
        # a tenth (0.85 of likwid-bench on a 2-vCPU VM, rows flagged contended). likwid-bench
        # 5.2 reads -s as whole seconds: -s 0.5 ran 10 iterations a thread, 15 us, and read
        # 0.54 of ours.
        t = f"peakflops_{'avx512' if isa == 'avx512' else 'avx'}_fma"
        secs = e.round_value(ROUND_S)
        argv = ["cpubench", "--test", "flops", "--isa", isa, "--precision", "dp", "--threads", tmax] + \
            one("cpubench", False) + ["--min-time", secs]
        jobs.append(PairJob("likwid-flops", "likwid-bench", "cpu", e.script("likwid", "--threads", str(tmax),
                                                                            "--tests", t,
                                                                            "--min-seconds", secs),
                            f"likwid-bench -t {t} -w S0:{16 * tmax}kB:{tmax} -s {secs}",
                            [{"key": key("cpu", "flops", f"{isa}_dp_fma", tmax, None, "flops", "GFLOPS"),
                              "ours_job": " ".join(map(str, argv)), "cause": ""}],
                            [("flops", argv)], est=5, ours_est=4))
    if "memory" in e.want and lisa:
        # likwid's copy_mem and stream_mem are STREAM's copy and triad: one membench stream
        # job gives both rows, on arrays of the size likwid-bench is given (run(): two or
        # three of membench's arrays). At two threads or more the bandwidth follows the
        # vCPUs' placement (47 against 72 GB/s on the seventh session's VM):
        # placement-matched rounds. likwid-bench -s 0.5 is read as 0 whole seconds: its
        # floor of 10 iterations a thread, 0.2-0.3 s over these arrays on a 2-vCPU VM;
        # membench --min-time 0.5 times about as long.
        size = SIZE[mode]
        tests = [f"copy_mem_{lisa}", f"stream_mem_{lisa}"]
        stream = ["membench", "--test", "stream", "--size", f"{size}B", "--threads", tmax, "--nt", "on",
                  "--isa", isa] + heap_pages_args(e.o) + one("membench", False) + ["--min-time", STREAM_SECONDS]
        arr = membench_array_bytes(size, tmax)
        sjob = " ".join(map(str, stream))
        figs = [{"key": key("memory", "stream", f"{k}-{isa}-nt", tmax, arr, "throughput", "MB/s"),
                 "ours_job": sjob, "cause": ""} for k in ("copy", "triad")]
        jobs.append(PairJob("likwid-mem", "likwid-bench", "memory",
                            e.script("likwid", "--threads", str(tmax), "--tests", ",".join(tests),
                                     "--min-seconds", STREAM_SECONDS),
                            f"likwid-bench -t {','.join(tests)} -w S0:{size // 1000}kB:{tmax} -s {STREAM_SECONDS} "
                            f"(copy_mem: S0:{size * 2 // 3 // 1000}kB, membench's two arrays)", figs,
                            [("stream", stream)], est=9, ours_est=9, matched=tmax > 1))
    return jobs
