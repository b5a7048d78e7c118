"""likwid-bench output -> cpu flops or memory rows. MFlops/s / 1000 = GFLOPS, MByte/s =
MB/s (decimal, bytes read + written as membench counts them). The *_mem kernels store
non-temporally: copy_mem and stream_mem are STREAM's copy and triad, the reference for
membench stream's copy-<isa>-nt and triad-<isa>-nt rows (arrays beyond the LLC, where
membench's --nt auto picks non-temporal stores).
peakflops (scalar) is another loop than cpubench's scalar add+mul: the job says so."""
import re

from . import NotToolOutput, row

TOOL = "likwid-bench"
FLOPS = {"peakflops": "scalar_dp_addmul", "peakflops_sp": "scalar_sp_addmul",
         "peakflops_avx_fma": "avx2_dp_fma", "peakflops_sp_avx_fma": "avx2_sp_fma",
         "peakflops_avx512_fma": "avx512_dp_fma", "peakflops_sp_avx512_fma": "avx512_sp_fma"}
# likwid ISA suffix -> membench's kernel name
ISA = {"avx512": "avx512", "avx": "avx2", "sse": "sse2"}


def membench_array_bytes(size: int, threads: int) -> int:
    """One STREAM array of membench --size SIZE at THREADS threads: its block_bytes
    (memory/mem_stream.c elems_per_thread: per thread a multiple of 16 doubles)."""
    n = size // 3 // 8 // threads // 16 * 16 or 16
    return n * threads * 8


def _num(text, label):
    m = re.search(r"^" + re.escape(label) + r":?\s+([0-9.eE+-]+)\s*$", text, re.M)
    return float(m.group(1)) if m else None


def parse(path: str, ctx: dict) -> tuple:
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
    # (ctx membench_size, from which scripts/baseline/likwid.sh derives likwid-bench's
    # working set), keyed by membench's array; else likwid's Size over its arrays.
    arrays = 2 if m.group(1) == "copy" else 3
    if "membench_size" in ctx:
        arr = membench_array_bytes(int(ctx["membench_size"]), threads)
    else:
        arr = int(ctx.get("block_bytes", int(size // arrays) if size else 0)) or None
    key = ("memory", "stream", f"{'copy' if arrays == 2 else 'triad'}-{isa}-nt", threads, arr)
    return ver, [row(TOOL, ver, key + ("throughput", "MB/s"), v, job=job, config=config + ";nt_stores=1")]
