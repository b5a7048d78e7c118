"""Parsers of the reference tools' outputs (fio, iperf3, sockperf, likwid-bench, hpcc,
iozone): each module's parse(path, ctx) returns the tool's version and its rows, keyed by
the peakbench row each is the reference for (docs/results-schema.md, "Reference tools' rows"), in our units.
write_doc() writes OUT/raw/baseline-<tool>.json; `python3 scripts/peakresults/tools TOOL`
is the command line the baseline scripts call (__main__.py)."""
import json
import os

from .. import schema

BASELINE_SCHEMA = schema.BASELINE_SCHEMA
BASELINE_COLUMNS = schema.BASELINE_COLUMNS


class NotToolOutput(Exception):
    """The file is not an output of this tool (or holds no result)."""


def load_json(path: str, needs: tuple) -> dict:
    """A tool's JSON output as a dict holding every key in NEEDS, else NotToolOutput."""
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise NotToolOutput(f"not JSON: {e}")
    if not isinstance(doc, dict) or any(k not in doc for k in needs):
        raise NotToolOutput("no " + " and ".join(f"'{k}'" for k in needs))
    return doc


def row(tool, version, key, mean, job="", config="", flags="", **stats) -> dict:
    """A baseline row: KEY is (suite, test, variant, threads, block_bytes, metric, unit) of
    the peakbench row it is the reference for; STATS the figures the tool gives (n, stddev,
    min, median, max, p50, p90, p99, p999), None when it gives none."""
    r = {c: None for c in BASELINE_COLUMNS}
    r.update(zip(schema.KEY, key))
    r.update(tool=tool, tool_version=version, job=job, config=config, flags=flags,
             mean=mean, n=stats.pop("n", 1))
    for k, v in stats.items():
        if k not in r:
            raise KeyError(k)
        r[k] = v
    return r


def write_doc(path: str, tool: str, version: str, rows: list, skipped: list) -> None:
    doc = {"schema": BASELINE_SCHEMA, "tool": tool, "tool_version": version,
           "rows": rows, "skipped": skipped}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def isa_of_cpu(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The widest kernel ISA membench and cpubench pick here (their variants name it)."""
    try:
        with open(cpuinfo) as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        flags = []
    for isa, flag in (("avx512", "avx512f"), ("avx2", "avx2"), ("sse2", "sse2")):
        if flag in flags:
            return isa
    return "scalar"
