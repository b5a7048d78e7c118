"""The summary's words for a figure held against the cloud's published limits (issue 35):
which limit its peak is (the published burst, or a limit with no burst) and its efficiency
against both the burst and the baseline. The rows say it: theoretical is the burst (or the
block storage maximum), the flag of_baseline=R the mean over the published baseline; the
context's cloud.limit.* keys give the figures and their source."""
from .report_fmt import fmt, isnum

# The headline's metric -> the context keys of its (peak, baseline) and the peak's source key.
LIMIT_KEYS = {
    ("disk", "throughput"): ("cloud.limit.disk_max_mbps", "cloud.limit.disk_baseline_mbps", "peak.disk_mbps_source"),
    ("disk", "iops"): ("cloud.limit.disk_max_iops", "cloud.limit.disk_baseline_iops", "peak.disk_iops_source"),
    ("network", "throughput"): ("cloud.limit.net_burst_gbps", "cloud.limit.net_baseline_gbps", "peak.net_gbps_source"),
}


def flag_value(flags, key: str):
    """The number of the flag item key=N, or None."""
    for item in (flags or "").split(";"):
        if item.startswith(key + "="):
            try:
                return float(item[len(key) + 1:])
            except ValueError:
                return None
    return None


def is_published(r: dict, ctx: dict) -> bool:
    """True when the row's peak is the instance type's published limit."""
    keys = LIMIT_KEYS.get((r.get("suite"), r.get("metric")))
    if not keys or not isnum(r.get("theoretical")):
        return False
    if "theoretical=published" in (r.get("flags") or "").split(";"):
        return True  # netbench names its peak's source on the row
    if r.get("suite") == "network":
        # ...and only its rows to another host take the published limit: a loopback row's
        # peak is the memory copy (theoretical=memcpy) even when net.gbps is published
        return False
    return ctx.get(keys[2]) == "published"


def peak_words(r: dict, ctx: dict) -> str:
    """The peak cell of a published limit: the figure and which limit it is."""
    keys = LIMIT_KEYS[(r["suite"], r["metric"])]
    base = ctx.get(keys[1])
    typ = ctx.get("cloud.instance_type") or "the instance type"
    if isnum(base) and base >= r["theoretical"]:
        return f"{fmt(r['theoretical'])} {r['unit']} (published limit of {typ}, no burst)"
    return f"{fmt(r['theoretical'])} {r['unit']} (published burst of {typ})"


def efficiency_words(r: dict, ctx: dict) -> str:
    """Both efficiencies: of the published burst and of the baseline (when published); one,
    where the limit has no burst (the baseline is the limit)."""
    keys = LIMIT_KEYS[(r["suite"], r["metric"])]
    base = ctx.get(keys[1])
    out = []
    if isnum(base) and base >= r["theoretical"]:
        eff = f"{r['efficiency'] * 100:.1f}%" if isnum(r.get("efficiency")) else "–"
        return f"{eff} of the published limit (its baseline: no burst)"
    if isnum(r.get("efficiency")):
        out.append(f"{r['efficiency'] * 100:.1f}% of the published burst")
    of_base = flag_value(r.get("flags"), "of_baseline")
    if of_base is not None and isnum(base):
        out.append(f"{of_base * 100:.1f}% of the baseline ({fmt(base)} {r['unit']})")
    return "; ".join(out) if out else "–"


def source_line(ctx: dict) -> list[str]:
    """One line under the table naming the limits' source, when a figure used them."""
    src = ctx.get("cloud.limit.source")
    if not src:
        return []
    mins = ctx.get("cloud.limit.burst_minutes")
    burst = f" The block storage maximum holds up to {mins:g} minutes, then the baseline." if isnum(mins) else ""
    return ["", f"Published limits of {ctx.get('cloud.instance_type')}: {src}.{burst}"]
