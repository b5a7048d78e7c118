"""How much of its CPU a noisy row lost, from the share recorded beside its flag: compare
judges a row flagged steal, contended or preempted against it, and pool keeps the worst
share of the passes it pools.

The harness records `steal_pct=P` beside `steal` (the share of the CPUs' busy time the
hypervisor stole during the point, rounded up) and `cpu_share_pct=S` beside `contended`
(the lowest share of its elapsed time any worker spent on a CPU, rounded down; dpdkbench
beside `preempted`: its lcores' share). A row that lost a share L of its CPU time is slowed
by at most L if its figure follows the CPU time it got (a rate falls by L, a time per
operation grows by L / (1 - L)); that is the most the flag can explain. Rows written before
the shares were recorded carry the flag alone: nothing bounds them."""
from typing import Optional

from . import schema

# A share of 100% or more would explain everything; capped so the bounds stay finite.
MAX_LOST = 0.99


def values(row: dict) -> dict:
    """The row's key=value flags as {key: value text}."""
    out = {}
    for f in (row.get("flags") or "").split(";"):
        if "=" in f:
            k, v = f.split("=", 1)
            out.setdefault(k, v)
    return out


def _number(text) -> Optional[float]:
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if 0.0 <= x <= 100.0 else None


def lost(row: dict) -> tuple[Optional[float], str]:
    """(share of its CPU the row lost, 0..MAX_LOST; words for the note). 0 for a row with
    none of schema.SHARE_FLAGS; None (and why) when a flag has no readable share. Steal and
    lost CPU add up: on KVM a worker's CPU time already leaves the stolen time out, so the
    sum may count steal twice, which only widens what is explained."""
    names, vals = schema.flags_of(row), values(row)
    total, parts = 0.0, []
    for flag in sorted(names & set(schema.SHARE_FLAGS)):
        key = schema.SHARE_FLAGS[flag]
        x = _number(vals.get(key))
        if x is None:
            return None, f"flagged {flag} with no recorded {key}"
        share = x if key == "steal_pct" else 100.0 - x
        total += share
        parts.append(f"{flag} {share:.1f}%")
    return min(total / 100.0, MAX_LOST), ", ".join(parts) or "0%"


def judgeable(row: dict) -> bool:
    """Whether a lost share bounds the row's figure: rates and times do; a loss or
    retransmit count (0 to anything when a receiver is descheduled) and a CPU use figure
    (where stolen time may count or not) do not."""
    return not schema.is_cpu_use(row) and row.get("metric") not in schema.NOT_CPU_BOUND_METRICS


def bounds_pct(lost_old: float, lost_new: float, lower_better: bool) -> tuple[float, float]:
    """(lowest, highest) change in percent that the lost shares explain: NEW lost up to
    lost_new (its figure worse by that), OLD lost up to lost_old (NEW better by that)."""
    if lower_better:  # times: losing L of the CPU makes them 1 / (1 - L) as long
        return -100.0 * lost_old, 100.0 * lost_new / (1.0 - lost_new)
    return -100.0 * lost_new, 100.0 * lost_old / (1.0 - lost_old)


def _key(flag: str) -> str:
    return flag.split("=", 1)[0]


def _worst(key: str, passes: list) -> Optional[float]:
    """The worst share of key over the passes' flag lists: the highest steal, the lowest CPU
    share; None when no pass has one, or a pass has the flag without its share (unknown)."""
    flags_with = {f for f, k in schema.SHARE_FLAGS.items() if k == key}
    found = []
    for items in passes:
        x = next((_number(f.split("=", 1)[1]) for f in items if "=" in f and _key(f) == key), None)
        if x is None and flags_with & set(items):
            return None
        if x is not None:
            found.append(x)
    if not found:
        return None
    return max(found) if key == "steal_pct" else min(found)


def merge_flags(flags: str, more: str) -> str:
    """flags with more's flags added (a key already there keeps its first value), except the
    shares, which become the worst of both (pool)."""
    a = [f for f in (flags or "").split(";") if f]
    b = [f for f in (more or "").split(";") if f]
    shares = set(schema.SHARE_FLAGS.values())
    out = [f for f in a if _key(f) not in shares]
    for f in b:
        if _key(f) not in shares and all(_key(g) != _key(f) for g in out):
            out.append(f)
    for key in sorted(shares):
        x = _worst(key, [a, b])
        if x is not None:
            out.append(f"{key}={x:.1f}")
    return ";".join(out)
