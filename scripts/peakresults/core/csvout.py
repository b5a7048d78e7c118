"""Rows to CSV (RFC 4180: a cell holding a comma, a quote or a newline is quoted, so a
skip reason with a comma stays one cell), numbers as the JSON had them, None empty."""
import csv
import io

from . import schema


def cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e17:
        return str(int(v))
    return str(v)


def to_csv(rows: list[dict], columns=schema.COLUMNS) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([cell(r.get(c)) for c in columns])
    return buf.getvalue()


def write_csv(path: str, rows: list[dict], columns=schema.COLUMNS) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(to_csv(rows, columns))


def read_csv(path: str) -> list[dict]:
    """A schema CSV back to dicts of strings (tests, and old results folders)."""
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))
