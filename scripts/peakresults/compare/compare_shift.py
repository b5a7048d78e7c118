"""Whether the whole machine moved between two runs, not one part of the code.

A shared VM's host load changes between runs minutes apart: on a 2-vCPU guest two --quick
runs of one build read 210 of 436 rows "slower", in every suite (steal 0.3% -> 0.9%).
Each of those verdicts is right (the figure was lower), but a reader takes 210 slower rows
for a slower build. A change of code moves the suites it touches; the host moves them all.
So per suite, the median change of its comparable rows, oriented so that a positive change
is better (a latency that drops counts as a gain); when most suites with at least MIN_ROWS
such rows (two or more) moved the same way by more than the tolerance and none the other
way, compare says the machine moved and by how much, beside the verdicts it leaves as they
are. (Most, not all: dpdkbench's memif rows held still in that pair of runs while cpu,
memory, disk and network lost 8-13%.)"""
import math
import statistics

from ..core import schema

MIN_ROWS = 10  # comparable rows a suite needs for its median to speak for it
MIN_SUITES = 2  # suites that must agree before the machine, not a suite, is named


def _gain_pct(rc) -> float | None:
    """rc's change in percent, positive when the figure got better; None when the row does
    not speak for the machine's speed (not comparable, a CPU use row, a change from zero)."""
    row = dict(zip(schema.KEY, rc.key))
    if rc.verdict == "not comparable" or schema.is_cpu_use(row) or not math.isfinite(rc.change_pct):
        return None
    return -rc.change_pct if schema.lower_is_better(row) else rc.change_pct


def suite_medians(rows: list) -> dict:
    """{suite: (comparable rows, median gain %)} for the suites with at least MIN_ROWS."""
    by: dict = {}
    for rc in rows:
        g = _gain_pct(rc)
        if g is not None:
            by.setdefault(dict(zip(schema.KEY, rc.key))["suite"], []).append(g)
    return {s: (len(v), statistics.median(v)) for s, v in sorted(by.items()) if len(v) >= MIN_ROWS}


def machine_moved(rows: list, tolerance_pct: float) -> float | None:
    """The median gain of the suites that moved, when more than half of the suites (and at
    least MIN_SUITES) moved one way beyond the tolerance and none the other way; else None."""
    gains = [g for _, g in suite_medians(rows).values()]
    up = [g for g in gains if g > tolerance_pct]
    down = [g for g in gains if g < -tolerance_pct]
    moved = up if not down else down if not up else []
    if len(moved) >= MIN_SUITES and 2 * len(moved) > len(gains):
        return statistics.median(moved)
    return None
