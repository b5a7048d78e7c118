"""hpcc's hpccoutf.txt summary -> cpu linpack and memory stream rows. HPL_Tflops x 1000 =
GFLOPS (cpu linpack dgesv; threads = OpenBLAS threads x MPI processes); STREAM for membench
stream <kernel>-<isa> at one thread, arrays of STREAM_VectorSize doubles.
STREAM's reported rate is its best pass (min time); membench's figure is a mean, so the
row's mean is STREAM's bytes / its average time over the timed passes (printed to 0.1 ms:
about 2% on a 5 ms pass), its max the best rate, its min the rate of the slowest pass.
Which call: hpcc runs STREAM twice in one process, StarSTREAM (every process) then
SingleSTREAM (one process), and its stream.c keeps the average, min and max times in static
arrays that the second call does not reset: SingleSTREAM's "Avg time" is its own mean plus
StarSTREAM's average / 9, and its min and max span both calls (an average above the max
shows it). So with one MPI process, where StarSTREAM is the same single-process job, the
rows come from StarSTREAM's table; with more, from SingleSTREAM's best pass only
(flag best_pass_only). hpcc's STREAM stores are ordinary (no non-temporal stores):
the reference for membench --nt off, not for its default (-nt) rows at these sizes.
scripts/baseline/hpcc.sh appends peakbench_blas_threads=T to the file."""
import re
import shutil
import subprocess

from . import NotToolOutput, isa_of_cpu, row

TOOL = "hpcc"


def isa_of_disassembly(text: str) -> str:
    """membench's ISA for the widest vector registers in objdump -d output."""
    if "%zmm" in text:
        return "avx512"
    if "%ymm" in text:
        return "avx2"
    return "sse2"  # x86-64's baseline: every build may use it


# objdump lines: "  1f33f:\tmulsd  %xmm10,%xmm11"; a call to the timer closes a timed block
_INSN = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")
_TIMER = re.compile(r"call.*<(MPI_Wtime|mysecond|gettimeofday|clock_gettime)")
_ARITH = re.compile(r"^v?(mul|add|fn?madd[0-9]*)([sp])d$")


def _timed_blocks(text: str) -> list:
    """[(op kinds, mnemonics)] of the code between consecutive timer calls: op kinds is the
    set of {"mul", "add", "fma"} done on doubles, mnemonics the arithmetic with its operands."""
    blocks, cur = [], None
    for line in text.splitlines():
        if _TIMER.search(line):
            if cur is not None:
                blocks.append(cur)
            cur = (set(), [])
            continue
        m = _INSN.match(line)
        if cur is None or not m:
            continue
        a = _ARITH.match(m.group(1))
        if a:
            cur[0].add("fma" if "madd" in a.group(1) else a.group(1))
            cur[1].append((a.group(2), m.group(2)))
    return blocks


def stream_triad_isa(text: str) -> str | None:
    """membench's ISA for the code of STREAM's timed Triad loop in objdump -d output, or None
    when no such loop is found. STREAM times Copy, Scale (multiplies only), Add (adds only)
    and Triad (a multiply and an add, or an FMA) one after another between timer calls;
    the Triad loop is the first timed block doing both that follows an add-only block.
    Scalar code (mulsd/addsd: one double per instruction, as gcc -O2 builds STREAM when it
    cannot prove the arrays apart) is "scalar", packed code the width of its registers."""
    prev = set()
    for kinds, ops in _timed_blocks(text):
        if kinds and prev == {"add"} and ("fma" in kinds or {"mul", "add"} <= kinds):
            if all(kind == "s" for kind, _ in ops):
                return "scalar"
            return isa_of_disassembly("\n".join(args for kind, args in ops if kind == "p"))
        if kinds:
            prev = kinds
    return None


def vector_isa(path: str | None = None) -> tuple:
    """(membench ISA, how) for the STREAM Triad loop of the hpcc binary at PATH (default: on
    PATH): "measured" from its disassembly, else the ISA of its widest registers, or sse2,
    with the reason the loop was not read."""
    path = path or shutil.which("hpcc")
    if not path:
        return "sse2", "hpcc's vector width not measured (hpcc not found): SSE2 assumed"
    if not shutil.which("objdump"):
        return "sse2", "hpcc's vector width not measured (no objdump): SSE2 assumed"
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                             text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return "sse2", f"hpcc's vector width not measured (objdump: {e}): SSE2 assumed"
    isa = stream_triad_isa(out)
    if isa:
        return isa, "measured"
    return isa_of_disassembly(out), "hpcc's STREAM Triad loop not found in its disassembly: ISA of its widest registers"


def _stream_times(text: str, section: str) -> tuple:
    """{kernel: (avg, min, max) seconds} of a STREAM section (StarSTREAM, SingleSTREAM), and
    the number of timed passes (STREAM runs each kernel NTIMES and drops the first)."""
    m = re.search(rf"^Begin of {section} section\.?$(.*?)^End of {section} section", text, re.M | re.S)
    if not m:
        return {}, 1
    times = {k: (float(a), float(lo), float(hi)) for k, a, lo, hi in
             re.findall(r"^(Copy|Scale|Add|Triad):\s+[0-9.]+\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)", m.group(1), re.M)
             if float(a) > 0 and float(lo) > 0 and float(hi) > 0}
    n = re.search(r"Each test is run ([0-9]+) times", m.group(1))
    return times, max(int(n.group(1)) - 1, 1) if n else 1


def parse(path: str, ctx: dict) -> tuple:
    with open(path, errors="replace") as f:
        text = f.read()
    m = re.search(r"^Begin of Summary section\.?\s*$(.*?)^End of Summary section", text, re.M | re.S)
    if not m:
        raise NotToolOutput("no summary section")
    kv = dict(ln.split("=", 1) for ln in m.group(1).splitlines() if "=" in ln)
    if not kv.get("Success"):
        raise NotToolOutput("no Success= in the summary")
    blas = re.search(r"^peakbench_blas_threads=([0-9]+)", text, re.M)
    procs = int(float(kv.get("CommWorldProcs", "1")))
    threads = int(blas.group(1)) if blas else procs
    ver = "hpcc " + kv.get("VersionMajor", "?") + "." + kv.get("VersionMinor", "?") + "." + kv.get("VersionMicro", "?") \
        if "VersionMajor" in kv else "hpcc"
    # the vector width hpcc's STREAM was built for (the CPU's widest when it cannot be read)
    isa = ctx.get("isa") or (vector_isa()[0] if shutil.which("hpcc") else isa_of_cpu())
    rows = []
    tf = float(kv.get("HPL_Tflops", "0") or 0)
    if tf > 0:
        rows.append(row(TOOL, ver, ("cpu", "linpack", "dgesv", threads * max(procs, 1), None, "flops", "GFLOPS"),
                        tf * 1000, job=f"hpcc HPL N={kv.get('HPL_N')} NB={kv.get('HPL_NB')} "
                        f"P={kv.get('HPL_nprow')} Q={kv.get('HPL_npcol')} OPENBLAS_NUM_THREADS={threads}",
                        config=f"N={kv.get('HPL_N')};NB={kv.get('HPL_NB')};blas_threads={threads}"))
    own = int(float(kv.get("STREAM_VectorSize", "0"))) * 8 or None
    # A paired job names membench's array (ctx stream_bytes): hpcc's own stays in config.
    arr = int(ctx["stream_bytes"]) if ctx.get("stream_bytes") else own
    sthreads = int(float(kv.get("STREAM_Threads", "1") or 1)) or 1
    # one process: StarSTREAM, the first call, whose times no earlier call has touched
    section = "StarSTREAM" if procs == 1 else "SingleSTREAM"
    times, passes = _stream_times(text, section) if procs == 1 else ({}, 1)
    for k in ("Copy", "Scale", "Add", "Triad"):
        v = float(kv.get(f"{section}_{k}", "0") or 0)
        if v <= 0:
            continue
        stats, mean = {"max": v * 1000}, v * 1000
        t = times.get(k)
        if t and own:
            nbytes = (2 if k in ("Copy", "Scale") else 3) * own  # STREAM's count, no write-allocate
            mean = nbytes / t[0] / 1e6
            stats.update(min=nbytes / t[2] / 1e6, n=passes)
        rows.append(row(TOOL, ver, ("memory", "stream", f"{k.lower()}-{isa}", sthreads, arr, "throughput", "MB/s"),
                        mean, job=f"hpcc {section} {k}, arrays of {own} bytes",
                        config=f"array_bytes={own};nt_stores=0;single_process",
                        flags="" if t else "best_pass_only", **stats))
    if not rows:
        raise NotToolOutput("no HPL or STREAM figure")
    return ver, rows
