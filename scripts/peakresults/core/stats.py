"""Statistics for comparing two runs: Welch's t interval of a difference of means.

Welch's form (not Student's pooled one) because two runs on a VM rarely share a variance.
The t quantile is computed here (no scipy): the regularized incomplete beta function by
its continued fraction, inverted by bisection, which is exact to 1e-10 and fast enough
for a few hundred rows."""
import math
from statistics import fmean, variance


def _nonzero(v: float, tiny: float) -> float:
    return v if abs(v) > tiny else tiny


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = _nonzero(1.0 + aa / c, tiny)
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = _nonzero(1.0 + aa / c, tiny)
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom (df may be fractional)."""
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p, by bisection (to 1e-12: some 50 halvings; compare asks for
    one or two per row of a full run)."""
    lo, hi = -1e3, 1e3
    while hi - lo > 1e-12:
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def welch_diff_ci(old: list[float], new: list[float], level: float = 0.95):
    """Mean of new minus mean of old, and its confidence interval (Welch-Satterthwaite
    degrees of freedom). None for the interval when either side has fewer than two
    samples or no spread at all can be estimated."""
    diff = fmean(new) - fmean(old)
    if len(old) < 2 or len(new) < 2:
        return diff, None
    va, vb = variance(old) / len(old), variance(new) / len(new)
    se2 = va + vb
    if se2 == 0.0:
        return diff, (diff, diff)
    df = se2 * se2 / (va * va / (len(old) - 1) + vb * vb / (len(new) - 1))
    half = t_quantile(0.5 + level / 2.0, df) * math.sqrt(se2)
    return diff, (diff - half, diff + half)
