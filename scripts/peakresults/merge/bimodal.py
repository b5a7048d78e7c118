"""Two modes in a row's pooled samples (the first pass and the second at the end of the
run landed on two different machine states, e.g. a vCPU moved or a turbo state).

The samples, sorted, are split at their widest gap. It is a second mode when both sides
hold at least two samples (one far sample is an outlier, not a mode), the gap is wider
than three times the larger side's spread (its range) and than 5% of the upper mode: a
tight cluster a few percent from another is noise, not a state."""
from statistics import median

MIN_SIDE = 2
GAP_OVER_SPREAD = 3.0
MIN_REL_GAP = 0.05


def modes(samples: list) -> tuple | None:
    """(low mode median, high mode median) when the samples have two modes, else None."""
    xs = sorted(float(x) for x in samples if x is not None)
    if len(xs) < 2 * MIN_SIDE:
        return None
    best, at = -1.0, 0
    for i in range(MIN_SIDE, len(xs) - MIN_SIDE + 1):
        gap = xs[i] - xs[i - 1]
        if gap > best:
            best, at = gap, i
    lo, hi = xs[:at], xs[at:]
    spread = max(lo[-1] - lo[0], hi[-1] - hi[0])
    scale = max(abs(median(hi)), abs(median(lo)))
    if best <= GAP_OVER_SPREAD * spread or best <= MIN_REL_GAP * scale:
        return None
    return median(lo), median(hi)
