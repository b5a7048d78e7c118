"""The sustained runs (diskbench and netbench --sustain): their per-second series, rebuilt
from the rows "burst" and "baseline" of a *_sustain test (each row's samples are its
seconds, in order), the knee the binary found (flags knee_s, knee_confidence), the
time-series chart with the knee marked and the published limits drawn as lines (context
keys cloud.limit.*, when the instance type is known), and the summary's sentence."""
import math

from ..charts.chart_gp import Axis, LineChart, Series, value_axis
from ..charts.chart_styles import quote
from ..charts.charts import Charts, num

# The published levels drawn on each suite's chart: (context key, its words); the keys'
# units are the rows' (Gbit/s for the network, MB/s for the disk).
LIMITS = {
    "network": (("cloud.limit.net_burst_gbps", "published burst"),
                ("cloud.limit.net_baseline_gbps", "published baseline")),
    "disk": (("cloud.limit.disk_max_mbps", "published maximum"),
             ("cloud.limit.disk_baseline_mbps", "published baseline")),
}
LIMIT_COLOURS = ("#2ca02c", "#ff7f0e")


def flag(flags: str, key: str):
    """The number of the item key=N in a flags string, or None."""
    for item in (flags or "").split(";"):
        if item.startswith(key + "="):
            try:
                return float(item.split("=", 1)[1])
            except ValueError:
                return None
    return None


def runs(rows: list[dict]) -> list[dict]:
    """Each sustained test of rows: {test, unit, series, burst, baseline, knee, confidence,
    seconds}; burst and knee None when the run held one level."""
    out = {}
    for r in rows:
        test = r.get("test") or ""
        if not test.endswith("_sustain") or r.get("variant") not in ("burst", "baseline"):
            continue
        run = out.setdefault(test, {"test": test, "unit": r.get("unit"), "burst": None,
                                    "baseline": None, "knee": None, "confidence": None,
                                    "parts": {}, "flags": ""})
        run["flags"] += ";" + (r.get("flags") or "")
        run["parts"][r["variant"]] = [v for v in r.get("samples") or [] if isinstance(v, (int, float))]
        run[r["variant"]] = r.get("median")
        run["knee"] = run["knee"] if run["knee"] is not None else flag(r.get("flags"), "knee_s")
        run["confidence"] = run["confidence"] or flag(r.get("flags"), "knee_confidence")
    for run in out.values():
        parts = run.pop("parts")
        run["series"] = parts.get("burst", []) + parts.get("baseline", [])
        run["seconds"] = len(run["series"])
    return list(out.values())


def _number(context: dict, key: str):
    v = context.get(key)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 else None


def fig(c: Charts, suite: str, run: dict, context: dict) -> str:
    """The chart of one run (its data file and script); returns the figure's name."""
    name = f"sustain_{run['test']}"
    limits = [(v, words) for key, words in LIMITS.get(suite, ()) if (v := _number(context, key))]
    c.write(name, [f"second {run['test']}_{run['unit'].replace('/', '_per_')}"] +
            [f"{i + 0.5:g} {num(v)}" for i, v in enumerate(run["series"])])
    extra = []
    if run["knee"] is not None:
        knee = run["knee"]
        conf = f", confidence {run['confidence']:.3f}" if run["confidence"] is not None else ""
        words = quote(f"knee {knee:.1f} s{conf}")
        extra += [f"set arrow 1 from {knee:g}, graph 0 to {knee:g}, graph 1 nohead "
                  "dt 1 lw 2 lc rgb '#c0392b' back",
                  f"set label 1 {words} at {knee:g}, graph 0.95 offset 0.5, 0"]
    for i, (v, words) in enumerate(limits):
        colour = LIMIT_COLOURS[i % len(LIMIT_COLOURS)]
        text = quote(f"{words} {v:g} {run['unit']}")
        extra += [f"set arrow {i + 2} from graph 0, first {v:g} to graph 1, first {v:g} nohead dt 2 lw 2 "
                  f"lc rgb '{colour}' back",
                  f"set label {i + 2} {text} at graph 0.02, first {v:g} offset 0, 0.6"]
    n = max(run["seconds"], 1)
    chart = LineChart(f"{suite.capitalize()} {run['test']}: throughput every second",
                      Axis("time since the start (s)", 0, 0, n),
                      value_axis(run["series"] + [v for v, _ in limits] + [0], run["unit"]),
                      [Series(run["test"], 2, run["test"])], extra)
    c.line_chart(name, chart)
    return name


def figs(c: Charts, suites: dict, context: dict | None = None) -> dict:
    """Every sustained run's chart: {suite: [figure names]}. suites: merged.suites; the
    published limits are read from the suite's context, else from context (peakinfo's)."""
    out = {}
    for suite in ("disk", "network"):
        s = suites.get(suite) or {}
        ctx = {**(context or {}), **(s.get("context") or {})}
        for run in runs(s.get("results", [])):
            out.setdefault(suite, []).append(fig(c, suite, run, ctx))
    return out


def sentence(suite: str, run: dict) -> str:
    """One summary line: burst and baseline with when the knee came, or the one level."""
    u = run["unit"]
    if run["burst"] is not None and run["knee"] is not None:
        return (f"- {suite} {run['test']}: **burst {run['burst']:.4g} {u}** for the first {run['knee']:.1f} s, "
                f"then **baseline {run['baseline']:.4g} {u}** (the knee's confidence "
                f"{run['confidence'] or 0:.3f}; {run['seconds']} s measured)"
                + ("; the provider's allowance counters rose: shaped" if "shaped_by_provider" in run["flags"] else ""))
    return (f"- {suite} {run['test']}: **baseline {run['baseline']:.4g} {u}**, one level over {run['seconds']} s "
            "(no knee: no burst seen, or a burst longer than the run)")


def summary_lines(suites: dict) -> list[str]:
    """The summary's "Sustained" part: nothing when no sustained run was made."""
    lines = [sentence(s, run) for s in ("disk", "network")
             for run in runs((suites.get(s) or {}).get("results", []))]
    return ["", "### Sustained: burst and baseline", ""] + lines if lines else []
