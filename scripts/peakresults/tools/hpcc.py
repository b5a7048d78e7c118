"""hpcc's hpccoutf.txt summary -> cpu linpack and memory stream rows. HPL_Tflops x 1000 =
GFLOPS (cpu linpack dgesv; threads = OpenBLAS threads x MPI processes); SingleSTREAM
GB/s x 1000 = MB/s for membench stream <kernel>-<isa> at one thread, arrays of
STREAM_VectorSize doubles. hpcc's STREAM stores are ordinary (no non-temporal stores):
the reference for membench --nt off, not for its default (-nt) rows at these sizes.
scripts/baseline/hpcc.sh appends peakbench_blas_threads=T to the file."""
import re

from . import NotToolOutput, isa_of_cpu, row

TOOL = "hpcc"


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
    isa = ctx.get("isa") or isa_of_cpu()
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
    for k in ("Copy", "Scale", "Add", "Triad"):
        v = float(kv.get(f"SingleSTREAM_{k}", "0") or 0)
        if v > 0:
            rows.append(row(TOOL, ver, ("memory", "stream", f"{k.lower()}-{isa}", sthreads, arr, "throughput", "MB/s"),
                            v * 1000, job=f"hpcc SingleSTREAM {k}, arrays of {own} bytes",
                            config=f"array_bytes={own};nt_stores=0;single_process"))
    if not rows:
        raise NotToolOutput("no HPL or STREAM figure")
    return ver, rows
