"""compare OLD NEW: what changed between two runs, row by row, beyond the noise.

For every row in both runs (matched on schema.KEY): the change of the mean in percent,
its 95% confidence interval (Welch's t over the repetitions' samples), and a verdict:
- "not comparable": the machines differ (schema.MACHINE_KEYS) or either row is flagged
  noisy (steal, contended, oversubscribed, bimodal);
- "faster" / "slower": the interval lies wholly on one side of zero (for latencies lower
  is better, so a drop is "faster"); a CPU use row (a cost that follows the throughput
  beside it) is "more CPU" / "less CPU" instead, never a regression;
- "no change beyond noise": the interval holds zero, or a row has too few samples to
  have an interval and its change is within the tolerance;
- "not judged": a row without repetition samples on a side (one repetition, or a row such
  as a latency summary that carries none) whose change is beyond the tolerance: with no
  interval, noise cannot be told from a change, so it is shown and never a regression.
A regression (the exit code 1) is "slower" by more than --tolerance percent."""
import math
from dataclasses import dataclass, field
from typing import Optional

from . import schema
from .load import Run
from .stats import welch_diff_ci


@dataclass
class RowChange:
    key: tuple
    old_mean: float
    new_mean: float
    change_pct: float
    ci_pct: Optional[tuple]
    verdict: str
    note: str = ""


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
    for k in sorted(a.keys() | b.keys(), key=lambda x: tuple(str(v) for v in x[0]) + (x[1],)):
        if k not in b:
            cmp.only_old.append(k[0])
            continue
        if k not in a:
            cmp.only_new.append(k[0])
            continue
        cmp.rows.append(_row_change(k[0], a[k], b[k], bool(cmp.machine_diffs), tolerance_pct))
    return cmp


def _row_change(key: tuple, ro: dict, rn: dict, other_machine: bool, tol: float) -> RowChange:
    so, sn = _samples(ro), _samples(rn)
    om, nm = float(ro["mean"]), float(rn["mean"])
    if om:
        change = (nm - om) / abs(om) * 100.0
    else:  # from zero (a loss of 0%): no change, or an infinite one
        change = 0.0 if nm == 0 else math.copysign(math.inf, nm)
    diff, ci = welch_diff_ci(so, sn)
    ci_pct = (ci[0] / abs(om) * 100.0, ci[1] / abs(om) * 100.0) if ci and om else None
    lower_better = schema.lower_is_better(ro)
    noisy = (schema.flags_of(ro) | schema.flags_of(rn)) & schema.NOISY_FLAGS
    if other_machine:
        return RowChange(key, om, nm, change, ci_pct, "not comparable", "another machine")
    if noisy:
        return RowChange(key, om, nm, change, ci_pct, "not comparable",
                         "flagged " + ",".join(sorted(noisy)))
    if ci_pct is None:
        note = f"{min(len(so), len(sn))} repetition sample(s) on a side: no interval"
        if abs(change) <= tol:
            return RowChange(key, om, nm, change, None, "no change beyond noise", note)
        return RowChange(key, om, nm, change, None, "not judged", note)
    if ci_pct[0] <= 0.0 <= ci_pct[1]:
        return RowChange(key, om, nm, change, ci_pct, "no change beyond noise")
    if schema.is_cpu_use(ro):
        return RowChange(key, om, nm, change, ci_pct, "more CPU" if diff > 0 else "less CPU")
    better = (diff < 0) if lower_better else (diff > 0)
    return RowChange(key, om, nm, change, ci_pct, "faster" if better else "slower")
