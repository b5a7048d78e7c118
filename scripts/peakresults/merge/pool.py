"""The full protocol's second pass (raw/<name>.pass2.json): its samples join the first
pass's row of equal key, the row's statistics are computed again over the pooled samples,
and a row whose pooled samples have two modes is flagged bimodal with both modes. A noisy
row keeps the worst steal and CPU share of its passes (noise.merge_flags); a pass's
ci_wide is dropped (it described that pass's repetitions, not the pooled ones). The pooled
row's theoretical is its passes' weighted by their repetitions (a cpubench peak follows the
clock each repetition read, so this is the peak at the pooled clock), and its physics flags
(above_peak, zero) are those of the pooled figure (physics.py), not of either pass's."""
import math
from statistics import fmean, median, stdev

from ..core import physics, schema
from ..core.noise import merge_flags
from ..core.stats import t_quantile
from .bimodal import modes


def _add_flag(flags: str, flag: str) -> str:
    have = [f for f in (flags or "").split(";") if f]
    name = flag.split("=", 1)[0]
    if any(f.split("=", 1)[0] == name for f in have):
        return ";".join(have)
    return ";".join(have + [flag])


def _eff(row: dict, old_mean, new_mean, new_theo):
    """Efficiency again for the new mean and theoretical, in the sense the binary computed
    it."""
    eff, theo = row.get("efficiency"), row.get("theoretical")
    if eff is None or not theo or not new_theo or not old_mean or not new_mean:
        return eff
    if math.isclose(eff, theo / old_mean, rel_tol=1e-6):
        return new_theo / new_mean  # lower-is-better rows: peak over measured
    return new_mean / new_theo


def pooled_theoretical(rows: list[dict]):
    """The passes' theoreticals weighted by their samples; the first's when a pass has none
    or no samples to weigh by."""
    theos = [r.get("theoretical") for r in rows]
    ns = [len(r.get("samples") or []) for r in rows]
    if not all(isinstance(t, (int, float)) and math.isfinite(t) for t in theos) or not all(ns):
        return theos[0]
    return sum(t * n for t, n in zip(theos, ns)) / sum(ns)


def restat(row: dict, samples: list, theoretical=None) -> dict:
    """row with n/mean/stddev/min/median/max/ci95 computed over samples (and theoretical,
    when given, in place of the row's), its efficiency again."""
    xs = [float(x) for x in samples if x is not None]
    out = dict(row)
    out["samples"] = xs
    if not xs:
        return out
    if theoretical is not None:
        out["theoretical"] = theoretical
    n, m = len(xs), fmean(xs)
    sd = stdev(xs) if n > 1 else 0.0
    out.update(n=n, mean=m, stddev=sd, min=min(xs), median=median(xs), max=max(xs))
    if n > 1:
        half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
        out.update(ci95_low=m - half, ci95_high=m + half)
    out["efficiency"] = _eff(row, row.get("mean"), m, out.get("theoretical"))
    return out


def fmt_mode(x: float) -> str:
    return f"{x:.4g}"


def pool(first: list[dict], second: list[dict]) -> list[dict]:
    """first's rows with second's samples pooled in; second's rows without a match last."""
    by_key = {}
    for r in second:
        by_key.setdefault(schema.row_key(r), []).append(r)
    out = []
    for r in first:
        extra = by_key.pop(schema.row_key(r), [])
        if not extra:
            out.append(r)
            continue
        samples = list(r.get("samples") or [])
        flags = r.get("flags") or ""
        for e in extra:
            samples += list(e.get("samples") or [])
            flags = merge_flags(flags, e.get("flags") or "")
        p = restat(r, samples, pooled_theoretical([r] + extra))
        # ci_wide=W told how far one pass's repetitions agreed when it stopped at its cap;
        # the pooled interval is another one (its ci95 columns say it).
        p["flags"] = ";".join(f for f in flags.split(";") if f and not f.startswith("ci_wide="))
        two = modes(samples)
        if two:
            p["flags"] = _add_flag(_add_flag(p["flags"], "bimodal"),
                                   f"modes={fmt_mode(two[0])}|{fmt_mode(two[1])}")
        out.append(physics.refresh(p))
    for rows in by_key.values():
        out.extend(rows)
    return out
