"""The machine's peaks per number format (issue 37): one line per format (FP64, FP32, FP16,
BF16, INT8) and unit (vector, or matrix: AMX tiles, Arm's BFMMLA/SMMLA), from cpubench's
rows and their theoretical peaks; the bar chart of them (charts/cpu_formats.png); and the
summary's one line on the best low-precision unit ("AMX BF16: 3.79 TFLOPS, 93% of peak").
A form this CPU cannot run is its unsupported rows' reason; a form with no row says so. The
variants' format token names the format (docs/cpu.md): dp, sp, fp16, bf16, int8."""
from ..charts import chart_bars
from ..core import pick
from .report_fmt import cell, fmt, isnum, warnings

FORMATS = ("fp64", "fp32", "fp16", "bf16", "int8")
# The low-precision forms the summary line chooses from, best first: a matrix unit before a
# vector one, BF16 (the usual inference format) before INT8 and FP16.
LOW_ORDER = (("bf16", "matrix"), ("int8", "matrix"), ("fp16", "matrix"),
             ("bf16", "vector"), ("int8", "vector"), ("fp16", "vector"))
# ISA words for the summary, by the variant's first token (and Arm's instruction).
UNIT_WORDS = {"amx": "AMX", "avx512": "AVX-512", "avxvnni": "AVX-VNNI", "sve": "SVE"}
ARM_WORDS = {("bf16", "dot"): "NEON BFDOT", ("bf16", "mmla"): "NEON BFMMLA",
             ("int8", "dot"): "NEON SDOT", ("int8", "mmla"): "NEON SMMLA"}


def form_of(variant: str):
    """(format, unit) of a cpubench flops/iops variant; None for the integer add/multiply
    kernels, which are no number format's peak."""
    toks = (variant or "").split("_")
    fmt_tok = ("fp64" if "dp" in toks else "fp32" if "sp" in toks
               else next((t for t in toks if t in ("fp16", "bf16", "int8")), None))
    if fmt_tok is None:
        return None
    unit = "matrix" if toks[0] == "amx" or "mmla" in toks else "vector"
    return fmt_tok, unit


def unit_label(variant: str) -> str:
    """"AMX BF16", "AVX-512 BF16", "NEON BFMMLA BF16" for the summary line."""
    form = form_of(variant)
    if not form:
        return variant
    toks = variant.split("_")
    kind = "mmla" if "mmla" in toks else "dot"
    isa = ARM_WORDS.get((form[0], kind)) if toks[0] == "neon" else UNIT_WORDS.get(toks[0], toks[0])
    return f"{isa} {form[0].upper()}"


def _unsupported_reason(r: dict) -> str:
    for f in warnings(r.get("flags")):
        if f.startswith("unsupported"):
            return f.split(":", 1)[1].strip() if ":" in f else "unsupported"
    return ""


def collect(cpu_rows: list[dict], peaks: list[dict] | None = None) -> dict:
    """(format, unit) -> {"best": the best measured row (pick.best: unflagged first), "why":
    its doubt flags when every row has one, "unsupported": [(variant, reason)], "stated":
    peakinfo's format_peak rows of the form (its peak where no cpubench row ran it)}."""
    out: dict = {}
    for r in peaks or []:
        form = form_of(r.get("variant") or "") if r.get("test") == "format_peak" else None
        if form:
            e = out.setdefault(form, {"rows": [], "unsupported": [], "stated": []})
            e["stated"].append(r)
    for r in cpu_rows:
        if r.get("suite") != "cpu" or r.get("test") not in ("flops", "iops"):
            continue
        form = form_of(r.get("variant") or "")
        if not form:
            continue
        e = out.setdefault(form, {"rows": [], "unsupported": [], "stated": []})
        why = _unsupported_reason(r)
        if why:
            if (r["variant"], why) not in e["unsupported"]:
                e["unsupported"].append((r["variant"], why))
        elif r.get("n") and isnum(r.get("mean")):
            e["rows"].append(r)
    for e in out.values():
        e["best"], e["why"] = pick.best(e["rows"], lambda x: x["mean"])
    return out


def _reference(variant: str, pair_recs: list[dict]) -> str:
    """The paired reference round of that variant (run_all.sh's pairs); else one of another
    row of the same format and unit, naming the row it was paired with (the table shows the
    best unflagged row, which need not be the paired one); else "no reference"."""
    cpu = [p for p in pair_recs or [] if p.get("suite") == "cpu"]
    same = [p for p in cpu if p.get("variant") == variant]
    kin = [p for p in cpu if p.get("variant") != variant and form_of(variant) is not None
           and form_of(p.get("variant") or "") == form_of(variant)]
    for p in same + kin:
        rm = p.get("ratio_median")
        said = f"{p.get('tool')}: {rm:.2f}x" if isnum(rm) else f"{p.get('tool')}: no complete round"
        if p in kin:
            said += f" (paired with {p.get('variant')}" + (f", {p['threads']}t)" if p.get("threads") else ")")
        return said
    return "no reference"


def _not_measured(e: dict) -> str:
    """The Notes of a form no cpubench row measured: the reason it cannot run (cpubench's
    rows, else peakinfo's), or peakinfo's stated peak."""
    why = e["unsupported"] or [(r["variant"], _unsupported_reason(r)) for r in e["stated"]
                               if _unsupported_reason(r)]
    if why:
        return "unsupported: " + "; ".join(f"{v}: {w}" for v, w in why)
    top = max(e["stated"], key=lambda r: r.get("theoretical") or 0, default=None)
    if top is not None and isnum(top.get("theoretical")):
        return f"not measured (cpubench did not run it); peakinfo's peak {fmt(top['theoretical'])} {top['unit']}"
    return "not measured; peak unknown"


def table(cpu_rows: list[dict], pair_recs: list[dict] | None = None,
          peaks: list[dict] | None = None) -> list[str]:
    """The per-format table (markdown lines); [] when neither cpubench nor peakinfo has a row
    of any format. peaks: peakinfo's rows (format_peak: the forms' stated peaks, reasons)."""
    forms = collect(cpu_rows, peaks)
    if not forms:
        return []
    out = ["| Format | Unit | Kernel | Measured | Peak | Efficiency | Reference | Notes |",
           "| --- | --- | --- | ---: | ---: | ---: | --- | --- |"]
    for f in FORMATS:
        for unit in ("vector", "matrix"):
            e = forms.get((f, unit))
            if not e:
                # FP64 and FP32 have no matrix unit here; the low-precision forms say so
                if f in ("fp16", "bf16", "int8"):
                    out.append(f"| {f.upper()} | {unit} | – | – | – | – | – | no cpubench row (not run) |")
                continue
            r = e.get("best")
            if r is None:
                out.append(f"| {f.upper()} | {unit} | – | – | – | – | – | {cell(_not_measured(e))} |")
                continue
            peak = f"{fmt(r['theoretical'])} {r['unit']}" if isnum(r.get("theoretical")) else "unknown"
            eff = f"{r['efficiency'] * 100:.1f}%" if isnum(r.get("efficiency")) else "–"
            notes = ([pick.fallback_note(e["why"])] if e["why"] else []) + \
                [w for w in warnings(r.get("flags")) if w not in e["why"]]
            out.append(f"| {f.upper()} | {unit} | {r['variant']} ({r['threads']}t) | {fmt(r['mean'])} {r['unit']} | "
                       f"{peak} | {eff} | {cell(_reference(r['variant'], pair_recs))} | {cell(', '.join(notes))} |")
    return out


def _scaled(v: float, unit: str) -> str:
    """GFLOPS above 1000 as TFLOPS (GIOPS as TOPS)."""
    if v >= 1000:
        return f"{v / 1000:.3g} {'TFLOPS' if unit == 'GFLOPS' else 'TOPS'}"
    return f"{fmt(v)} {unit}"


def summary_line(cpu_rows: list[dict], peaks: list[dict] | None = None) -> list[str]:
    """One line: the best low-precision unit measured, or why there is none; [] without a
    format row at all (an older run, or cpubench not run)."""
    forms = collect(cpu_rows, peaks)
    low = {k: e for k, e in forms.items() if k[0] in ("fp16", "bf16", "int8")}
    if not low:
        return []
    for k in LOW_ORDER:
        e = low.get(k)
        if e and e.get("best") is not None:
            r = e["best"]
            eff = (f"{r['efficiency'] * 100:.0f}% of peak" if isnum(r.get("efficiency"))
                   else "peak unknown")
            flags = f"; {pick.fallback_note(e['why'])}" if e["why"] else ""
            return [f"- Low precision: **{unit_label(r['variant'])}: {_scaled(r['mean'], r['unit'])}, {eff}** "
                    f"({r['variant']}, {r['threads']}t{flags})."]
    first = next((e["unsupported"][0] for e in low.values() if e["unsupported"]), None) or next(
        ((r["variant"], _unsupported_reason(r)) for e in low.values() for r in e["stated"]
         if _unsupported_reason(r)), None)
    if not any(e["rows"] or e["unsupported"] for e in low.values()):
        return [f"- Low precision: not measured (cpubench ran no FP16, BF16 or INT8 kernel)"
                + (f"; {first[0]}: {first[1]}." if first else ".")]
    why = f" ({first[0]}: {first[1]})" if first else ""
    return [f"- Low precision: no FP16, BF16 or INT8 unit runs here{why}."]


def chart(c, cpu_rows: list[dict]) -> None:
    """charts/cpu_formats.png: one bar per format and unit measured against a peak, its
    efficiency; drawn only when a low-precision form has a row."""
    forms = collect(cpu_rows)
    if not any(k[0] in ("fp16", "bf16", "int8") and e.get("best") is not None for k, e in forms.items()):
        return
    lines = ["# label efficiency_percent mark(0 unflagged, 1 only flagged rows)"]
    for f in FORMATS:
        for unit in ("vector", "matrix"):
            e = forms.get((f, unit))
            r = e.get("best") if e else None
            if r is None or not isnum(r.get("efficiency")):
                continue
            label = f"{f.upper()} {unit} ({r['variant']}): {fmt(r['mean'])} of {fmt(r['theoretical'])} {r['unit']}"
            lines.append(f'"{label}" {r["efficiency"] * 100:.2f} {1 if e["why"] else 0}')
    if len(lines) == 1:
        return
    c.write("cpu_formats", lines)
    vals = [float(ln.rsplit(" ", 2)[1]) for ln in lines[1:]]
    marks = [int(ln.rsplit(" ", 1)[1]) for ln in lines[1:]]
    bars = chart_bars.HBars("CPU peak per number format: measured / theoretical, best row of each",
                            "% of the format's theoretical peak (dashed: 100%)", vals, 100.0, marks=marks)
    c.plot("cpu_formats", bars.title, chart_bars.script(bars, "data/cpu_formats.dat", "cpu_formats.png"))
