"""`peakresults compare --shape OLD NEW`: whether two runs have the same shape, whatever
their numbers. A change that should not touch what a user sees (a refactor, a move of
files) is checked on two `--tiny` runs, whose figures are noise by design: the same suites,
the same rows (by the schema's KEY, as many of each), the same fields in every row, and the
same files in the folder (its CSV, JSON, charts and report). Context keys present in one run
only are listed too but decide nothing: a measured note (a probe pass short of the table,
say) is there on one run and not the next."""
import json
import os
from collections import Counter

from ..core import schema
from ..core.load import Run

# What a results folder holds that is the run's own history, not its shape: the steps' logs,
# the binaries' raw output, a resumed run's notes.
_NOT_SHAPE = ("logs", "raw")


def _row_key(r: dict) -> tuple:
    return tuple(r.get(k) for k in schema.KEY)


def _fields(rows: list[dict]) -> dict:
    """Per row key, the set of fields its rows carry."""
    out: dict = {}
    for r in rows:
        out.setdefault(_row_key(r), set()).update(r.keys())
    return out


def _folder_files(path: str) -> set:
    """The folder's files, relative, without logs/ and raw/ (nothing for a single file)."""
    if not os.path.isdir(path):
        return set()
    found = set()
    for root, dirs, files in os.walk(path):
        if root == path:
            dirs[:] = [d for d in dirs if d not in _NOT_SHAPE]
        for f in files:
            found.add(os.path.relpath(os.path.join(root, f), path))
    return found


def _key_text(k: tuple) -> str:
    return " ".join("-" if v is None or v == "" else str(v) for v in k)


class Shape:
    """What differs between two runs' shapes; `same` when nothing that decides does."""

    def __init__(self, old: Run, new: Run):
        self.suites = (sorted(set(old.suites) - set(new.suites)),
                       sorted(set(new.suites) - set(old.suites)))
        ko, kn = Counter(map(_row_key, old.rows)), Counter(map(_row_key, new.rows))
        self.rows = (sorted(map(_key_text, (ko - kn).elements())),
                     sorted(map(_key_text, (kn - ko).elements())))
        fo, fn = _fields(old.rows), _fields(new.rows)
        self.fields = sorted(
            (_key_text(k), sorted(fo[k] - fn[k]), sorted(fn[k] - fo[k]))
            for k in fo.keys() & fn.keys() if fo[k] != fn[k])
        so, sn = _folder_files(old.path), _folder_files(new.path)
        self.files = (sorted(so - sn), sorted(sn - so))
        co, cn = set(old.context), set(new.context)
        self.context = (sorted(co - cn), sorted(cn - co))
        self.nrows = (len(old.rows), len(new.rows))

    @property
    def same(self) -> bool:
        return not (any(self.suites) or any(self.rows) or self.fields or any(self.files))

    def as_dict(self) -> dict:
        return {"same": self.same, "rows": {"old": self.nrows[0], "new": self.nrows[1]},
                "suites": dict(zip(("only_old", "only_new"), self.suites)),
                "row_keys": dict(zip(("only_old", "only_new"), self.rows)),
                "fields": [{"row": k, "only_old": a, "only_new": b} for k, a, b in self.fields],
                "files": dict(zip(("only_old", "only_new"), self.files)),
                "context_keys": dict(zip(("only_old", "only_new"), self.context))}


def _listing(title: str, pair: tuple, lines: list) -> None:
    for side, items in zip(("OLD", "NEW"), pair):
        if items:
            lines.append(f"- {title} only in {side}: " + ", ".join(f"`{i}`" for i in items))


def markdown(s: Shape, old_path: str, new_path: str) -> str:
    lines = ["# peakbench compare --shape", "",
             f"OLD `{old_path}` ({s.nrows[0]} rows), NEW `{new_path}` ({s.nrows[1]} rows).", ""]
    if s.same:
        lines.append("**The same shape:** the same suites, rows (by "
                     + ", ".join(schema.KEY) + "), fields in every row and files.")
    else:
        lines.append("**The shape differs:**")
        lines.append("")
        _listing("suites", s.suites, lines)
        _listing("rows", s.rows, lines)
        for k, a, b in s.fields:
            lines.append(f"- row `{k}`: fields only in OLD {a or '-'}, only in NEW {b or '-'}")
        _listing("files", s.files, lines)
    if any(s.context):
        lines += ["", "Context keys in one run only (measured notes come and go; they decide nothing):", ""]
        _listing("context keys", s.context, lines)
    return "\n".join(lines) + "\n"


def as_json(s: Shape) -> str:
    return json.dumps(s.as_dict(), indent=1, sort_keys=True)
