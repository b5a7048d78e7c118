"""OUT/raw/*.json (one file per run_all step) into one record per suite, the memory
levels, the context and peakinfo's peaks: what every later module reads.

Step files are named <suite>-<step>.json (or <suite>.json); <name>.pass2.json is the
second pass of <name>.json and is pooled into it (pool.py). Two steps' rows are told
apart by their variant, as run_all.sh did: the two-node netbench step's rows get
"@<peer>", the kernel UDP rows at DPDK's frame sizes "-vs-dpdk"."""
import json
import os
import re

from ..core import physics, schema
from ..core.load import SUITES, with_hosts
from .pool import pool

# Steps whose rows would collide with another step's: the variant suffix that keeps them apart.
RETAG = {"network-udpframes": "-vs-dpdk"}
REMOTE_STEP = "network-remote"


class Merged:
    def __init__(self):
        self.suites: dict[str, dict] = {}   # suite -> {"context": {...}, "results": [...]}
        self.levels: list[dict] = []         # rows of levels-<L>.json, each with "level"
        self.context: dict = {}              # peakinfo's context (+ the end placement)
        self.peaks: list[dict] = []          # peakinfo's rows (theoretical figures)
        self.problems: list[str] = []        # raw files that could not be read

    def rows(self) -> list[dict]:
        return [r for s in SUITES if s in self.suites for r in self.suites[s]["results"]]


def read_json(path: str, problems: list) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{os.path.basename(path)}: not valid JSON ({e})")
        return None
    if not isinstance(doc, dict):
        problems.append(f"{os.path.basename(path)}: not a JSON object")
        return None
    return doc


def peer_of(out: str) -> str:
    """The two-node step's peer, from commands.txt (run_all.sh wrote its command there)."""
    try:
        with open(os.path.join(out, "commands.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith(REMOTE_STEP + ":"):
                    m = re.search(r"--host\s+'?([^'\s]+)", line)
                    if m:
                        return m.group(1)
    except OSError:
        pass
    return "peer"


def retag(step: str, rows: list[dict], out: str) -> None:
    suffix = RETAG.get(step)
    if step == REMOTE_STEP:
        suffix = "@" + peer_of(out)
    if suffix:
        for r in rows:
            v = r.get("variant") or ""
            # A folder whose raw files run_all.sh already retagged keeps its variants.
            if not v.endswith(suffix):
                r["variant"] = v + suffix


def step_rows(raw: str, name: str, out: str, problems: list) -> tuple[dict, list]:
    """(context, rows) of raw/<name>.json with its pass2 pooled in and the step's retag;
    every row's physics flags those of its own figure (physics.refresh: a binary before
    issue 34 could flag a row before its last input was known, or a comparison row)."""
    doc = read_json(os.path.join(raw, name + ".json"), problems) or {}
    rows = [r for r in doc.get("results") or [] if isinstance(r, dict)]
    p2 = os.path.join(raw, name + ".pass2.json")
    if os.path.isfile(p2):
        d2 = read_json(p2, problems) or {}
        rows = pool(rows, [r for r in d2.get("results") or [] if isinstance(r, dict)])
    rows = [physics.refresh(r) for r in rows]
    retag(name, rows, out)
    return doc.get("context") or {}, rows


# Context keys of node blocks written before clusterbench used libpeak's sysinfo.
OLD_NODE_KEYS = {"kernel": "os.kernel", "isa": "cpu.isa"}


def cluster_step(out: str, test: str, problems: list) -> tuple[dict, list] | None:
    """(context, rows) of clusterbench's raw/cluster-<test>.json (or, in a folder written
    before raw/ held it, OUT/cluster-<test>.json); None when the run has none. Rows carry
    host and peer; node blocks use the context's key names."""
    for raw in (os.path.join(out, "raw"), out):
        name = f"{schema.CLUSTER_SUITE}-{test}"
        if os.path.isfile(os.path.join(raw, name + ".json")):
            n = len(problems)
            ctx, rows = step_rows(raw, name, out, problems)
            if len(problems) > n:
                return None
            nodes = ctx.get(schema.NODES_KEY)
            ctx[schema.NODES_KEY] = [{OLD_NODE_KEYS.get(k, k): v for k, v in nd.items()}
                                     for nd in nodes if isinstance(nd, dict)] \
                if isinstance(nodes, list) else []
            return ctx, with_hosts(rows)
    return None


def merge(out: str) -> Merged:
    m = Merged()
    raw = os.path.join(out, "raw")
    # In the order of the file names, as the shell's glob listed them (C locale:
    # "dpdk-memif-rate.json" before "dpdk-memif.json").
    names = [f[:-5] for f in sorted(os.listdir(raw)) if f.endswith(".json")
             and not f.endswith(".pass2.json")] if os.path.isdir(raw) else []
    for suite in SUITES:
        steps = [n for n in names if n == suite or n.startswith(suite + "-")]
        for step in steps:
            ctx, rows = step_rows(raw, step, out, m.problems)
            rec = m.suites.setdefault(suite, {"context": ctx, "results": []})
            rec["results"].extend(rows)
            # a later step's own keys (linpack's openblas.*) join the suite's context
            rec["context"].update((k, v) for k, v in ctx.items() if k not in rec["context"])
        if suite in m.suites and not m.suites[suite]["results"]:
            del m.suites[suite]
    for step in (n for n in names if n.startswith("levels-")):
        _, rows = step_rows(raw, step, out, m.problems)
        for r in rows:
            m.levels.append({"level": step[len("levels-"):], **r})
    if "peakinfo" in names:
        ctx, m.peaks = step_rows(raw, "peakinfo", out, m.problems)
        m.context = dict(ctx)
        if "placement" in names:
            last = (read_json(os.path.join(raw, "placement.json"), m.problems) or {}).get("context") or {}
            # The placement fingerprint at the end of the run joins the start's.
            m.context["c2c.end_round_trip_ns"] = last.get("c2c.round_trip_ns")
            m.context["c2c.moved"] = last.get("c2c.moved")
    # Which OpenBLAS kernel the run's BLAS figures came from (linpack's openblas_get_config)
    # is a fact of the run, reported with the machine.
    if m.context and "cpu" in m.suites:
        m.context.update((k, v) for k, v in m.suites["cpu"]["context"].items() if k.startswith("openblas."))
    return m
