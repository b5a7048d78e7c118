"""The cloud and instance type (docs/cloud.md, common/machine/peak_cloud.h): the value run_all.sh
hands every binary after peakinfo identified the machine (PEAKBENCH_CLOUD,
"PROVIDER,TYPE,SOURCE"), and the Machine section's Cloud row."""
import re
from typing import Optional

from .cache_env import peakinfo_context

ENV = "PEAKBENCH_CLOUD"
SOURCES = ("dmi", "metadata", "--set", "unknown")
_TYPE = re.compile(r"[A-Za-z0-9._-]{1,63}")


def from_context(ctx: dict) -> Optional[str]:
    """PEAKBENCH_CLOUD's value from a context with cloud.*; None when it has none."""
    p, t, s = ctx.get("cloud.provider"), ctx.get("cloud.instance_type"), ctx.get("cloud.source")
    if not isinstance(p, str) or not re.fullmatch(r"[a-z]+", p) or s not in SOURCES:
        return None
    if t in (None, "unknown"):
        t = ""
    if t and not (isinstance(t, str) and _TYPE.fullmatch(t)):
        return None
    return f"{p},{t},{s}"


def from_file(path: str) -> Optional[str]:
    """The value from a peakinfo JSON file; None when it has none."""
    ctx = peakinfo_context(path)
    return from_context(ctx) if ctx is not None else None


def report_row(ctx: dict) -> Optional[str]:
    """The Machine section's Cloud row; None for results from before cloud.provider."""
    p = ctx.get("cloud.provider")
    if p is None:
        return None
    t, s = ctx.get("cloud.instance_type") or "unknown", ctx.get("cloud.source") or "unknown"
    if p == "unknown":
        return f"| Cloud | none identified ({ctx.get('cloud.note') or 'DMI names no cloud'}) |"
    how = {"dmi": "from DMI", "metadata": "from the metadata service",
           "--set": "set by peaks.conf or --set"}.get(s, s)
    return f"| Cloud | {p}, instance type {t} ({how}) |"
