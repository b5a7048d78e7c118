"""Reference tools' rows (raw/baseline-<tool>.json, schema.BASELINE_COLUMNS) joined to the
peakbench rows they are the reference for, on schema.KEY equality: the peakbench row gets
baseline_tool and baseline; a baseline row without its peakbench row stays in
baselines.csv, reported as such."""
import os

from ..core import schema
from . import legacy
from .merge import read_json


class Baselines:
    def __init__(self):
        self.rows: list[dict] = []      # every baseline row, with "matched": bool
        self.skipped: list[dict] = []   # {"tool", "test", "reason"}
        self.tools: dict[str, str] = {}  # tool -> version


def load_baselines(out: str, problems: list, rows: list[dict] | None = None) -> Baselines:
    b = Baselines()
    raw = os.path.join(out, "raw")
    if not os.path.isdir(raw):
        return b
    for name in sorted(os.listdir(raw)):
        if not (name.startswith("baseline-") and name.endswith(".json")):
            continue
        doc = read_json(os.path.join(raw, name), problems)
        if doc is None:
            continue
        if doc.get("schema") != schema.BASELINE_SCHEMA:
            problems.append(f"{name}: schema is not {schema.BASELINE_SCHEMA}")
            continue
        tool = doc.get("tool") or name[len("baseline-"):-5]
        b.tools[tool] = doc.get("tool_version") or ""
        for r in doc.get("rows") or []:
            if isinstance(r, dict):
                r = dict(r)
                r.setdefault("tool", tool)
                r.setdefault("tool_version", b.tools[tool])
                b.rows.append(r)
        for s in doc.get("skipped") or []:
            if isinstance(s, dict):
                b.skipped.append({"tool": tool, "test": s.get("test") or "", "reason": s.get("reason") or ""})
    # Old-form CSV of a tool without JSON (folders and baseline scripts from before).
    for name in sorted(os.listdir(raw)):
        if name.startswith("baseline-") and name.endswith(".csv"):
            got, skipped, tool = legacy.convert(os.path.join(raw, name), rows or [], set(b.tools))
            if got or skipped:
                b.tools.setdefault(tool, got[0]["tool_version"] if got else "")
                b.rows += got
                b.skipped += skipped
    return b


def join(rows: list[dict], b: Baselines) -> None:
    """Fill baseline_tool/baseline of rows in place; the first baseline of a key wins."""
    by_key = {}
    for r in rows:
        by_key.setdefault(schema.row_key(r), []).append(r)
    for br in b.rows:
        ours = by_key.get(schema.row_key(br), [])
        br["matched"] = bool(ours)
        if br.get("mean") is None:
            continue
        for r in ours:
            if not r.get("baseline_tool"):
                r["baseline_tool"] = br["tool"]
                r["baseline"] = br["mean"]


def find_ours(rows: list[dict], br: dict) -> dict | None:
    k = schema.row_key(br)
    return next((r for r in rows if schema.row_key(r) == k), None)
