"""oneDNN's matmul (peak_ref_gemm, built against Debian's libdnnl-dev) for cpubench's BF16 and
INT8 rows (issue 37 §6; docs/benchmarks/cpu.md).

Mapping (peak_ref_gemm's line -> peakbench row; mean_g is GFLOPS for bf16, GIOPS for int8,
2 N^3 per matmul):
  bf16 on impl ...amx...             -> cpu flops amx_bf16_tile
  bf16 on impl ...avx512_core_bf16   -> cpu flops avx512_bf16_dot
  int8 on impl ...amx...             -> cpu iops amx_int8_tile_us   (u8 x s8: tdpbusd)
  int8 on impl ...avx512_core_vnni   -> cpu iops avx512_int8_dot    (u8 x s8: vpdpbusd)
  int8 on impl ...avx2_vnni          -> cpu iops avxvnni_int8_dot
oneDNN picks its kernel for the CPU (the impl string names it); the row is the unit that
kernel runs on. Any other kernel (oneDNN's fallback on a CPU with none of these units, such
as int8 through gemm:jit on AVX2) is no unit cpubench measures: a skipped entry says so.
Debian's OpenBLAS 0.3.21 exports no cblas_sbgemm (built without BUILD_BFLOAT16), so oneDNN is
the only packaged library that measures these formats. A GEMM moves its operands through
the caches and packs them: its rate is what an inference library reaches on the unit, at
most cpubench's register-resident figure (docs/benchmarks/cpu.md); the pair gives no cause,
so a ratio outside the band is reported unexplained.
peak_ref_gemm is found as --ctx bin=PATH (the plan passes the --build-dir's, relative to the
repository's root when under it), else on PATH.
Threads: OMP_NUM_THREADS (oneDNN's OpenMP runtime), --threads' largest count that fits."""
import os
import re
import shutil

from .common import NotToolOutput, last_line, row

NAME = "onednn"
TOOL = "oneDNN"
PROGRAM = "peak_ref_gemm"
SUITES = ("cpu",)
# The matmul's order by mode: 2 N^3 = 2.1 G ops a matmul at 1024 (about 10 ms at a core's
# 200 GFLOPS, long beside the library's per-call overhead); 2048 for several threads.
SIZE = {"full": 2048, "quick": 1024, "tiny": 256}
SECONDS = {"full": "1", "quick": "0.5", "tiny": "0.1"}
# A paired round's timed seconds on both sides (cpubench --min-time, the adapter's
# --min-seconds): 0.5 s, was 1. On the Zen 5 record (../shared/machines/amd-zen5-turin-bhyve,
# 1 s) the BF16 ratio read 1.041-1.071 over six rounds and INT8 1.11-1.20 (one round 1.58);
# the same run's cpubench rows of 0.1 s repetitions spread 2.2% (BF16) and 2.8% (INT8) (CV,
# five repetitions), so half a second is no noisier than the rounds. Our side is every
# kernel of the format and one ISA row (cpubench has no single-kernel option): 9 s (BF16)
# and 14 s (INT8) a side at 1 s, against oneDNN's 1-2 s. `adapters pair onednn-int8
# --runtimes 0.5,1` measures it.
ROUND_S = {"full": "0.5", "quick": "0.5", "tiny": "0.1"}
# our side's seconds a round at ROUND_S (cpubench: each kernel's calibration, warm-up, run)
OURS_EST = {"bf16": 5, "int8": 8}
CPU_UNITS = {  # (format, cpuinfo flags) -> the variant oneDNN's kernel for them runs on
    "bf16": (("amx_bf16", "amx_bf16_tile"), ("avx512_bf16", "avx512_bf16_dot")),
    "int8": (("amx_int8", "amx_int8_tile_us"), ("avx512_vnni", "avx512_int8_dot"),
             ("avx_vnni", "avxvnni_int8_dot")),
}


def variant_of(fmt: str, impl: str) -> str:
    """The cpubench variant of the unit oneDNN's kernel IMPL runs on; "" for none."""
    if "amx" in impl:
        return "amx_bf16_tile" if fmt == "bf16" else "amx_int8_tile_us"
    if fmt == "bf16" and "avx512_core_bf16" in impl:
        return "avx512_bf16_dot"
    if fmt == "int8" and "avx512_core_vnni" in impl:
        return "avx512_int8_dot"
    if fmt == "int8" and "avx2_vnni" in impl:
        return "avxvnni_int8_dot"
    return ""


def expected_variant(fmt: str, flags: set) -> str:
    """The unit oneDNN will pick on a CPU with these flags (the plan's key), or ""."""
    return next((v for f, v in CPU_UNITS[fmt] if f in flags), "")


# The repository's root: a relative --ctx bin= is read from it (the plan's build/...).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _binary(a) -> str:
    """--ctx bin=PATH (relative: to the repository's root), else peak_ref_gemm on PATH."""
    b = a.ctx_dict().get("bin", "")
    if b:
        b = os.path.join(ROOT, b)
        return b if os.access(b, os.X_OK) else ""
    return shutil.which(PROGRAM) or ""


def run(r, a) -> int:
    binary = _binary(a)
    if not binary and not r.plan:
        why = (f"{PROGRAM} not installed (not built: oneDNN's libdnnl-dev missing; "
               "Debian: apt install libdnnl-dev, then make)")
        for t in ("bf16", "int8"):
            r.skip(t, why)
        return r.finish()
    t = a.max_threads()
    n = a.n or str(SIZE[a.mode])
    secs = a.min_seconds or SECONDS[a.mode]
    rc = 0
    for fmt in ("bf16", "int8"):
        if not a.want(fmt):
            continue
        out = os.path.join(r.raw, f"onednn-{fmt}-{t}.txt")
        argv = [binary or PROGRAM, fmt, "--size", n, "--min-seconds", secs]
        env = dict(os.environ, OMP_NUM_THREADS=str(t), OMP_PROC_BIND="close", OMP_PLACES="cores")
        shown = f"OMP_NUM_THREADS={t} {PROGRAM} " + " ".join(argv[1:])
        if not r.run(120, out, argv, shown=shown, env=env):
            if r.rc == 3:
                said = last_line(out + ".err").removeprefix(f"{PROGRAM}: ")
                r.skip(fmt, said or f"oneDNN has no {fmt} matmul on this CPU")
                continue
            r.say(f"{PROGRAM} {fmt} failed: {last_line(out + '.err')}")
            r.skip(fmt, f"failed: {PROGRAM} {fmt} exited {r.rc}")
            rc = 1
            continue
        impl = _impl(out)
        if not r.plan and not variant_of(fmt, impl):
            # oneDNN's fallback (AVX2 int8 through gemm:jit, a reference kernel): no unit
            # of cpubench's, so no row to pair it with
            r.outs.remove(out)
            r.skip(fmt, f"oneDNN ran its {impl or 'unknown'} kernel: no cpubench row runs that unit")
    return r.finish() or rc


def _impl(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            m = re.search(r" impl=(\S+) ", f.read())
    except OSError:
        return ""
    return m.group(1) if m else ""


_LINE = re.compile(r"^format=(bf16|int8) size=([0-9]+) threads=(\S+) reps=([0-9]+) seconds=(\S+) "
                   r"mean_g=(\S+) best_g=(\S+) impl=(\S+) version=(\S+)\s*$", re.M)


def parse(path: str, ctx: dict) -> tuple:
    """peak_ref_gemm's line -> the cpu flops (bf16) or iops (int8) row of that unit."""
    with open(path, errors="replace") as f:
        m = _LINE.search(f.read())
    if not m:
        raise NotToolOutput("no peak_ref_gemm line (format=... mean_g=...)")
    fmt, n, threads, reps, _, mean, best, impl, ver = m.groups()
    variant = variant_of(fmt, impl)
    if not variant:
        raise NotToolOutput(f"oneDNN ran its {impl} kernel: no cpubench row runs that unit")
    if not threads.isdigit():
        raise NotToolOutput("OMP_NUM_THREADS was not set: the thread count is unknown")
    version = ver.replace("-", " ")
    key = ("cpu", "flops" if fmt == "bf16" else "iops", variant, int(threads), None,
           "flops" if fmt == "bf16" else "iops_int", "GFLOPS" if fmt == "bf16" else "GIOPS")
    return version, [row(TOOL, version, key, float(mean), job=f"{PROGRAM} {fmt} --size {n} ({impl})",
                         config=f"size={n};impl={impl}", n=int(reps), max=float(best))]


def baseline_extra(o, disk_dir: str) -> list:
    return []


def pair_jobs(e) -> list:
    """A paired job per format whose unit this CPU has (plan_pairs.PairEnv E): oneDNN's
    matmul against cpubench's row of that unit at the largest thread count."""
    from .pairing import PairJob, cpu_flags
    if "cpu" not in e.want:
        return []
    binary = os.path.join(e.o.build_dir, "cpu", PROGRAM)
    # --have names the tools present (tests); else the build's binary, or one on PATH
    if not (e.have(NAME) if e.o.have is not None else os.access(binary, os.X_OK) or e.have(NAME)):
        return []
    flags, jobs = cpu_flags(e.o), []
    for fmt in ("bf16", "int8"):
        variant = expected_variant(fmt, flags)
        if not variant:
            continue
        test = "flops" if fmt == "bf16" else "iops"
        # the format's rows (--number-formats) and one ISA row beside them (cpubench has no
        # empty --isa): the widest, at one precision or lane width
        ours = ["cpubench", "--test", test, "--number-formats", fmt, "--isa", "best",
                "--precision", "sp", "--lanes", "32", "--threads", e.tmax] + \
            e.one("cpubench", False) + ["--min-time", e.round_value(ROUND_S)]
        key = e.key("cpu", test, variant, e.tmax, None, "flops" if fmt == "bf16" else "iops_int",
                    "GFLOPS" if fmt == "bf16" else "GIOPS")
        n = SIZE[e.mode] if e.tmax > 1 else min(SIZE[e.mode], 1024)
        # the build's binary, relative to the root when under it (the plans are portable)
        rel = os.path.relpath(binary, e.o.root)
        where = ["--ctx", f"bin={binary if rel.startswith('..') else rel}"]
        jobs.append(PairJob(f"onednn-{fmt}", TOOL, "cpu",
                            e.script(NAME, "--threads", str(e.tmax), "--tests", fmt, "--n", str(n),
                                     "--min-seconds", e.round_value(ROUND_S), *where),
                            f"OMP_NUM_THREADS={e.tmax} {PROGRAM} {fmt} --size {n}",
                            # no cause: "a GEMM is not a register loop" would hold on any
                            # machine (issue 25); out of the band the ratio is unexplained
                            [{"key": key, "ours_job": " ".join(map(str, ours)), "cause": ""}],
                            [(test, ours)], est=2, ours_est=OURS_EST[fmt] if e.mode == "full" else 3))
    return jobs
