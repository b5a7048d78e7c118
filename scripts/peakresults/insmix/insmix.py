"""Proving a CPU or memory pair is the same job at the level the tools act: the
instructions of the hot loop. From objdump -d (AT&T syntax) of our kernel's symbol and of
the tool's loop, the innermost loops (a backward branch and the code from its target to
it) and their mix per iteration: loads, stores, non-temporal stores (movnt*), vector width
(xmm/ymm/zmm; scalar sd/ss counts as 64/32 bits), FMA, multiplies and adds.

Where the tools' loops are: likwid-bench is stripped, its kernels (assembled from its .ptt
files at build time; Debian ships no .ptt) are found through its test table: the string
"copy_mem_avx" is pointed to by a relocated pointer in that table, and the first pointer
into .text after it in the same entry is the kernel. hpcc is stripped too: its STREAM Triad
is the timed block (code between two timer calls) that multiplies and adds after an
add-only block (tools/hpcc.py). Ours: membench's stream kernels are s_copy and s_triad,
one static copy per ISA (memory/mem_simd_impl.h), told apart by their widest registers.

`python3 scripts/peakresults insmix BINARY SYMBOL` prints the mix of each innermost loop
(SYMBOL may be likwid:TEST or hpcc:triad for those binaries)."""
import re
import shutil
import subprocess
import sys

_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(?:(?:[0-9a-f]{2} )+\s*)?([a-z][a-z0-9.]*)\s*(.*?)\s*$")
_JUMP = re.compile(r"^j[a-z]+$")
_TARGET = re.compile(r"^([0-9a-f]+)(?:\s|$)")
_TIMER = re.compile(r"call.*<(MPI_Wtime|mysecond|gettimeofday|clock_gettime)")
WIDTH = {"zmm": 512, "ymm": 256, "xmm": 128}
ISA_OF_WIDTH = {512: "zmm", 256: "ymm", 128: "xmm", 64: "scalar"}
FACTOR = 1.10  # loads or stores per element differing by more than this


def objdump(binary: str, *extra: str) -> str:
    if not shutil.which("objdump"):
        raise OSError("objdump not installed (Debian: apt install binutils)")
    r = subprocess.run(["objdump", "-d", "--no-show-raw-insn", *extra, binary], capture_output=True,
                       text=True, check=False)
    if r.returncode != 0:
        raise OSError(f"objdump {binary}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
    return r.stdout


def sections(text: str, symbol: str) -> list:
    """The disassembly of every function named SYMBOL (static copies share a name)."""
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = [] if m.group(1) == symbol or m.group(1).startswith(symbol + ".") else None
            if cur is not None:
                out.append(cur)
            continue
        if cur is not None:
            cur.append(line)
    return ["\n".join(s) for s in out]


def instructions(text: str) -> list:
    """[(address, mnemonic, operands)] of objdump lines."""
    out = []
    for line in text.splitlines():
        m = _INSN.match(line)
        if m:
            out.append((int(m.group(1), 16), m.group(2), m.group(3).split("#")[0].strip()))
    return out


def loops(text: str) -> list:
    """The innermost loops: for each backward branch, the instructions from its target to
    it, unless that range holds another backward branch's whole range."""
    ins = instructions(text)
    ranges = []
    for addr, mn, ops in ins:
        t = _TARGET.match(ops)
        if _JUMP.match(mn) and t and int(t.group(1), 16) <= addr:
            ranges.append((int(t.group(1), 16), addr))
    inner = [r for r in ranges if not any(o != r and r[0] <= o[0] and o[1] <= r[1] for o in ranges)]
    return [[i for i in ins if lo <= i[0] <= hi] for lo, hi in inner]


def _operands(ops: str) -> list:
    out, depth, cur = [], 0, ""
    for ch in ops:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def _is_mem(op: str) -> bool:
    return "(" in op and not op.startswith("$")


def _width(mn: str, ops: list) -> int:
    if re.search(r"(s[sd])$", mn) and not mn.startswith(("vbroadcast", "vpbroadcast")):
        return 32 if mn.endswith("ss") else 64
    if mn in ("movq", "vmovq", "movnti"):
        return 64
    regs = re.findall(r"%([xyz]mm)", " ".join(ops))
    return max((WIDTH[r] for r in regs), default=64)


def mix(body: list) -> dict:
    """The mix of one loop body [(address, mnemonic, operands)]."""
    m = {"loads": 0, "stores": 0, "nt_stores": 0, "load_bits": 0, "store_bits": 0, "width": 0,
         "fma": 0, "mul": 0, "add": 0, "store_insn": "", "insns": len(body)}
    for _, mn, ops in body:
        if mn.startswith(("nop", "lea", "prefetch")) or _JUMP.match(mn) or mn in ("cmp", "test"):
            continue
        o = _operands(ops)
        w = _width(mn, o)
        vec = bool(re.search(r"%[xyz]mm", ops))
        if vec:
            m["width"] = max(m["width"], w)
        if o and _is_mem(o[-1]) and ("mov" in mn):
            m["stores"] += 1
            m["store_bits"] += w
            m["store_insn"] = m["store_insn"] or mn
            if "movnt" in mn:
                m["nt_stores"] += 1
        if any(_is_mem(x) for x in o[:-1]):
            m["loads"] += 1
            m["load_bits"] += w
        base = mn[1:] if mn.startswith("v") else mn
        if re.match(r"^fn?m(add|sub)", base):
            m["fma"] += 1
        elif re.match(r"^mul[sp][sd]$", base):
            m["mul"] += 1
        elif re.match(r"^(add|sub)[sp][sd]$", base):
            m["add"] += 1
    m["elements"] = max(m["store_bits"], m["load_bits"] if not m["stores"] else 0) // 64
    m["isa"] = ISA_OF_WIDTH.get(m["width"] or 64, "?")
    return m


def hot(ms: list, nt: bool | None = None) -> dict | None:
    """The loop that moves the most bytes a pass (preferring NT stores or not, as asked)."""
    if not ms:
        return None
    return max(ms, key=lambda m: ((nt is None or (m["nt_stores"] > 0) == nt), m["width"],
                                  m["store_bits"] + m["load_bits"]))


def describe(m: dict) -> str:
    e = max(m["elements"], 1)
    arith = f"{m['fma']} FMA" if m["fma"] else f"{m['mul']} mul + {m['add']} add"
    return (f"{m['isa']}: {m['loads']} loads, {m['stores']} stores ({m['nt_stores']} non-temporal, "
            f"{m['store_insn'] or '-'}), {arith}, {e} doubles an iteration, widest {m['width'] or 64} bits")


def compare_mix(a: dict, b: dict, name: str = "tool") -> list:
    """The measured differences between our loop's mix A and the tool's B."""
    out = []
    if (a["nt_stores"] > 0) != (b["nt_stores"] > 0):
        def st(m):
            return f"{m['store_bits'] // max(m['stores'], 1)}-bit {m['store_insn']} stores" + \
                ("" if m["nt_stores"] else " (no NT)")
        out.append(f"ours {st(a)}, {name} {st(b)}")
    if (a["width"] or 64) != (b["width"] or 64):
        out.append(f"vector width: ours {a['width'] or 64}-bit ({a['isa']}), {name} {b['width'] or 64}-bit "
                   f"({b['isa']})")
    if bool(a["fma"]) != bool(b["fma"]) and (a["fma"] or a["mul"]) and (b["fma"] or b["mul"]):
        def ar(m):
            return f"{m['fma']} FMA" if m["fma"] else f"{m['mul']} mul + {m['add']} add"
        out.append(f"arithmetic an iteration: ours {ar(a)}, {name} {ar(b)}")
    ea, eb = max(a["elements"], 1), max(b["elements"], 1)
    for what in ("load_bits", "store_bits"):
        ra, rb = a[what] / 64 / ea, b[what] / 64 / eb
        if max(ra, rb) > FACTOR * min(ra, rb) or (ra == 0) != (rb == 0):
            out.append(f"{what[:-5]}ed doubles per element: ours {ra:.3g}, {name} {rb:.3g}")
    return out
