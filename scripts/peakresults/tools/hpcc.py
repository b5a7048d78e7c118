"""hpcc's hpccoutf.txt summary -> cpu linpack and memory stream rows. HPL_Tflops x 1000 =
GFLOPS (cpu linpack dgesv; threads = OpenBLAS threads x MPI processes); SingleSTREAM
for membench stream <kernel>-<isa> at one thread, arrays of STREAM_VectorSize doubles.
STREAM's reported rate is its best pass (min time); membench's figure is a mean, so the
row's mean is STREAM's bytes / its average time over the timed passes (printed to 0.1 ms:
about 2% on a 5 ms pass), its max the best rate, its min the rate of the slowest pass. hpcc's STREAM stores are ordinary (no non-temporal stores):
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


def vector_isa(path: str | None = None) -> tuple:
    """(membench ISA, how) for the hpcc binary at PATH (default: on PATH): "measured" from
    its disassembly, else sse2 with the reason it was not measured."""
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
    return isa_of_disassembly(out), "measured"


def _single_stream_times(text: str) -> tuple:
    """{kernel: (avg, min, max) seconds} of the SingleSTREAM section, and the number of timed
    passes (STREAM runs each kernel NTIMES and drops the first)."""
    m = re.search(r"^Begin of SingleSTREAM section\.?$(.*?)^End of SingleSTREAM section", text, re.M | re.S)
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
    times, passes = _single_stream_times(text)
    for k in ("Copy", "Scale", "Add", "Triad"):
        v = float(kv.get(f"SingleSTREAM_{k}", "0") or 0)
        if v <= 0:
            continue
        stats, mean = {"max": v * 1000}, v * 1000
        t = times.get(k)
        if t and own:
            nbytes = (2 if k in ("Copy", "Scale") else 3) * own  # STREAM's count, no write-allocate
            mean = nbytes / t[0] / 1e6
            stats.update(min=nbytes / t[2] / 1e6, n=passes)
        rows.append(row(TOOL, ver, ("memory", "stream", f"{k.lower()}-{isa}", sthreads, arr, "throughput", "MB/s"),
                        mean, job=f"hpcc SingleSTREAM {k}, arrays of {own} bytes",
                        config=f"array_bytes={own};nt_stores=0;single_process",
                        flags="" if t else "best_pass_only", **stats))
    if not rows:
        raise NotToolOutput("no HPL or STREAM figure")
    return ver, rows
