"""What the run measured about a row far from its peak, in the report's words: the cause
cpubench names for a row above its peak (`cause=KIND_R`, docs/results-schema.md), the rows
grouped by it for the summary; what the probe measured when it fell short of the table
(`probe_short`), with a cause only when one was measured in the same window; and, for a
headline figure far below its peak, the cause the run knows (the BLAS kernel linpack ran,
the probe's own rate)."""
import re
import statistics

from ..core import physics
from ..core.schema import flags_of
from .report_fmt import isnum

# cpubench's diagnosis of a row above its peak (common/harness/peak_diagnose.h): the input of the
# peak that falls furthest below its own measurement, and R, the used over the measured
# (docs/results-schema.md); a row above its peak by 1/R.
ABOVE_CAUSES = {
    "clock_chain": ("their clock read {r} of the imul-anchored clock", "the peak's clock"),
    "count": ("the peak's unit count is {r} of what the probe's loop measured at the anchor clock", "the unit count"),
    "width": ("the peak's work per instruction is {r} of what the kernel did against its probe loop",
              "the work per instruction"),
    "cores": ("the peak's core count is {r} of the cores the rows' CPU time shows", "the core count"),
}
# Beside a cause: cpubench took the peak again with the measured input (a clock below the
# anchor: the anchor's peak); the row keeps its cause, and above_peak only if still above.
CORRECTED = "clock_corrected"
# A row below its peak that runs at its class's probe loop (cpu_measure.c's cause_flag).
BELOW_CAUSE = "probe_rate"
CLOCK_REFUSED = "clock_refused"
# Below this share of its peak a headline figure says the cause the run knows (the C side's
# CPU_CAUSE_EFFICIENCY: the same line for a row's cause= flag).
FAR_BELOW = 0.95
# Flags that measure, in the row's own window, that the core was not all the kernel's.
WINDOW_FLAGS = {"steal": "steal", "contended": "a lost CPU share", "preempted": "a lost CPU share"}
_NOTE = re.compile(r"(\w+): probe (\w+) ([0-9.]+) short of table ([0-9.]+)")
# OpenBLAS cores whose kernels stop at AVX2 (openblas_get_corename, lower case).
AVX2_CORES = frozenset({"haswell", "zen", "skylake", "excavator"})


def causes(row: dict) -> list[tuple[str, float]]:
    """The row's cause=KIND_R flags as (kind, R), in the order written."""
    out = []
    for item in (row.get("flags") or "").split(";"):
        if item.startswith("cause="):
            kind, _, r = item[len("cause="):].rpartition("_")
            try:
                out.append((kind, float(r)))
            except ValueError:
                continue
    return out


def above_cause(row: dict) -> tuple[str, float] | None:
    """The first cause of a row above its peak that names an input of the peak; None."""
    return next(((k, r) for k, r in causes(row) if k in ABOVE_CAUSES), None)


def _span(values: list[float]) -> str:
    """"0.49", or the median and the range when they differ: "0.49 (0.27-0.51)"."""
    lo, hi, mid = min(values), max(values), statistics.median(values)
    return f"{mid:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{mid:.2f} ({lo:.2f}-{hi:.2f})"


def _names(rows: list[dict], most: int = 10) -> str:
    """The rows' variants (at most MOST, then how many more) and thread counts."""
    variants = list(dict.fromkeys(r.get("variant") or r.get("test") or "?" for r in rows))
    threads = sorted({r["threads"] for r in rows if isinstance(r.get("threads"), int)})
    words = ", ".join(variants[:most]) + (f" and {len(variants) - most} more" if len(variants) > most else "")
    if threads:
        words += f"; {threads[0]}t" if len(threads) == 1 else f"; {threads[0]}-{threads[-1]} threads"
    return words


def by_cause(rows: list[dict]) -> tuple[dict, list[dict]]:
    """({kind: rows} of the rows above their peak whose flag names a cause, [rows above
    their peak with none]); a comparison row is never above its peak (physics.py)."""
    found: dict = {}
    none = []
    for r in rows:
        if not physics.above_peak(r):
            continue
        c = above_cause(r)
        if c:
            found.setdefault(c[0], []).append(r)
        else:
            none.append(r)
    return found, none


def group_line(kind: str, rows: list[dict]) -> str:
    """"40 rows: their clock read 0.49 of the imul-anchored clock (...)"."""
    words, what = ABOVE_CAUSES[kind]
    r = _span([c[1] for c in (above_cause(x) for x in rows) if c])
    refused = sum(1 for x in rows if CLOCK_REFUSED in flags_of(x))
    extra = f"; {refused} of them at the scalar imul clock, their class's clock refused" if refused else ""
    return f"{words.format(r=r)} ({_names(rows)}{extra}): {what} is the input that is wrong"


def above_peak_lines(rows: list[dict]) -> list[str]:
    """The lines for the rows above their peak: one per cause found, one for the rows with
    none; [] when no row is above its peak."""
    found, none = by_cause(rows)
    out = [f"- {len(found[k])} row(s) above their theoretical peak, cause found: {group_line(k, found[k])}."
           for k in ABOVE_CAUSES if k in found]
    if none:
        out.append(f"- {len(none)} row(s) above their theoretical peak with no cause found: their flags name no "
                   f"input of the peak that disagrees with its measurement, so the measurement itself is in doubt "
                   f"({_names(none)}).")
    return out


def corrected_lines(rows: list[dict]) -> list[str]:
    """The rows whose peak input cpubench found wrong and corrected (a cause=KIND_R flag,
    clock_corrected, no longer above their peak): no alarm, one line per cause."""
    found: dict = {}
    for r in rows:
        c = above_cause(r)
        if c and not physics.above_peak(r):
            found.setdefault(c[0], []).append(r)
    wrong, fixed = " is the input that is wrong", " was corrected"
    return [f"- {len(found[k])} row(s): {group_line(k, found[k]).replace(wrong, fixed)}." for k in ABOVE_CAUSES
            if k in found]


def probe_notes(context: dict) -> list[tuple[str, str, str, str]]:
    """(count, class, probe, table) of each count the probe measured short of the table
    (the context's peak.probe_notes)."""
    return _NOTE.findall(str(context.get("peak.probe_notes") or ""))


def probe_short_meaning(rows: list[dict], context: dict) -> str:
    """The Warnings table's words for probe_short: what was measured, and a cause only
    where one was measured in the same window (the row's steal or CPU share) or over the
    run (the vCPUs moved)."""
    short = [r for r in rows if "probe_short" in flags_of(r)]
    notes = probe_notes(context)
    reached = "; ".join(f"{cls} {got} of the table's {want}" for _, cls, got, want in notes)
    text = ("the probe's loop, timed beside the kernel after each repetition, ran the row's class below the count "
            "the peak uses" + (f" (peakinfo's probe: {reached} a cycle)" if reached else ""))
    seen: dict = {}
    for r in short:
        for f in sorted(flags_of(r) & set(WINDOW_FLAGS)):
            seen.setdefault(WINDOW_FLAGS[f], []).append(r)
    explained = {id(r) for rs in seen.values() for r in rs}
    parts = [f"{len(rs)} ran with {what} in the same window" for what, rs in seen.items()]
    if context.get("c2c.moved") is True:
        parts.append("the host moved the vCPUs during the run")
    rest = len(short) - len(explained)
    if parts:
        text += "; measured beside it: " + ", ".join(parts)
    if rest:
        text += (f"; for {rest} row(s) nothing measured in the same window explains it"
                 + (" (no steal, no CPU share lost, the vCPUs did not move)" if not parts else "")
                 + ": the count was not reached by any loop here")
    return text


def _cpu_has_avx512(context: dict) -> bool:
    return "avx512f" in str(context.get("cpu.isa") or "").split()


def far_below_notes(row: dict, rows: list[dict], context: dict) -> list[str]:
    """The cause the run knows of a headline row below FAR_BELOW of its peak: the probe's
    own rate (cause=probe_rate_F); for linpack, the OpenBLAS kernel it ran and the same
    solve against another peak (a comparison row). [] when the row is not far below or
    nothing is known."""
    eff = row.get("efficiency")
    if not isnum(eff) or eff >= FAR_BELOW:
        return []
    out = [f"the probe's loop ran {r:.2f} a cycle at the row's clock, below the count the peak uses"
           for k, r in causes(row) if k == BELOW_CAUSE]
    if row.get("test") == "linpack":
        core = str(context.get("openblas.corename") or "")
        env = str(context.get("openblas.coretype_env") or "")
        env = "" if env.startswith("(") else env  # "(unset)": OpenBLAS chose the kernel itself
        if core:
            words = f"OpenBLAS ran its {core} kernel" + (f" (OPENBLAS_CORETYPE={env})" if env else "")
            if core.lower() in AVX2_CORES and _cpu_has_avx512(context):
                words += ", an AVX2 kernel on an AVX-512 CPU"
            out.append(words)
        for c in rows:
            if (physics.is_comparison(c) and c.get("test") == row.get("test") and c.get("threads") == row.get("threads")
                    and isnum(c.get("efficiency"))):
                against = c["variant"].split("_vs_", 1)[1].upper() if "_vs_" in c["variant"] else c["variant"]
                out.append(f"the same solve is {c['efficiency'] * 100:.1f}% of the {against} peak ({c['variant']})")
    return out
