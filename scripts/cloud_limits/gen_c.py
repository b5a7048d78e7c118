#!/usr/bin/env python3
"""Check data/cloud_limits.tsv and write it as a C table (peak_cloud_limits_table.c) for
libpeak: the binaries carry the table, with no file to find at run time. CMake runs this at
build time; a malformed table fails here (exit 2, one line naming the file and line), so it
fails the build and its test, never a run. Standard library only.

  python3 scripts/cloud_limits/gen_c.py data/cloud_limits.tsv OUT.c
  python3 scripts/cloud_limits/gen_c.py --check data/cloud_limits.tsv
"""
import math
import re
import sys

COLUMNS = ("provider", "instance_type", "vcpus", "net_baseline_gbps", "net_burst_gbps",
           "net_per_vcpu_gbps", "net_cap_gbps", "disk_baseline_mbps", "disk_max_mbps",
           "disk_baseline_iops", "disk_max_iops", "burst_minutes", "source", "date_read")
NUMBERS = COLUMNS[2:12]
PROVIDERS = ("aws", "azure", "gce")
TYPE_RE = re.compile(r"[A-Za-z0-9._-]*\*?[A-Za-z0-9._-]*")
DATE_RE = re.compile(r"\d{4}-\d\d-\d\d")


class TableError(Exception):
    pass


def parse(path: str) -> list:
    """The rows as dicts (numbers as floats, None when empty); TableError when malformed."""
    rows, header, seen = [], None, set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            where = f"{path}:{n}"
            if header is None:
                if tuple(cells) != COLUMNS:
                    raise TableError(f"{where}: the header is not: " + " ".join(COLUMNS))
                header = cells
                continue
            if len(cells) != len(COLUMNS):
                raise TableError(f"{where}: {len(cells)} cells, expected {len(COLUMNS)}")
            row = dict(zip(COLUMNS, cells))
            if row["provider"] not in PROVIDERS:
                raise TableError(f"{where}: provider '{row['provider']}' is not one of "
                                 + ", ".join(PROVIDERS))
            if not TYPE_RE.fullmatch(row["instance_type"]) or row["instance_type"] in ("", "*") \
                    or len(row["instance_type"]) > 63:
                raise TableError(f"{where}: instance_type '{row['instance_type']}' is not a name")
            key = (row["provider"], row["instance_type"])
            if key in seen:
                raise TableError(f"{where}: {key[0]} {key[1]} listed twice")
            seen.add(key)
            for col in NUMBERS:
                text = row[col]
                if text == "":
                    row[col] = None
                    continue
                try:
                    value = float(text)
                except ValueError:
                    raise TableError(f"{where}: {col} '{text}' is not a number") from None
                if not math.isfinite(value) or value <= 0:
                    raise TableError(f"{where}: {col} '{text}' must be > 0")
                row[col] = value
            if not row["source"] or '"' in row["source"] or "\\" in row["source"]:
                raise TableError(f"{where}: the row names no source (or holds a quote)")
            if not DATE_RE.fullmatch(row["date_read"]):
                raise TableError(f"{where}: date_read '{row['date_read']}' is not YYYY-MM-DD")
            check_row(row, where)
            rows.append(row)
    if header is None:
        raise TableError(f"{path}: no header line")
    if not rows:
        raise TableError(f"{path}: no rows")
    return rows


def check_row(row: dict, where: str) -> None:
    """A row's figures agree with each other: a baseline above its burst is a typo."""
    # A pattern row ("e2-*-2": every shape of 2 vCPUs) gives figures like any row; a rule
    # row ("n2-*", the '*' last) may give the per-vCPU rate and its cap instead.
    rule = row["instance_type"].endswith("*")
    per_vcpu = row["net_per_vcpu_gbps"] is not None, row["net_cap_gbps"] is not None
    if any(per_vcpu) and not (rule and all(per_vcpu)):
        raise TableError(f"{where}: a per-vCPU rate needs its cap, on a rule row (type ending in '*')")
    for low, high in (("net_baseline_gbps", "net_burst_gbps"),
                      ("disk_baseline_mbps", "disk_max_mbps"),
                      ("disk_baseline_iops", "disk_max_iops")):
        if row[low] is not None and row[high] is not None and row[low] > row[high]:
            raise TableError(f"{where}: {low} {row[low]:g} is above {high} {row[high]:g}")
    figures = [c for c in NUMBERS if c != "vcpus" and row[c] is not None]
    if not figures:
        raise TableError(f"{where}: the row gives no limit")


def c_number(value) -> str:
    return "-1" if value is None else repr(float(value))


def write_c(rows: list, out) -> None:
    out.write("/* Generated from data/cloud_limits.tsv by scripts/cloud_limits/gen_c.py: "
              "do not edit. */\n")
    out.write('#include "peak_cloud_limits.h"\n\n')
    out.write("const struct peak_cloud_limits peak_cloud_limits_table[] = {\n")
    for r in rows:
        nums = ", ".join(c_number(r[c]) for c in NUMBERS)
        out.write(f'\t{{"{r["provider"]}", "{r["instance_type"]}", {nums},\n'
                  f'\t "{r["source"]}", "{r["date_read"]}"}},\n')
    out.write("};\n")
    out.write("const unsigned peak_cloud_limits_count = "
              f"{len(rows)};\n")


def main(argv) -> int:
    check = len(argv) == 3 and argv[1] == "--check"
    if not check and len(argv) != 3:
        print("usage: gen_c.py TABLE.tsv OUT.c | gen_c.py --check TABLE.tsv", file=sys.stderr)
        return 2
    table = argv[2] if check else argv[1]
    try:
        rows = parse(table)
    except (TableError, OSError, UnicodeDecodeError) as exc:
        print(f"gen_c.py: {exc}", file=sys.stderr)
        return 2
    if check:
        print(f"{table}: {len(rows)} rows")
        return 0
    with open(argv[2], "w", encoding="utf-8") as out:
        write_c(rows, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
