"""A row's noise told by its family: the rows of one suite, test, metric and unit (every
block and thread count, both runs). A --quick row has three repetitions, and three samples
give an interval so wide (Student's t at 2 degrees of freedom is 4.3) that a 30% drop
stays "no change beyond noise". The family's rows were measured the same way on the same
machine, so their pooled spread, with hundreds of degrees of freedom, says what one row's
three samples cannot (the moderated variance idea of empirical Bayes, kept robust here).

The spread is robust: on the log of each sample, its distance from its row's median,
pooled over the family; sigma = 1.4826 x the median distance (the normal's MAD factor).
The median of a row's samples is the row's figure here, so one wild repetition neither
widens the family nor moves the row. The interval of a change is on the log of the ratio
of the medians, with the median's standard error (1.2533 sigma / sqrt(n), its large-sample
efficiency against the mean)."""
import math
from statistics import median

FAMILY = ("suite", "test", "metric", "unit")
# Fewer rows with residuals than this and the family says nothing (its MAD would be a
# handful of distances).
MIN_ROWS = 6
MAD_TO_SIGMA = 1.4826
MEDIAN_SE = 1.2533
Z95 = 1.959964


def family_of(row: dict) -> tuple:
    return tuple(row.get(k) for k in FAMILY)


def _logs(row: dict) -> list:
    s = row.get("samples")
    if not isinstance(s, list):
        return []
    vals = [float(x) for x in s if isinstance(x, (int, float)) and x > 0]
    return [math.log(x) for x in vals] if len(vals) == len(s) else []


def _residuals(logs: list) -> list:
    """|log sample - log median|, without the one sample that is the median of an odd
    count (its distance is zero by construction, not by agreement)."""
    if len(logs) < 2:
        return []
    m = median(logs)
    out = sorted(abs(x - m) for x in logs)
    return out[1:] if len(logs) % 2 else out


def spreads(rows) -> dict:
    """{family: (sigma of the log samples, rows that gave residuals)} for the families of
    ROWS with at least MIN_ROWS such rows."""
    pooled: dict = {}
    for r in rows:
        res = _residuals(_logs(r))
        if res:
            pooled.setdefault(family_of(r), []).append(res)
    out = {}
    for fam, lists in pooled.items():
        if len(lists) >= MIN_ROWS:
            flat = [x for lst in lists for x in lst]
            out[fam] = (MAD_TO_SIGMA * median(flat), len(lists))
    return out


def median_change_ci(old: dict, new: dict, sigma: float):
    """(change of the median in %, its 95% interval in %) of NEW against OLD with the
    family's sigma; None when either row has no positive samples."""
    lo, ln = _logs(old), _logs(new)
    if not lo or not ln:
        return None
    d = median(ln) - median(lo)
    half = Z95 * MEDIAN_SE * sigma * math.sqrt(1.0 / len(lo) + 1.0 / len(ln))
    pct = lambda x: (math.exp(x) - 1.0) * 100.0  # noqa: E731
    return pct(d), (pct(d - half), pct(d + half))
