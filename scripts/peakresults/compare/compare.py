"""compare OLD NEW: what changed between two runs, row by row, beyond the noise.

For every row in both runs (matched on schema.KEY): the change of the mean in percent,
its 95% confidence interval (Welch's t over the repetitions' samples), and a verdict:
- "not comparable": the machines differ (schema.MACHINE_KEYS), or the jobs do (the rows'
  job flags differ, schema.JOB_FLAGS: oversubscribed in one run only, another
  buffer_pages=...), or one run's row is bimodal and the other's not, or a row is flagged
  steal/contended/preempted on a figure that does not follow the CPU time it got (loss,
  retransmits, CPU use). A flag both rows carry (oversubscribed, bimodal, ci_wide...) keeps
  nothing apart: the row is judged as below, a bimodal one by its own interval only;
- "faster" / "slower": the interval lies wholly on one side of zero (for latencies lower
  is better, so a drop is "faster"); a CPU use row (a cost that follows the throughput
  beside it) is "more CPU" / "less CPU" instead, never a regression;
- "no change beyond noise": the interval holds zero, or a row has too few samples to
  have an interval and its change is within the tolerance;
- "not judged": a row without repetition samples on a side (one repetition, or a row such
  as a latency summary that carries none) whose change is beyond the tolerance: with no
  interval, noise cannot be told from a change, so it is shown and never a regression.
A row flagged steal, contended or preempted (schema.SHARE_FLAGS) is judged against the
share of CPU each side lost (noise.py, recorded beside the flag): "slower" or "faster" only
when the whole interval lies beyond what those shares explain (NEW's loss for a worse
figure, OLD's for a better one), else "not judged" ("no change beyond noise" when the
interval holds zero); a flag without its recorded share (a run from before they were
recorded) makes a row that moved "not judged".
A row with fewer than OWN_SAMPLES repetitions on a side whose own interval holds zero (or
that has none) is judged by its family's spread instead (family_noise.py: the rows of one
suite, test and metric, both runs): the change of its median, with an interval from the
family's pooled robust spread. Three --quick samples cannot tell a 30% drop from noise;
the family's hundreds can.
A regression (the exit code 1) is "slower" by more than --tolerance percent."""
import math
from dataclasses import dataclass, field
from typing import Optional

from ..core import noise, schema
from ..core.load import Run
from ..core.stats import welch_diff_ci
from . import family_noise


@dataclass
class RowChange:
    key: tuple
    old_mean: float
    new_mean: float
    change_pct: float
    ci_pct: Optional[tuple]
    verdict: str
    note: str = ""
    # Judged against the share of CPU each side lost (steal, contended, preempted): that
    # share in percent, (OLD, NEW); None for a row judged as it is.
    lost_pct: Optional[tuple] = None
    # The flags of schema.DOUBT_FLAGS and bimodal that both rows carry (the same job, judged
    # like any row), for the summary's count.
    alike: tuple = ()


@dataclass
class Comparison:
    machine_diffs: list = field(default_factory=list)  # (key, old, new)
    setup_diffs: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    only_old: list = field(default_factory=list)
    only_new: list = field(default_factory=list)

    def regressions(self, tolerance_pct: float) -> list:
        return [r for r in self.rows if r.verdict == "slower" and abs(r.change_pct) > tolerance_pct]


def _samples(row: dict) -> list:
    s = row.get("samples")
    if isinstance(s, list) and s:
        return [float(x) for x in s if isinstance(x, (int, float))]
    m = row.get("mean")
    return [float(m)] if isinstance(m, (int, float)) else []


def _index(rows: list) -> dict:
    """Rows by key; a key seen twice (two steps measuring one point) gets #2, #3..."""
    out: dict = {}
    for r in rows:
        if r.get("suite") == "baseline" or not isinstance(r.get("mean"), (int, float)):
            continue
        k = schema.row_key(r)
        n = 1
        while (k, n) in out:
            n += 1
        out[(k, n)] = r
    return out


def _diffs(old: dict, new: dict, keys) -> list:
    return [(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)]


def compare(old: Run, new: Run, tolerance_pct: float) -> Comparison:
    cmp = Comparison(machine_diffs=_diffs(old.context, new.context, schema.MACHINE_KEYS),
                     setup_diffs=_diffs(old.context, new.context, schema.SETUP_KEYS))
    a, b = _index(old.rows), _index(new.rows)
    fams = family_noise.spreads(list(a.values()) + list(b.values()))
    for k in sorted(a.keys() | b.keys(), key=lambda x: tuple(str(v) for v in x[0]) + (x[1],)):
        if k not in b:
            cmp.only_old.append(k[0])
            continue
        if k not in a:
            cmp.only_new.append(k[0])
            continue
        cmp.rows.append(_row_change(k[0], a[k], b[k], bool(cmp.machine_diffs), tolerance_pct,
                                    fams.get(family_noise.family_of(a[k]))))
    return cmp


def _change_pct(om: float, nm: float) -> float:
    if om:
        return (nm - om) / abs(om) * 100.0
    return 0.0 if nm == 0 else math.copysign(math.inf, nm)  # from zero (a loss of 0%)


# Repetitions on a side from which a row's own interval judges it alone.
OWN_SAMPLES = 6


def _row_change(key: tuple, ro: dict, rn: dict, other_machine: bool, tol: float,
                fam=None) -> RowChange:
    so, sn = _samples(ro), _samples(rn)
    om, nm = float(ro["mean"]), float(rn["mean"])
    change = _change_pct(om, nm)
    diff, ci = welch_diff_ci(so, sn)
    ci_pct = (ci[0] / abs(om) * 100.0, ci[1] / abs(om) * 100.0) if ci and om else None
    apart = "another machine" if other_machine else _apart(ro, rn)
    if apart:
        return RowChange(key, om, nm, change, ci_pct, "not comparable", apart)
    rc = _judge(key, so, sn, ro, rn, (om, nm, change, diff, ci_pct), tol, fam)
    rc.alike = tuple(sorted(schema.flags_of(ro) & schema.flags_of(rn) & ALIKE_FLAGS))
    return rc


# Flags a reader may take for a reason not to compare a row: when both rows carry one, the
# summary counts the row among those judged all the same.
ALIKE_FLAGS = frozenset({"oversubscribed", "bimodal"})


def _judge(key: tuple, so: list, sn: list, ro: dict, rn: dict, figs: tuple, tol: float,
           fam) -> RowChange:
    """The verdict of two comparable rows: by their own interval, their family's spread, or
    (flagged steal, contended, preempted) against the CPU share each side lost."""
    om, nm, change, diff, ci_pct = figs
    flags = schema.flags_of(ro) | schema.flags_of(rn)
    shared = flags & set(schema.SHARE_FLAGS)
    by_family = ""
    # A bimodal row's spread is its own two modes, not its family's: its own interval judges it.
    if (fam and "bimodal" not in flags and min(len(so), len(sn)) < OWN_SAMPLES
            and (ci_pct is None or ci_pct[0] <= 0.0 <= ci_pct[1])):
        mc = family_noise.median_change_ci(ro, rn, fam[0])
        if mc and not (mc[1][0] <= 0.0 <= mc[1][1]):
            change, ci_pct, diff = mc[0], mc[1], mc[0]
            by_family = (f"the median's change, judged by the spread of its family's {fam[1]} rows "
                         f"(sigma {100.0 * fam[0]:.1f}% a sample)")
    few = f"{min(len(so), len(sn))} repetition sample(s) on a side: no interval"
    if shared:
        rc = _share_change(RowChange(key, om, nm, change, ci_pct, ""), ro, rn, diff, few, tol)
        rc.note = "; ".join(x for x in (by_family, rc.note) if x)
        return rc
    if ci_pct is None:
        if abs(change) <= tol:
            return RowChange(key, om, nm, change, None, "no change beyond noise", few)
        return RowChange(key, om, nm, change, None, "not judged", few)
    if ci_pct[0] <= 0.0 <= ci_pct[1]:
        return RowChange(key, om, nm, change, ci_pct, "no change beyond noise")
    if schema.is_cpu_use(ro):
        return RowChange(key, om, nm, change, ci_pct, "more CPU" if diff > 0 else "less CPU", by_family)
    return RowChange(key, om, nm, change, ci_pct, _direction(ro, diff), by_family)


def _one_side(names: set, in_old: set) -> str:
    return "; ".join(f"{n} in {'OLD' if n in in_old else 'NEW'} only" for n in sorted(names))


def _apart(ro: dict, rn: dict) -> str:
    """Why two rows of one key on one machine are not comparable ("" when they are): their
    job flags differ (schema.JOB_FLAGS: they measured different things), one run's row is
    bimodal (its machine changed state between the passes; the other run's was steady), or
    a figure no lost CPU share bounds is flagged steal/contended/preempted. A flag both rows
    carry alike keeps nothing apart."""
    jo, jn = schema.job_flags(ro), schema.job_flags(rn)
    if jo != jn:
        return "the job differs: " + _one_side(set(jo ^ jn), set(jo))
    bo, bn = "bimodal" in schema.flags_of(ro), "bimodal" in schema.flags_of(rn)
    if bo != bn:
        return (_one_side({"bimodal"}, {"bimodal"} if bo else set())
                + ": that run's machine changed state between its passes")
    shared = (schema.flags_of(ro) | schema.flags_of(rn)) & set(schema.SHARE_FLAGS)
    if shared and not noise.judgeable(ro):  # no share bounds a loss count or a CPU use
        return "flagged " + ",".join(sorted(shared))
    return ""


def _direction(row: dict, diff: float) -> str:
    better = (diff < 0) if schema.lower_is_better(row) else (diff > 0)
    return "faster" if better else "slower"


def _share_change(rc: RowChange, ro: dict, rn: dict, diff: float, few: str,
                  tol: float) -> RowChange:
    """rc (figures filled) for a row flagged steal/contended/preempted: a change is real only
    beyond what the CPU share each side lost explains."""
    lo, why_o = noise.lost(ro)
    ln, why_n = noise.lost(rn)
    ci = rc.ci_pct
    # No change needs no share to tell it: the interval holds zero, or (no interval) the
    # change is within the tolerance.
    still = (ci[0] <= 0.0 <= ci[1]) if ci else abs(rc.change_pct) <= tol
    if lo is None or ln is None:
        rc.verdict = "no change beyond noise" if still else "not judged"
        rc.note = f"{why_o if lo is None else why_n}: what the flag explains is unknown"
        if ci is None:
            rc.note += "; " + few
        return rc
    rc.lost_pct = (round(100.0 * lo, 6), round(100.0 * ln, 6))  # no 7.000000000000001
    rc.note = f"judged against the CPU lost: OLD {why_o}, NEW {why_n}"
    if ci is None:
        rc.note += "; " + few
    low, high = noise.bounds_pct(lo, ln, schema.lower_is_better(ro))
    if still:
        rc.verdict = "no change beyond noise"
    elif ci is None:
        rc.verdict = "not judged"
    elif ci[1] < low or ci[0] > high:
        rc.verdict = _direction(ro, diff)
    else:
        rc.verdict = "not judged"
        rc.note += f"; the interval is not wholly beyond the {low:+.1f} .. {high:+.1f}% they explain"
    return rc
