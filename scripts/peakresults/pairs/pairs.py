"""Paired rounds: our figure and a reference tool's, measured in alternating rounds
(A B A B ...) so that a VM's slow drift between minutes cancels in each round's ratio.

run_all.sh writes, per paired job, OUT/raw/pairs/<job-id>/:
  job.json        the job (plan.py pair_jobs): tool, tool_job and its figures, each
                  {"key": the peakbench row compared (suite, test, variant, threads,
                  block_bytes, metric, unit), "ours_job", "cause", and optionally our best
                  configuration beside it: "best_key", "best_job", "best_cause"}
                  (a job of one figure may give key/ours_job/cause at the top instead)
  r<k>-ours[-part].json  round k, our binaries' --format json outputs (a job whose figures
                  come from several binaries has one part each)
  r<k>-tool.json  round k, the tool's rows (peakbench-baseline/1, scripts/peakresults/adapters)
  r<k>-best[-part].json  round k, our best configuration's output
  r<k>-<side>[-part].err, or OUT/logs/pairs/<job-id>/ the same: a failed side of round k,
                  its last line the reason
  r<k>-<side>[-part].placement  "before FP" and "after FP": the VM placement fingerprint
                  (peakinfo --placement, c2c.round_trip_ns) run_all.sh took around that side
The figure of a side is the mean of the row whose key is the figure's key, in any of the
side's files. A round with a side missing or failed has no ratio; the statistics are over
the complete rounds.

Placement: a job whose figures span two CPUs (job.json "placement": "matched": two
memory threads, a loopback client and server) runs as fast as where the host put the
vCPUs (docs/benchmarks.md, seventh session: 2-thread copy 47 GB/s with the vCPUs 52 ns
apart, 72 GB/s with them 300 ns apart, switching every few seconds). A round of such a job
counts only when neither side saw the host move the vCPUs (its before and after
fingerprints agree) and both ran in the same placement; the others are kept in the
record, not in the statistics, and counted in the flag placement_moved=K. When no round
qualifies, all complete rounds count, flagged placement_unmatched; without fingerprints
(peakinfo not built), all count, unflagged. What "moved" means is calibrated per run
(moved_factor): OUT/raw/placement-calibration holds fingerprints run_all.sh took at the
start, and a host whose own round trips wander gets a wider threshold.

Settled verdicts (issue 42, pairs_settle.py): a figure is settled when its median ratio's
interval lies wholly inside 0.90-1.10 or wholly outside it, or when the traced round found a
measured cause; run_all.sh asks `peakresults pairs-enough OUT JOB K` before each round K past
the least (enough_line), and the job runs it only while one of its figures is open and can
still settle in the rounds left. A record whose verdict is open at the end is flagged
pairs_wide; its ratio_ci_low/high are the interval judged (pairs_settle.interval).

load_pairs(out_dir) -> list of records as docs/methodology.md describes."""
import csv
import json
import os
import re

from ..core import schema, shared
from ..insmix import insmix_tools
from ..trace import trace
from . import pairs_settle
from .pairs_settle import median, median_interval  # noqa: F401 (the statistics' one home)

BAND = pairs_settle.BAND  # a ratio outside it needs its measured cause
PAIR_FIELDS = ("tool", "tool_version", "suite", "test", "variant", "threads", "block_bytes",
               "metric", "unit", "kind", "ours_job", "tool_job", "n_pairs", "ratio_median",
               "ratio_min", "ratio_max", "ours_median", "tool_median", "cause", "flags",
               "ratio_ci_low", "ratio_ci_high")


def _read(path: str):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _last_line(path: str) -> str:
    try:
        with open(path) as f:
            lines = [ln.strip() for ln in f if ln.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def _figure(doc, key: dict):
    """(mean, flags) of the row of DOC with KEY, or (None, reason)."""
    if doc is None:
        return None, "no output"
    rows = doc.get("results") if "results" in doc else doc.get("rows")
    want = tuple(key.get(k) for k in schema.KEY)
    for r in rows or []:
        if isinstance(r, dict) and schema.row_key(r) == want:
            if isinstance(r.get("mean"), (int, float)):
                return float(r["mean"]), r.get("flags") or ""
            return None, "the row has no figure"
    return None, "no row " + ":".join(str(v) for v in want)


# Two fingerprints differ when a pair of CPUs' minimum round trip changed by more than
# this factor either way (common/base/peak_shared.h, as peakinfo --placement-since tests it):
# the fallback when the run has no calibration.
MOVED_FACTOR = shared.MOVED_FACTOR
# The calibrated factor (moved_factor): 1 + MOVED_K x (spread - 1) of the fingerprints taken
# at the start, within MOVED_MIN..MOVED_MAX. A host whose round trips wander 122-147 ns
# (spread 1.2) by themselves gets 1.6, so its rounds are not dropped for its own noise (1.5
# dropped 8 of 9 iperf3 rounds there); a quiet host's (50-53 ns) stays at 1.25; and no host
# gets more than 4, below the one real move measured (52 -> 300 ns, 5.8x: one CCD to two).
MOVED_MIN, MOVED_MAX, MOVED_K = 1.25, 4.0, 3.0
CALIBRATION = "placement-calibration"  # in OUT/raw: one fingerprint a line


def parse_fingerprint(text: str) -> dict | None:
    """{(cpu_a, cpu_b): min_ns} of a c2c.round_trip_ns value ("0-1:52/53 0-2:..."); {} for
    "none" (one CPU: nothing to move); None when unknown or unreadable."""
    if text == "none":
        return {}
    out = {}
    for part in (text or "").split():
        m = re.fullmatch(r"([0-9]+)-([0-9]+):([0-9]+(?:\.[0-9]+)?)/([0-9]+(?:\.[0-9]+)?)", part)
        if not m or float(m.group(3)) <= 0:
            return None
        out[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
    return out or None


def moved(a: dict, b: dict, factor: float = MOVED_FACTOR) -> bool:
    """Whether any pair of CPUs in both fingerprints changed by more than FACTOR."""
    return any(max(a[p], b[p]) / min(a[p], b[p]) > factor for p in a.keys() & b.keys())


def moved_factor(fingerprints: list) -> tuple:
    """(factor, note) from fingerprints taken in one placement (the start of the run): their
    spread (the largest max/min of one pair of CPUs' round trips) widened by MOVED_K,
    within MOVED_MIN..MOVED_MAX; MOVED_FACTOR with the reason when fewer than two readings
    of a pair are known."""
    fps = [fp for fp in (parse_fingerprint(t) for t in fingerprints) if fp]
    pairs_seen = {p for fp in fps for p in fp}
    spreads = [max(v) / min(v) for v in ([fp[p] for fp in fps if p in fp] for p in pairs_seen) if len(v) > 1]
    if not spreads:
        return MOVED_FACTOR, f"{MOVED_FACTOR:g}x, fixed (no calibration: fewer than two fingerprints at the start)"
    spread = max(spreads)
    f = min(MOVED_MAX, max(MOVED_MIN, 1 + MOVED_K * (spread - 1)))
    note = f"{f:.2f}x, from {len(fps)} fingerprints at the start (spread {spread:.2f}x)"
    if 1 + MOVED_K * (spread - 1) > MOVED_MAX:
        note += f": capped at {MOVED_MAX:g}x, so a move between CCDs is still seen"
    return round(f, 4), note


def calibration(out_dir: str) -> tuple:
    """moved_factor of the run's OUT/raw/placement-calibration ('#' lines are comments)."""
    try:
        with open(os.path.join(out_dir, "raw", CALIBRATION)) as f:
            lines = [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError:
        lines = []
    return moved_factor(lines)


def _placement(path: str) -> dict:
    """{"before": fingerprint, "after": fingerprint} of a side's .placement file (parsed;
    a missing or unreadable one leaves the key out)."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                when, _, fp = line.strip().partition(" ")
                parsed = parse_fingerprint(fp)
                if when in ("before", "after") and parsed is not None:
                    out[when] = parsed
    except OSError:
        pass
    return out


def _side(d: str, k: int, side: str, key: dict):
    """(figure, flags, error, placement) of one side of round k; placement as _placement,
    of the file the figure came from."""
    logs = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(d))), "logs", "pairs",
                        os.path.basename(d))
    names = sorted(n for n in os.listdir(d) if re.fullmatch(rf"r{k}-{side}(-[A-Za-z0-9_]+)?\.json", n))
    why = "not run"
    for n in names:
        v, extra = _figure(_read(os.path.join(d, n)), key)
        if v is not None:
            return v, extra, "", _placement(os.path.join(d, n[:-len(".json")] + ".placement"))
        why = extra
    errs = [os.path.join(x, n) for x in (d, logs) if os.path.isdir(x) for n in sorted(os.listdir(x))
            if re.fullmatch(rf"r{k}-{side}(-[A-Za-z0-9_]+)?\.err", n)]
    return None, "", next((e for e in map(_last_line, errs) if e), why), {}


def same_placement(ours: dict, tool: dict, factor: float = MOVED_FACTOR) -> str:
    """"same" when both sides' before and after fingerprints are known and none of the
    four differs from another by more than FACTOR; "moved" when one does; "" when a
    fingerprint is missing."""
    fps = [x.get(w) for x in (ours, tool) for w in ("before", "after")]
    if any(fp is None for fp in fps):
        return ""
    return "moved" if any(moved(a, b, factor) for i, a in enumerate(fps) for b in fps[i + 1:]) else "same"


def _rounds(d: str) -> list:
    ks = set()
    for name in os.listdir(d):
        m = re.fullmatch(r"r([0-9]+)-(ours|tool|best)(-[A-Za-z0-9_]+)?\.(json|err)", name)
        if m:
            ks.add(int(m.group(1)))
    return sorted(ks)


def trace_cause(d: str) -> str | None:
    """trace.pair_cause of the job's traced round (trace-ours.txt, trace-tool.txt), None
    when its traces are not there or show the same job."""
    try:
        return trace.pair_cause(d) or None
    except (OSError, ValueError):
        return None


def build_dir_of(out_dir: str) -> str | None:
    """The build folder run_all.sh ran (commands.txt's "# build dir: X; results: Y")."""
    try:
        with open(os.path.join(out_dir, "commands.txt")) as f:
            for line in f:
                m = re.match(r"# build dir: (.*?); results: ", line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return None


def mix_cause(job: dict, d: str) -> str | None:
    """A memory job's instruction-mix differences (insmix: our stream loop against
    likwid-bench's kernel or hpcc's Triad), None when the same or not readable."""
    out_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(d))))
    build = build_dir_of(out_dir)
    binary = os.path.join(build, "memory", "membench") if build else ""
    if not os.path.isfile(binary):
        return None
    try:
        return insmix_tools.pair_mix_cause(job, binary) or None
    except (OSError, ValueError):
        return None


def record(job: dict, d: str, kind: str, factor: float = MOVED_FACTOR, mix: bool = True) -> dict:
    """One pair record: ours (kind like_for_like) or ours best (kind best) against the tool.
    JOB: the tool's fields and one figure's; FACTOR: what moved means (calibration); MIX:
    look for a memory pair's instruction-mix cause (objdump, seconds: not between rounds).
    "verdict": pairs_settle.settle's state over the pairs counted ("ratios"; the traced
    round's cause settles it; an open one is flagged pairs_wide)."""
    key = job["key"]
    ours_key, ours_side = (job["best_key"], "best") if kind == "best" else (key, "ours")
    rounds, flags = [], set()
    tool_version = job.get("tool_version", "")
    for k in _rounds(d):
        o, oflags, oerr, oplace = _side(d, k, ours_side, ours_key)
        if kind == "best" and o is None and oerr == "not run":
            continue  # our best runs in the first rounds only (plan_pairs.BEST_ROUNDS)
        t, _, terr, tplace = _side(d, k, "tool", key)
        if not tool_version:
            tool_version = (_read(os.path.join(d, f"r{k}-tool.json")) or {}).get("tool_version", "")
        flags |= {f for f in schema.flags_of({"flags": oflags}) if f in schema.NOISY_FLAGS}
        ratio = o / t if o is not None and t not in (None, 0) else None
        error = "; ".join(e for e in (oerr and f"ours: {oerr}", terr and f"tool: {terr}") if e)
        rounds.append({"round": k, "ours": o, "tool": t, "ratio": ratio, "error": error,
                       "placement": same_placement(oplace, tplace, factor)})
    complete = [r for r in rounds if r["ratio"] is not None]
    failed = len(rounds) - len(complete)
    if job.get("placement") == "matched" and any(r["placement"] for r in complete):
        same = [r for r in complete if r["placement"] == "same"]
        if same:
            if len(same) < len(complete):
                flags.add(f"placement_moved={len(complete) - len(same)}")
            complete = same
        else:
            flags.add("placement_unmatched")
    ratios = [r["ratio"] for r in complete]
    rm = median(ratios)
    out = {"tool": job.get("tool", ""), "tool_version": tool_version}
    out.update({k: key.get(k) for k in schema.KEY})
    if kind == "best":
        out.update({k: ours_key.get(k) for k in schema.KEY})
    cause = ""
    if rm is not None and not BAND[0] <= rm <= BAND[1]:
        cause = job.get("best_cause" if kind == "best" else "cause", "")
    if failed:
        flags.add(f"failed_rounds={failed}")
    # The traced round's system calls differ (trace.py): the job was not the same one.
    traced = trace_cause(d) if kind == "like_for_like" else None
    if traced:
        cause = traced
        flags.add("trace_differs")
    elif mix and cause == "" and kind == "like_for_like" and key.get("suite") == "memory" and \
            rm is not None and not BAND[0] <= rm <= BAND[1]:
        # (the hot loops, disassembled: only for a ratio that needs a cause, objdump is slow)
        mixed = mix_cause(job, d)
        if mixed:
            cause = mixed
            flags.add("mix_differs")
    verdict = pairs_settle.settle(ratios, len(ratios), traced or "")
    ci = verdict.interval
    if ratios and not verdict.settled:
        flags.add("pairs_wide")
    out.update(kind=kind, ours_job=job.get("best_job" if kind == "best" else "ours_job", ""),
               tool_job=job.get("tool_job", ""), rounds=rounds, n_pairs=len(ratios),
               ratio_median=rm, ratio_min=min(ratios) if ratios else None,
               ratio_max=max(ratios) if ratios else None,
               ratio_ci_low=ci[0] if ci else None, ratio_ci_high=ci[1] if ci else None,
               ours_median=median([r["ours"] for r in complete]),
               tool_median=median([r["tool"] for r in complete]),
               cause=cause, flags=";".join(sorted(flags)), ratios=ratios, verdict=verdict.state)
    return out


def job_records(d: str, factor: float = MOVED_FACTOR, best: bool = True, mix: bool = True) -> list:
    """The records of the job in folder D (job.json's figures), [] without a job.json."""
    job = _read(os.path.join(d, "job.json"))
    if not isinstance(job, dict):
        return []
    out = []
    figures = job.get("figures") if isinstance(job.get("figures"), list) else [job]
    for fig in figures:
        if not isinstance(fig, dict) or not isinstance(fig.get("key"), dict):
            continue
        one = {k: v for k, v in job.items() if k != "figures"}
        one.update(fig)
        out.append(record(one, d, "like_for_like", factor, mix))
        if best and isinstance(fig.get("best_key"), dict):
            b = record(one, d, "best", factor)
            if b["rounds"]:  # (none in --quick: plan_pairs.BEST_ROUNDS)
                out.append(b)
    return out


def load_pairs(out_dir: str) -> list:
    base = os.path.join(out_dir, "raw", "pairs")
    if not os.path.isdir(base):
        return []
    factor = calibration(out_dir)[0]
    pairs = []
    for job_id in sorted(os.listdir(base)):
        pairs += job_records(os.path.join(base, job_id), factor)
    return pairs


def _fig_name(p: dict) -> str:
    return f"{p['test']} {p['variant']}"


def enough_line(out_dir: str, job_id: str, next_round: int | None = None) -> tuple:
    """(enough, line) for run_all.sh before round NEXT_ROUND of JOB_ID (default: the round
    after the last one on disk): enough when no like-for-like figure is open with a chance
    to settle in the rounds left (job.json "rounds_max", else as many as run): each is
    settled (pairs_settle), or cannot settle any more, or has no pair at all (more rounds of
    a missing row give none). The line starts "pairs enough" (run_all.sh records the rounds
    it skips with it) or "pairs open", and names the figure that decided: "pairs enough:
    settled: median ratio 1.02 [0.99-1.04] over 3 pairs, inside 0.90-1.10"."""
    d = os.path.join(out_dir, "raw", "pairs", job_id)
    job = _read(os.path.join(d, "job.json")) or {}
    ran = (next_round - 1) if next_round else max(_rounds(d), default=0)
    most = job.get("rounds_max") if isinstance(job.get("rounds_max"), int) else ran
    left = max(0, most - ran)
    recs = [p for p in job_records(d, calibration(out_dir)[0], best=False, mix=False) if p["n_pairs"]]
    if not recs:
        return True, "pairs enough: no figure of the job gave a pair to wait for"
    for p in recs:  # the record's verdict, knowing the rounds left
        p["verdict"] = pairs_settle.settle(p["ratios"], p["n_pairs"] + left,
                                           p["cause"] if "trace_differs" in p["flags"].split(";") else "")
    waiting = [p for p in recs if p["verdict"].more]
    many = len(recs) > 1

    def what(p):
        return f"{_fig_name(p)}: " if many else ""
    if waiting:
        p = waiting[0]
        return False, (f"pairs open: {what(p)}{p['verdict'].words()}; "
                       f"{left} round{'s' if left != 1 else ''} left to settle it")
    opened = [p for p in recs if not p["verdict"].settled]
    if opened:
        p = opened[0]
        return True, (f"pairs enough: open, and no round left can settle it: {what(p)}{p['verdict'].words()}"
                      + (f" ({len(recs) - len(opened)} of {len(recs)} settled)" if many else ""))
    p = recs[-1]
    return True, f"pairs enough: settled: {what(p)}{p['verdict'].words()}" + (
        f" (all {len(recs)} figures)" if many else "")


def write_pairs_csv(pairs: list, path: str) -> None:
    """pairs.csv: one line per record, the rounds as ratios "r1=1.02|r2=0.98", a round the
    host moved the vCPUs in (left out of a placement-matched job's statistics) as
    "r3=1.31(moved)"."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(PAIR_FIELDS + ("rounds",))
        for p in pairs:
            rounds = "|".join(f"r{r['round']}=" + (f"{r['ratio']:.4g}" if r["ratio"] is not None else "failed")
                              + ("(moved)" if r.get("placement") == "moved" else "") for r in p["rounds"])
            w.writerow([("" if p.get(k) is None else p.get(k)) for k in PAIR_FIELDS] + [rounds])
