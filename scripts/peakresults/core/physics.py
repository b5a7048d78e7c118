"""The physics flags (above_peak, zero) by libpeak's rule (peak_result_finish), for a row
whose figure the results program changed (pool: two passes' samples and clocks) or that an
older binary flagged before the figure's last input was known; and the comparison rows,
whose efficiency is a ratio to another peak (linpack's dgesv_vs_avx2 against the AVX2 peak
on an AVX-512 machine): informative, never a physics alarm."""
import math
import os
import re

from .schema import flags_of

_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common", "harness", "peak_result.h")


def read_ratio(path: str = _HEADER) -> float:
    """PEAK_ABOVE_PEAK_RATIO of common/harness/peak_result.h: the rule is written once, in C."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^#define PEAK_ABOVE_PEAK_RATIO ([0-9.]+)\s*$", f.read(), re.M)
    if not m:
        raise ValueError(f"{path}: no PEAK_ABOVE_PEAK_RATIO")
    return float(m.group(1))


# A mean above this ratio of its theoretical peak breaks physics (the 2% covers clock noise).
ABOVE_PEAK_RATIO = read_ratio()
COMPARISON_FLAG = "comparison"
# Rows recorded before the comparison flag existed: linpack's twin said it this way.
LEGACY_COMPARISON_FLAGS = frozenset({"same_run_as_dgesv"})
# Metrics the rule leaves out: a latency's efficiency is no rate against a peak; a count of
# lost packets or errors is 0 when all went well.
NOT_ABOVE_METRICS = frozenset({"latency"})
ZERO_ALLOWED_METRICS = frozenset({"loss", "errors"})
PHYSICS_FLAGS = ("above_peak", "zero")


def _num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def is_comparison(row: dict) -> bool:
    names = flags_of(row)
    return COMPARISON_FLAG in names or bool(names & LEGACY_COMPARISON_FLAGS)


def measured(row: dict) -> bool:
    return _num(row.get("n")) > 0


def above_peak(row: dict) -> bool:
    """The rule on the row's own figure: its efficiency above ABOVE_PEAK_RATIO, on a
    measured rate row that is not a comparison."""
    eff = _num(row.get("efficiency"))
    return (measured(row) and math.isfinite(eff) and eff > ABOVE_PEAK_RATIO
            and row.get("metric") not in NOT_ABOVE_METRICS and not is_comparison(row))


def is_zero(row: dict) -> bool:
    return measured(row) and _num(row.get("mean")) <= 0 and row.get("metric") not in ZERO_ALLOWED_METRICS


def refreshed_flags(row: dict) -> str:
    """The row's flags with the physics flags its figure bears now (a stale one dropped, a
    due one added) and a legacy comparison row marked comparison; the rest as it was. A
    skipped:/failed: reason, the rest of the cell whatever it holds, stays last."""
    text = row.get("flags") or ""
    items = text.split(";") if text else []
    tail = next((i for i, f in enumerate(items) if f.startswith(("skipped:", "failed:"))), len(items))
    head, rest = items[:tail], items[tail:]
    want = {"above_peak": above_peak(row), "zero": is_zero(row)}
    head = [f for f in head if f not in want or want[f]]
    if is_comparison(row) and COMPARISON_FLAG not in head:
        head.append(COMPARISON_FLAG)
    head += [f for f in PHYSICS_FLAGS if want[f] and f not in head]
    return ";".join(head + rest)


def refresh(row: dict) -> dict:
    """row with refreshed_flags (the same dict, changed in place)."""
    flags = refreshed_flags(row)
    if flags != (row.get("flags") or ""):
        row["flags"] = flags
    return row
