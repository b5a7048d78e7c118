"""Where the reference tools' hot loops are in their stripped binaries (insmix.py), and the
cause a CPU/memory pair's record can carry: our kernel's loop against the tool's."""
import re
import subprocess
import sys

from peakresults.insmix import insmix


def _run(argv: list) -> str:
    r = subprocess.run(argv, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise OSError(f"{' '.join(argv[:2])}: exit {r.returncode}")
    return r.stdout


def kernel_address(headers: str, relocs: str, blob: bytes, test: str) -> int | None:
    """The address of likwid-bench's kernel for TEST: its name's string in .rodata, the
    relocated pointer to it in the test table, then the first pointer into .text among the
    next 16 pointers of that entry. HEADERS: objdump -h; RELOCS: objdump -R; BLOB: the file."""
    secs = {}
    for m in re.finditer(r"^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", headers, re.M):
        secs[m.group(1)] = (int(m.group(3), 16), int(m.group(2), 16), int(m.group(4), 16))
    if ".rodata" not in secs or ".text" not in secs:
        return None
    va, size, off = secs[".rodata"]
    i = blob[off:off + size].find(b"\0" + test.encode() + b"\0")
    if i < 0:
        return None
    name_at = va + i + 1
    rel = {int(m.group(1), 16): int(m.group(2), 16)
           for m in re.finditer(r"^([0-9a-f]+) R_X86_64_RELATIVE\s+\*ABS\*\+0x([0-9a-f]+)", relocs, re.M)}
    tva, tsize, _ = secs[".text"]
    for slot in sorted(k for k, v in rel.items() if v == name_at):
        for k in range(1, 17):
            v = rel.get(slot + 8 * k)
            if v is not None and tva <= v < tva + tsize:
                return v
    return None


def likwid_kernel(binary: str, test: str) -> str:
    """The disassembly of likwid-bench's TEST kernel, up to its first ret ("" if not found)."""
    with open(binary, "rb") as f:
        blob = f.read()
    addr = kernel_address(_run(["objdump", "-h", binary]), _run(["objdump", "-R", binary]), blob, test)
    if addr is None:
        return ""
    text = insmix.objdump(binary, f"--start-address={addr:#x}", f"--stop-address={addr + 4096:#x}")
    out = []
    for line in text.splitlines():
        out.append(line)
        if re.search(r":\s+ret\b", line):
            break
    return "\n".join(out)


def hpcc_triad(text: str) -> str:
    """The code of hpcc's timed STREAM Triad block in objdump -d text ("" if not found):
    the first block between timer calls that multiplies and adds doubles (or FMAs) after
    one that only adds (STREAM times Copy, Scale, Add, Triad in that order)."""
    blocks, cur = [], None
    for line in text.splitlines():
        if insmix._TIMER.search(line):
            if cur is not None:
                blocks.append(cur)
            cur = []
        elif cur is not None:
            cur.append(line)
    prev = set()
    for b in blocks:
        kinds = set()
        for _, mn, _ops in insmix.instructions("\n".join(b)):
            base = mn[1:] if mn.startswith("v") else mn
            m = re.match(r"^(mul|add|fn?madd[0-9]*)[sp]d$", base)
            if m:
                kinds.add("fma" if "madd" in m.group(1) else m.group(1))
        if kinds and prev == {"add"} and ("fma" in kinds or {"mul", "add"} <= kinds):
            return "\n".join(b)
        if kinds:
            prev = kinds
    return ""


def _ours(job: str, binary: str, kernel: str):
    """(mix, reason) of our stream kernel for a membench job line (its --isa and --nt)."""
    isa = (re.search(r"--isa (\S+)", job) or [None, "avx2"])[1]
    nt = "--nt off" not in job
    width = {"avx512": 512, "avx2": 256, "sse2": 128, "scalar": 64}.get(isa, 256)
    best = None
    for sec in insmix.sections(insmix.objdump(binary), kernel):
        ms = [insmix.mix(b) for b in insmix.loops(sec)]
        if max((x["width"] or 64 for x in ms), default=0) != width:
            continue  # another ISA's copy of the kernel (its scalar tail loop is 64 bits too)
        m = insmix.hot([x for x in ms if (x["width"] or 64) == width and x["stores"]], nt)
        if m is not None and (best is None or m["store_bits"] > best["store_bits"]):
            best = m
    return (best, "") if best else (None, f"no {kernel} loop of {width} bits in {binary}")


def pair_mix(job: dict, ours_binary: str, tool_binary: str | None = None):
    """(cause or None, reason): our stream kernel's loop against the tool's for a paired
    job's figures (likwid-bench copy_mem/stream_mem, hpcc's Triad). The reason says why
    there is no cause: the loops are the same, or which loop could not be found."""
    tool = job.get("tool", "")
    causes, reasons = [], []
    for fig in job.get("figures") or [job]:
        key = fig.get("key") or {}
        if key.get("test") != "stream":
            continue
        kind = str(key.get("variant", "")).split("-")[0]
        ours_kernel = {"copy": "s_copy", "triad": "s_triad"}.get(kind)
        if not ours_kernel:
            continue
        try:
            a, why = _ours(fig.get("ours_job", ""), ours_binary, ours_kernel)
            if a is None:
                reasons.append(why)
                continue
            if tool == "likwid-bench":
                m = re.search(rf"({'copy_mem' if kind == 'copy' else 'stream_mem'}_\w+)", job.get("tool_job", ""))
                binary = tool_binary or "/usr/bin/likwid-bench"
                text = likwid_kernel(binary, m.group(1)) if m else ""
                what = m.group(1) if m else f"{kind} test"
            elif tool == "hpcc" and kind == "triad":
                binary = tool_binary or "/usr/bin/hpcc"
                text, what = hpcc_triad(insmix.objdump(binary)), "STREAM Triad"
            else:
                continue
        except OSError as e:
            reasons.append(str(e))
            continue
        b = insmix.hot([x for x in map(insmix.mix, insmix.loops(text)) if x["stores"]])
        if b is None:
            reasons.append(f"{tool}'s {what} loop not found in {binary}")
            continue
        diffs = insmix.compare_mix(a, b, tool)
        if diffs:
            causes.append(f"{kind}: " + "; ".join(diffs))
        else:
            reasons.append(f"{kind}: the same loop ({insmix.describe(a)})")
    return ("; ".join(causes) or None), "; ".join(reasons)


def pair_mix_cause(job_json: dict, ours_binary: str) -> str | None:
    """The measured instruction-mix differences of a paired memory job (likwid-bench's
    copy_mem/stream_mem, hpcc's Triad) against our stream kernels in OURS_BINARY, or None:
    the loops are the same or one was not found (insmix_tools.pair_mix gives the reason)."""
    return pair_mix(job_json, ours_binary)[0]


def main(argv: list) -> int:
    """`peakresults insmix BINARY SYMBOL`: the instruction mix of SYMBOL's loops."""
    if len(argv) != 2:
        print("peakresults insmix: usage: insmix BINARY SYMBOL (or likwid:TEST, hpcc:triad)", file=sys.stderr)
        return 2
    binary, symbol = argv
    try:
        if symbol.startswith("likwid:"):
            texts = [likwid_kernel(binary, symbol[len("likwid:"):])]
        elif symbol == "hpcc:triad":
            texts = [hpcc_triad(insmix.objdump(binary))]
        else:
            texts = insmix.sections(insmix.objdump(binary), symbol)
    except OSError as e:
        print(f"peakresults insmix: {e}", file=sys.stderr)
        return 1
    texts = [t for t in texts if t]
    if not texts:
        print(f"peakresults insmix: {symbol} not found in {binary}", file=sys.stderr)
        return 1
    for i, t in enumerate(texts):
        for body in insmix.loops(t):
            print(f"{symbol}#{i} loop at {body[0][0]:x}: {insmix.describe(insmix.mix(body))}")
    return 0
