"""HPC Challenge (hpcc): HPL for linpack, STREAM for membench's stream test. The one hpcc
adapter, for one node (here: the unpaired step, the paired job) and for many (cluster.py:
`adapters hpcc cluster run`, which scripts/cluster_hpcc.sh launches: b_eff and HPL across a
hostfile's nodes, docs/cluster.md).

Mapping (from hpccoutf.txt's summary section):
  HPL_Tflops x 1000 -> cpu linpack dgesv (GFLOPS), threads = OpenBLAS threads x MPI processes
  STREAM            -> memory stream <kernel>-<isa> at one thread, arrays of STREAM_VectorSize
                       doubles (keyed by membench's array in a paired job: ctx stream_bytes)
hpcc runs one MPI process (singleton) with OPENBLAS_NUM_THREADS = the largest thread count
that fits the CPUs, P = Q = 1, NB = 192 and N from the mode: full 8000 (STREAM arrays of 171 MB
each, well above the 36 MiB LLC here), quick 2880 (22 MB), tiny 500; in a directory of its own
(hpccinf.txt in, hpccoutf.txt out), removed after. The saved output gets
"peakbench_blas_threads=T" appended, so the parser knows the thread count.
STREAM's reported rate is its best pass (min time); membench's figure is a mean, so the
row's mean is STREAM's bytes / its average time over the timed passes (printed to 0.1 ms:
about 2% on a 5 ms pass), its max the best rate, its min the rate of the slowest pass.
Which call: hpcc runs STREAM twice in one process, StarSTREAM (every process) then
SingleSTREAM (one process), and its stream.c keeps the average, min and max times in static
arrays that the second call does not reset: SingleSTREAM's "Avg time" is its own mean plus
StarSTREAM's average / 9, and its min and max span both calls (an average above the max
shows it). So with one MPI process, where StarSTREAM is the same single-process job, the
rows come from StarSTREAM's table; with more, from SingleSTREAM's best pass only
(flag best_pass_only). hpcc's STREAM stores are ordinary (no non-temporal stores): the
reference for membench --nt off, not for its default (-nt) rows at these sizes."""
import functools
import os
import re
import shutil
import subprocess
import tempfile

from ..common import NotToolOutput, isa_of_cpu, last_line, row

NAME = TOOL = PROGRAM = "hpcc"
SUITES = ("cpu", "memory")
# The paired job's N (pair_jobs), and --quick's linpack N (plan.QUICK_LINPACK_N): the full
# protocol's 4000 (128 MB); --quick's 2880, the largest multiple of NB under 2896, where the
# matrix (66 MB) halves hpcc's RandomAccess table (2^22 words: a power of two under the
# matrix's bytes / 8), which took 22 of a 29-s round at 4000 on a 2-vCPU VM (issue 26).
# N is this pair's round length (hpcc has no runtime: it runs its whole suite). Kept at 4000
# in the full protocol: the Zen 5 record's HPL ratio read 0.89-1.03 over six rounds, 15-19 s
# a round, and at 2880 hpcc's STREAM arrays (21 MiB) would sit inside a 32 MiB L3.
# `adapters pair hpcc --runtimes 2880,4000` measures it (the values are N).
PAIR_N = {"full": 4000, "quick": 2880, "tiny": 500}
# adapters pair --runtimes: a length here is a whole number (HPL's N, as this
# adapter passes it).
ROUND_WHOLE = True
# HPL's order by mode when the adapter runs alone (run: --tiny's unpaired step, or by hand):
# the paired job's, but 8000 for the full mode (STREAM arrays past the LLC)
N = dict(PAIR_N, full=8000)
LIMIT_S = {"full": 900, "quick": 300, "tiny": 120}
NB = 192


def _cluster(argv: list) -> int:
    from . import cluster
    return cluster.main(argv)


# The adapter's own commands beside a run (common.main): hpcc across the nodes of a hostfile.
COMMANDS = {"cluster": _cluster}


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
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        head = b""
    if (head[:4] == b"\x7fELF" and head[18:20] == b"\xb7\x00") or (head[:2] == b"#!" and b"qemu-aarch64" in head):
        # an arm64 hpcc (run by cmake/qemu-aarch64.sh's wrapper): no x86 code to read; its
        # STREAM is taken as scalar, as Debian's gcc -O2 leaves it on x86-64
        return "scalar", "hpcc's vector width not measured (an arm64 hpcc): scalar assumed"
    if not shutil.which("objdump"):
        return "sse2", "hpcc's vector width not measured (no objdump): SSE2 assumed"
    try:
        st = os.stat(path)
    except OSError as e:
        return "sse2", f"hpcc's vector width not measured ({e}): SSE2 assumed"
    return _disassembled_isa(os.path.realpath(path), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _disassembled_isa(path: str, size: int, mtime_ns: int) -> tuple:
    """vector_isa's reading of one binary, kept per file version (its size and time are in
    the key): a plan asks for every hpcc pair, and objdump and the scan take half a second."""
    del size, mtime_ns  # the cache's key only
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


def summary(text: str) -> dict | None:
    """hpccoutf.txt's summary section as {key: value text}, None when it has none."""
    m = re.search(r"^Begin of Summary section\.?\s*$(.*?)^End of Summary section", text, re.M | re.S)
    return dict(ln.split("=", 1) for ln in m.group(1).splitlines() if "=" in ln) if m else None


def parse(path: str, ctx: dict) -> tuple:
    with open(path, errors="replace") as f:
        text = f.read()
    kv = summary(text)
    if kv is None:
        raise NotToolOutput("no summary section")
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


def write_input(n: int, nb: int, p: int = 1, q: int = 1) -> str:
    """hpccinf.txt: HPL N, NB, a P x Q grid (1 x 1: one process); PTRANS sizes left small."""
    return f"""HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n}         Ns
1            # of NBs
{nb}          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p}            Ps
{q}            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
"""


def run(r, a) -> int:
    if not r.have("hpcc"):
        r.skip("linpack", "hpcc not installed (Debian: apt install hpcc)")
        r.skip("stream", "hpcc not installed (Debian: apt install hpcc)")
        return r.finish()
    n = int(a.n or N[a.mode])
    threads = a.max_threads()
    shown = f"OPENBLAS_NUM_THREADS={threads} OMP_NUM_THREADS=1 hpcc  # hpccinf.txt: N={n} NB={NB} P=Q=1"
    if r.plan:
        print(shown, flush=True)
        return 0
    work = tempfile.mkdtemp(prefix="peakbench-hpcc.", dir=os.environ.get("TMPDIR") or "/tmp")
    r.cleanups.append(lambda: shutil.rmtree(work, ignore_errors=True))
    for d in (work, r.raw):
        with open(os.path.join(d, "hpccinf.txt"), "w") as f:
            f.write(write_input(n, NB))
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS="1")
    stdout = os.path.join(r.raw, "hpcc.stdout")
    ok = r.run(LIMIT_S[a.mode], stdout, ["hpcc"], shown=f"cd {work} && {shown}", cwd=work, env=env)
    r.outs = [o for o in r.outs if o != stdout]
    res = os.path.join(work, "hpccoutf.txt")
    if not ok or not (os.path.exists(res) and os.path.getsize(res) > 0):
        r.say(f"hpcc exited {r.rc}: {last_line(stdout)}")
        r.skip("linpack", f"failed: hpcc exited {r.rc}")
        r.finish()
        return 1
    out = os.path.join(r.raw, "hpccoutf.txt")
    with open(res, errors="replace") as f, open(out, "w") as g:
        g.write(f.read())
        g.write(f"peakbench_blas_threads={threads}\n")
    r.outs.append(out)
    if r.finish():
        r.say(f"no summary in {out}")
        return 1
    return 0




def baseline_extra(o, disk_dir: str) -> list:
    return []


def pair_jobs(e) -> list:
    """The paired HPL (linpack) and STREAM (membench, one thread) job (plan_pairs.PairEnv E)."""
    from ..pairing import PairJob, heap_pages_args
    from ..likwid import membench_array_bytes
    if not ("cpu" in e.want or "memory" in e.want) or not e.have("hpcc"):
        return []
    mode, tmax, key = e.mode, e.tmax, e.key
    # --quick: the N of its linpack sweep (plan.QUICK_LINPACK_N), so that the pair checks the
    # figure the report shows (at 2000 HPL read 0.81 of dgesv on a 2-vCPU VM)
    n = int(e.round_value(PAIR_N))
    arr = membench_array_bytes(n * n * 8, 1)
    lp = ["linpack", "--n", n, "--threads", tmax] + e.one("linpack", False)
    # hpcc's STREAM runs the code its binary was built with, not the CPU's widest ISA:
    # membench runs the ISA read from the binary's timed Triad loop (vector_isa; Debian's is
    # scalar, movsd/mulsd/addsd, one double per instruction).
    hisa, how = vector_isa()
    st = ["membench", "--test", "stream", "--size", f"{n * n * 8}B", "--threads", 1, "--nt", "off",
          "--isa", hisa] + heap_pages_args(e.o) + e.one("membench")
    return [PairJob("hpcc", "hpcc", "cpu", e.script("hpcc", "--threads", str(tmax), "--n", str(n), "--ctx",
                                                    f"stream_bytes={arr}", "--ctx", f"isa={hisa}"),
                    f"hpcc N={n} NB=192 P=Q=1 OPENBLAS_NUM_THREADS={tmax}",
                    [{"key": key("cpu", "linpack", "dgesv", tmax, None, "flops", "GFLOPS"),
                      "ours_job": " ".join(map(str, lp)),
                      # no cause given: "different factorisations" would be true on any
                      # machine (issue 25); out of the band it is "unexplained"
                      "cause": ""},
                     {"key": key("memory", "stream", f"triad-{hisa}", 1, arr, "throughput", "MB/s"),
                      "ours_job": " ".join(map(str, st)),
                      "cause": "" if how == "measured" else how}],
                    # hpcc runs its whole suite whatever is paired (RandomAccess, FFT, PTRANS...):
                    # 15-19 s a round at N 4000 on the Zen 5 record, each part of ours 2-3 s
                    [("hpl", lp), ("stream", st)], est={"full": 17, "quick": 12, "tiny": 3}[mode],
                    ours_est={"full": 3, "quick": 3, "tiny": 2}[mode])]
