"""A results folder rebuilt from a machine record (../shared/machines/<name>): its
<suite>-full-run.csv files as raw/<suite>-<binary>.json, context-full-run.json as
peakinfo's context (peakinfo.json's rows beside it), status-full-run.tsv as status.tsv and
pairs-full-run.csv as raw/pairs/<job>/, so that `finish` writes the run's report again.

What a record does not keep is approximated, and only where the report reads it: a
row's samples are its min, median and max (the report reads n, mean and the flags); a paired
round's tool figure is the record's tool median and ours that times the round's ratio (the
report reads the ratios, their median and interval, and the causes); the cpu suite's clock
keys are those its report printed (CLOCKS). A record without a file is left out of the
folder, as a run without that step."""
import csv
import json
import os
import re

# The cpu suite's clocks under each load as the record's report printed them (cpubench's
# context is not kept in the record; the summary's clock line reads these).
CLOCKS = {"amd-zen5-turin-bhyve": {"cpu.clock_ghz.avx512_fma": 3.56, "cpu.clock_ratio.avx512_fma": 0.99,
                                   "cpu.clock_ghz.avx512_imul": 3.54, "cpu.clock_ratio.avx512_imul": 0.99,
                                   "cpu.clock_ghz.scalar": 3.61}}
STEPS = (("cpu", "cpu-cpubench"), ("memory", "memory-membench"), ("disk", "disk-diskbench"),
         ("network", "network-netbench"))
INTS = ("threads", "block_bytes", "n")
FLOATS = ("mean", "stddev", "min", "median", "max", "ci95_low", "ci95_high", "p50", "p90", "p99", "p999",
          "theoretical", "efficiency", "baseline")


def _num(text: str):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_rows(path: str) -> list[dict]:
    """A record's CSV as JSON rows (None for an empty cell, numbers as numbers)."""
    out = []
    with open(path, encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            d: dict = {k: (v if v != "" else None) for k, v in r.items()}
            for k in INTS:
                d[k] = int(d[k]) if d.get(k) is not None else None
            for k in FLOATS:
                d[k] = _num(d.get(k))
            d["flags"], d["baseline_tool"] = r.get("flags") or "", r.get("baseline_tool") or ""
            d["samples"] = [x for x in (d["min"], d["median"], d["max"]) if x is not None][: d["n"] or 0]
            out.append(d)
    return out


def _write(path: str, doc: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def _pair_jobs(path: str) -> dict:
    """{job id: (job, [(kind, ours key, ratios)])} of a record's pairs CSV: a best record
    joins the like-for-like one before it (same tool, the tool's key)."""
    jobs: dict = {}
    with open(path, encoding="utf-8", newline="") as f:
        for p in csv.DictReader(f):
            key = {k: p[k] or None for k in ("suite", "test", "variant", "metric", "unit")}
            key.update(threads=int(p["threads"]) if p["threads"] else None,
                       block_bytes=int(p["block_bytes"]) if p["block_bytes"] else None)
            ratios = [_num(m.group(1)) for m in re.finditer(r"r\d+=([0-9.]+)", p["rounds"])]
            if p["kind"] == "best" and jobs:
                job = list(jobs.values())[-1][0]
                job["figures"][-1].update(best_key=key, best_job=p["ours_job"], best_cause=p["cause"])
                list(jobs.values())[-1][1].append(("best", key, ratios, _num(p["tool_median"])))
                continue
            jid = f"{len(jobs):02d}-{p['tool']}"
            job = {"tool": p["tool"], "tool_version": p["tool_version"], "tool_job": p["tool_job"],
                   "figures": [{"key": key, "ours_job": p["ours_job"], "cause": p["cause"]}]}
            jobs[jid] = (job, [("ours", key, ratios, _num(p["tool_median"]))])
    return jobs


def write_pairs(path: str, out: str) -> None:
    for jid, (job, sides) in _pair_jobs(path).items():
        d = os.path.join(out, "raw", "pairs", jid)
        _write(os.path.join(d, "job.json"), job)
        tool_key, tool_fig = sides[0][1], sides[0][3] or 1.0
        for side, key, ratios, _ in sides:
            for k, ratio in enumerate(ratios, 1):
                _write(os.path.join(d, f"r{k}-{side}.json"), {"results": [dict(key, mean=ratio * tool_fig)]})
                _write(os.path.join(d, f"r{k}-tool.json"), {"tool_version": job["tool_version"],
                                                            "results": [dict(tool_key, mean=tool_fig)]})


def build(record: str, out: str, plant=None) -> str:
    """OUT as a results folder of RECORD's full run; PLANT(rows) may change the cpu rows
    before they are written (a flag a newer binary writes). Returns OUT."""
    name = os.path.basename(os.path.normpath(record))
    with open(os.path.join(record, "context-full-run.json"), encoding="utf-8") as f:
        ctx = json.load(f)
    peaks = []
    if os.path.isfile(os.path.join(record, "peakinfo.json")):
        with open(os.path.join(record, "peakinfo.json"), encoding="utf-8") as f:
            peaks = json.load(f).get("results") or []
    _write(os.path.join(out, "raw", "peakinfo.json"), {"context": ctx, "results": peaks})
    for suite, step in STEPS:
        path = os.path.join(record, f"{suite}-full-run.csv")
        if not os.path.isfile(path):
            continue
        rows = read_rows(path)
        if suite == "cpu" and plant:
            rows = plant(rows)
        own = dict(ctx, **CLOCKS.get(name, {})) if suite == "cpu" else dict(ctx)
        _write(os.path.join(out, "raw", f"{step}.json"), {"context": own, "results": rows})
    if os.path.isfile(os.path.join(record, "pairs-full-run.csv")):
        write_pairs(os.path.join(record, "pairs-full-run.csv"), out)
    status = os.path.join(record, "status-full-run.tsv")
    if os.path.isfile(status):
        with open(status, encoding="utf-8") as f, open(os.path.join(out, "status.tsv"), "w", encoding="utf-8") as g:
            g.write(f.read())
    with open(os.path.join(out, "commands.txt"), "w", encoding="utf-8") as f:
        f.write(f"# peakbench record {name}, rebuilt\n# mode: full\n")
    return out


def imul_clocks(rows: list[dict]) -> dict:
    """{threads: GHz} of the frequency rows clocked by the imul chain with vpmulld between
    its links (clock=avx512_imul): the imul-anchored clock at each thread count."""
    return {r["threads"]: r["mean"] for r in rows if r["test"] == "frequency" and r["variant"] == "avx512_i32_mul"
            and "clock=avx512_imul" in (r["flags"] or "") and r.get("mean")}


def plant_clock_chain(rows: list[dict], corrected: bool = False) -> list[dict]:
    """The flag a cpubench with issue 41's diagnosis (common/harness/peak_diagnose.c) writes on a row
    above its peak whose clock chain disagrees with the imul-anchored clock:
    cause=clock_chain_R, R = the row's clock over that clock at its thread count, 2
    decimals; CORRECTED: the peak taken at the anchor as well, clock_corrected (the row then
    below its peak, the cause kept)."""
    anchor = imul_clocks(rows)
    clock = {(r["variant"], r["threads"]): r["mean"] for r in rows if r["test"] == "frequency" and r.get("mean")}
    for r in rows:
        ghz, ref = clock.get((r["variant"], r["threads"])), anchor.get(r["threads"])
        if "above_peak" not in (r["flags"] or "").split(";") or not ghz or not ref:
            continue
        ratio = ghz / ref
        r["flags"] += f";cause=clock_chain_{ratio:.2f}"
        if corrected:  # as cpu_measure.c's diagnose() does
            r["theoretical"] /= ratio
            r["efficiency"] = r["mean"] / r["theoretical"]
            r["flags"] += ";clock_corrected"
    return rows
