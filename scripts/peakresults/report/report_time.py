"""The report header's time line (issue 42): what the run took beside what its plan
estimated, in all and per part (OUT/plan.json "parts", status.tsv's seconds per step;
plan_options.part_of groups both the same way). The run's wall time is known while
run_all.sh runs the results program (PEAKBENCH_RUN_START_S, the run's start in epoch
seconds); a report made again later gives the steps' time alone."""
import json
import os
import time

from ..plan.plan_options import fmt_duration, part_of

START_ENV = "PEAKBENCH_RUN_START_S"


def _plan(out_dir: str) -> dict:
    try:
        with open(os.path.join(out_dir, "plan.json"), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _taken(out_dir: str) -> tuple:
    """({part: seconds}, whether the run was resumed) from status.tsv."""
    parts: dict = {}
    resumed = False
    try:
        with open(os.path.join(out_dir, "status.tsv"), encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 4:
                    continue
                if cols[2] == "resumed":
                    resumed = True
                    continue
                try:
                    secs = int(cols[3])
                except ValueError:
                    continue
                p = part_of(cols[1], cols[0])
                parts[p] = parts.get(p, 0) + secs
    except OSError:
        pass
    return parts, resumed


def _wall() -> int | None:
    start = os.environ.get(START_ENV, "")
    if not start.isdigit():
        return None
    el = int(time.time()) - int(start)
    return el if el >= 0 else None


def lines(out_dir: str) -> list[str]:
    """["- Time: ..."]: the run's real time beside the plan's estimate, then per part what
    it took and what the plan said (a range where paired rounds past the least may run);
    [] when neither the plan nor status.tsv says anything."""
    doc, (taken, resumed) = _plan(out_dir), _taken(out_dir)
    if not taken:
        return []
    est, most = doc.get("total_est_s"), doc.get("total_max_s")
    wall = _wall()
    head = (f"the run {fmt_duration(wall)} to this report, its steps {fmt_duration(sum(taken.values()))}"
            if wall is not None and not resumed else f"its steps {fmt_duration(sum(taken.values()))}"
            + (" (over the first run and its --resume)" if resumed else ""))
    if isinstance(est, int):
        head += f", against the plan's estimate of {fmt_duration(est)}"
        if isinstance(most, int) and most > est:
            head += f" (up to {fmt_duration(most)} if every paired round ran)"
    planned = {p.get("part"): p for p in doc.get("parts") or [] if isinstance(p, dict)}
    order = [p for p in planned if p in taken] + [p for p in taken if p not in planned]

    def one(p):
        e = planned.get(p, {})
        lo, hi = e.get("est_s"), e.get("max_s")
        if not isinstance(lo, int):
            return f"{p} {fmt_duration(taken[p])}"
        said = fmt_duration(lo) + (f"-{fmt_duration(hi)}" if isinstance(hi, int) and hi > lo else "")
        return f"{p} {fmt_duration(taken[p])} ({said})"
    return [f"- Time: {head}. By part, taken (estimated): " + ", ".join(one(p) for p in order) + "."]
