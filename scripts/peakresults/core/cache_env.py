"""The run's effective cache sizes as run_all.sh hands them to every binary
(PEAKBENCH_CACHE_EFFECTIVE, common/machine/peak_cache.h): built from peakinfo's context, read back
by the plan. "l1d=BYTES:VERDICT,l2=BYTES:VERDICT,l3=BYTES:VERDICT"; a level takes its
measured size only when its verdict is "smaller" (the knee says less than the machine)."""
import json
import os
import re
from typing import Dict, Optional

ENV = "PEAKBENCH_CACHE_EFFECTIVE"
LEVELS = ("l1d", "l2", "l3")
VERDICTS = ("unmeasured", "no_knee", "agrees", "smaller")


def from_context(ctx: dict) -> Optional[str]:
    """The variable's value from a context holding cache.*_effective and *_verdict."""
    items = []
    for lv in LEVELS:
        b, v = ctx.get(f"cache.{lv}_effective"), ctx.get(f"cache.{lv}_verdict")
        if not isinstance(b, (int, float)) or v not in VERDICTS:
            return None
        items.append(f"{lv}={int(b)}:{v}")
    return ",".join(items)


def peakinfo_context(path: str) -> Optional[dict]:
    """The context of a peakinfo JSON file; None when it is unreadable or has none (read by
    this module and cloud_env, whose variables both come from peakinfo's run)."""
    try:
        with open(path, encoding="utf-8") as f:
            ctx = json.load(f).get("context") or {}
    except (OSError, ValueError, AttributeError):
        return None
    return ctx if isinstance(ctx, dict) else None


def from_file(path: str) -> Optional[str]:
    """The value from a peakinfo JSON file (peakinfo --caches); None when it has none."""
    ctx = peakinfo_context(path)
    return from_context(ctx) if ctx is not None else None


def measured(value: Optional[str] = None) -> Dict[int, int]:
    """Level (1-3) -> effective bytes, for the levels the value says are smaller than
    reported; {} when the value (default: the environment's) is unset or malformed."""
    value = os.environ.get(ENV, "") if value is None else value
    out: Dict[int, int] = {}
    for item in filter(None, value.split(",")):
        m = re.fullmatch(r"(l1d|l2|l3)=([0-9]+):([a-z_]+)", item)
        if not m or m.group(3) not in VERDICTS:
            return {}
        if m.group(3) == "smaller" and int(m.group(2)) > 0:
            out[LEVELS.index(m.group(1)) + 1] = int(m.group(2))
    return out


def report_row(ctx: dict, size) -> Optional[str]:
    """The Machine section's row for the levels whose latency knee says less than the
    machine reports (size(ctx, key): a size key in words), None when every level agrees or
    was not measured: a run where they agree reads as before."""
    words = []
    for name, lv in (("L1d", "l1d"), ("L2", "l2"), ("L3", "l3")):
        if ctx.get(f"cache.{lv}_verdict") == "smaller":
            words.append(f"{name} {size(ctx, f'cache.{lv}_effective')} "
                         f"(reported {size(ctx, f'cache.{lv}_reported')})")
    if not words:
        return None
    return (f"| Effective caches | {', '.join(words)}: where the load-latency curve leaves the level's "
            "plateau (`cache.method`); the `cached` and `small_arrays` flags, `--nt auto` and the "
            "roofline's level buffers use it |")
