"""Reading a results folder: <suite>.json files (context, rows and their samples)."""
import json
import os

from . import schema

SUITES = ("cpu", "memory", "disk", "network", "dpdk")


class NotAResultsFolder(Exception):
    """The path holds no peakbench results."""


class Run:
    """One run: its context (peakinfo's, else the first suite's) and every measured row."""

    def __init__(self, path: str, context: dict, rows: list[dict], suites: list[str]):
        self.path = path
        self.context = context
        self.rows = rows
        self.suites = suites


def load_run(path: str) -> Run:
    """Load a results folder written by run_all.sh (or a single suite JSON file)."""
    if os.path.isfile(path):
        files = [path]
    elif os.path.isdir(path):
        files = [os.path.join(path, f"{s}.json") for s in SUITES]
        files = [f for f in files if os.path.isfile(f)]
    else:
        raise NotAResultsFolder(f"{path}: no such file or folder")
    if not files:
        raise NotAResultsFolder(f"{path}: no <suite>.json files (cpu, memory, disk, network, dpdk)")
    context: dict = {}
    ctx_file = os.path.join(path, "context.json") if os.path.isdir(path) else ""
    if ctx_file and os.path.isfile(ctx_file):
        with open(ctx_file, encoding="utf-8") as f:
            context = json.load(f)
    rows: list[dict] = []
    suites: list[str] = []
    for name in files:
        try:
            with open(name, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise NotAResultsFolder(f"{name}: not peakbench JSON ({e})") from e
        if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
            raise NotAResultsFolder(f"{name}: no \"results\" array")
        if not context:
            context = doc.get("context") or {}
        suites.append(os.path.splitext(os.path.basename(name))[0])
        rows.extend(r for r in doc["results"] if isinstance(r, dict))
    return Run(path, context, rows, suites)


def with_hosts(rows: list[dict]) -> list[dict]:
    """The rows with host and peer always present (schema.HOST_COLUMNS): clusterbench's as
    written, "" for rows from other binaries or from results written before the fields."""
    for r in rows:
        r["host"], r["peer"] = schema.hosts_of(r)
    return rows
