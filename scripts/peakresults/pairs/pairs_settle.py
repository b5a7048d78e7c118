"""When a paired figure's verdict is settled (issue 42): the stopping rule of the paired
rounds and the interval the report prints beside the median ratio.

A like-for-like ratio (ours / the tool's, one per round) has one of three verdicts: in the
band 0.90-1.10, outside it (then its measured cause, or "unexplained"), or "not the same
job" when a measured cause shows the two sides did different work. A figure is settled:

  inside   the median ratio's interval lies wholly inside the band;
  outside  it lies wholly outside the band (above or below);
  cause    a measured cause that holds whatever the ratio was found (the traced round's
           system calls differ: trace.pair_cause); more rounds cannot make it the same job.

Otherwise it is open, and a job runs another round only while one of its open figures can
still settle in the rounds it has left (reachable); an open figure at the end is flagged
pairs_wide.

The interval. From 6 pairs, the distribution-free 95% interval of the median (order
statistics x_(l), x_(n+1-l) of Binomial(n, 1/2): [min, max] for 6-8 pairs, [2nd, 8th] from
9): nothing assumed of the round-to-round spread, one outlier cannot move it. Below 6 pairs
that interval does not exist ([min, max] of 5 holds the median 93.75% of the time), so from
2 pairs the Student t interval of the mean log ratio is used, at 99%: exact when the log
ratios are normal, and an outlier widens it (it enters the standard deviation), so a noisy
start keeps the figure open. 99% and not 95% because the rule looks after every round (at
3, 4 and 5 pairs, then at 6): at 95% a look each, a figure whose true median sits on a band
edge settled on the wrong side about 5% of the time on each side (simulated, log-normal
rounds, spread 1-10%); at 99% about 2.5%, what one 95% interval promises. No figure settles
on fewer than LEAST pairs."""
import math

from ..core.stats import t_quantile

BAND = (0.90, 1.10)  # a like-for-like ratio inside it is "the same within what a VM lets us see"
LEAST = 3  # pairs before a verdict may settle (three rounds: two of them ours first, one the tool first)
FREE_FROM = 6  # pairs from which the median's distribution-free 95% interval exists
T_CONF = 0.99  # the t interval's confidence below FREE_FROM pairs (one look a round: see above)

INSIDE, OUTSIDE, CAUSE, OPEN = "inside", "outside", "cause", "open"


def median(xs: list) -> float | None:
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def order_index(n: int) -> int:
    """l of the median's distribution-free 95% interval over N values: the largest count
    with P(B < l) <= 2.5% for B ~ Binomial(n, 1/2); 0 when there is none (fewer than 6)."""
    cum, lo = 0.0, 0
    for j in range(n):
        cum += math.comb(n, j) / 2 ** n
        if cum > 0.025:
            break
        lo = j + 1
    return lo


def median_interval(xs: list) -> tuple | None:
    """The distribution-free 95% interval of the median (x_(l), x_(n+1-l)); None below 6
    values."""
    s = sorted(xs)
    lo = order_index(len(s))
    return (s[lo - 1], s[len(s) - lo]) if lo else None


def t_interval(xs: list, conf: float = T_CONF) -> tuple | None:
    """The Student t interval (CONF) of the mean log ratio, back on the ratio's scale; None
    below 2 values or with a value not above 0."""
    if len(xs) < 2 or min(xs) <= 0:
        return None
    logs = [math.log(x) for x in xs]
    n = len(logs)
    m = sum(logs) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in logs) / (n - 1))
    half = t_quantile(1 - (1 - conf) / 2, n - 1) * sd / math.sqrt(n)
    return math.exp(m - half), math.exp(m + half)


def interval(xs: list) -> tuple | None:
    """The interval the verdict is judged on: the median's distribution-free interval from
    FREE_FROM pairs, the t interval of the mean log ratio from LEAST, None for fewer (no
    verdict settles on them, and the report shows the median alone)."""
    if len(xs) < LEAST:
        return None
    return median_interval(xs) if len(xs) >= FREE_FROM else t_interval(xs)


def side(iv: tuple | None) -> str:
    """INSIDE, OUTSIDE or OPEN for an interval against BAND (inclusive, as the report's band)."""
    if iv is None:
        return OPEN
    lo, hi = iv
    if BAND[0] <= lo and hi <= BAND[1]:
        return INSIDE
    if hi < BAND[0] or lo > BAND[1]:
        return OUTSIDE
    return OPEN


def reachable(xs: list, most: int) -> bool:
    """Whether an open figure with ratios XS can still settle by the time it has MOST pairs
    (the rounds left, each adding at most one pair). Below FREE_FROM pairs the t interval can
    narrow (a round at the mean shrinks it), so a count below FREE_FROM still to come is
    reachable; from FREE_FROM on, exactly: at N pairs the interval is
    (x_(l), x_(N+1-l)), and the best the new pairs can do is fall where the verdict needs
    them, so inside needs at most l-1 pairs so far below the band and l-1 above, and outside
    needs at most l-1 pairs so far at or below the band's top (or at or above its bottom)."""
    n = len(xs)
    if n + 1 < FREE_FROM and most > n:
        return True  # a t interval still to come
    below = sum(1 for x in xs if x < BAND[0])
    above = sum(1 for x in xs if x > BAND[1])
    for big_n in range(max(n + 1, FREE_FROM), most + 1):
        lo = order_index(big_n)
        if lo == 0:
            continue
        if below <= lo - 1 and above <= lo - 1:
            return True
        if n - above <= lo - 1 or n - below <= lo - 1:
            return True
    return False


class Verdict:
    """A figure's state after its pairs so far: state (INSIDE, OUTSIDE, CAUSE or OPEN), the
    interval judged (or None), the median, the count, and whether an open one can still
    settle within the job's rounds (more)."""

    def __init__(self, state: str, iv: tuple | None, med: float | None, n: int, more: bool):
        self.state, self.interval, self.median, self.n, self.more = state, iv, med, n, more

    @property
    def settled(self) -> bool:
        return self.state != OPEN

    def words(self) -> str:
        """"median ratio 1.02 [0.99-1.04] over 4 pairs, inside 0.90-1.10"."""
        pl = "s" if self.n != 1 else ""
        if self.median is None:
            return "no pair"
        iv = f" [{self.interval[0]:.3g}-{self.interval[1]:.3g}]" if self.interval else ""
        what = {INSIDE: f"inside {BAND[0]:.2f}-{BAND[1]:.2f}", OUTSIDE: f"outside {BAND[0]:.2f}-{BAND[1]:.2f}",
                CAUSE: "a measured cause",
                OPEN: f"across {BAND[0]:.2f} or {BAND[1]:.2f}" if self.interval else
                f"no interval below {LEAST} pairs" if self.n < LEAST else "no interval"}[self.state]
        return f"median ratio {self.median:.3g}{iv} over {self.n} pair{pl}, {what}"


def settle(ratios: list, most: int, cause: str = "") -> Verdict:
    """The verdict of a figure's RATIOS so far, with MOST pairs at most in its job and CAUSE a
    measured cause that holds whatever the ratio ("" when none was found)."""
    xs = [float(x) for x in ratios if x is not None]
    iv, med = interval(xs), median(xs)
    if cause and xs:
        return Verdict(CAUSE, iv, med, len(xs), False)
    state = side(iv) if len(xs) >= LEAST else OPEN
    more = state == OPEN and len(xs) < most and reachable(xs, most)
    return Verdict(state, iv, med, len(xs), more)
