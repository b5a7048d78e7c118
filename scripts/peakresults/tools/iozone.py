"""iozone's table -> disk rows (kBytes/sec x 1024 / 10^6 = MB/s; one process = 1 thread;
block = reclen KiB). Reads the PA1 document's tab-separated header and iozone's own
space-aligned two-line header. Without -I in "Command line used" iozone went through the
page cache: those rows are flagged cached (diskbench bypasses it). A data row with fewer
values than the header names is skipped with a warning on stderr."""
import re
import sys

from . import NotToolOutput, row

TOOL = "iozone"
MAP = {"write": "seq_write", "read": "seq_read", "random_read": "rand_read", "random_write": "rand_write"}


def _header(line: str, upper: str) -> list:
    if "\t" in line:
        return ["_".join(t.split()) for t in line.split("\t") if t.strip()]
    # space-aligned: a word of the line above ending in the same column joins the name
    ends = {m.end(): m.group(0) for m in re.finditer(r"\S+", upper)}
    return [(ends[m.end()] + "_" if m.end() in ends else "") + m.group(0) for m in re.finditer(r"\S+", line)]


def parse(path: str, ctx: dict) -> tuple:
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    names, prev, cmd, rows = [], "", "", []
    for ln in lines:
        if "Command line used:" in ln:
            cmd = ln.split("Command line used:", 1)[1].strip()
        elif "Output is in" in ln and "kBytes/sec" not in ln:
            raise NotToolOutput("output is not in kBytes/sec")
        if re.search(r"(^|[ \t])kB[ \t]+reclen", ln):
            names = _header(ln, prev)
        elif names and re.fullmatch(r"[ \t]*[0-9]+[ \t]+[0-9]+([ \t]+[0-9]+)+[ \t]*", ln):
            v = ln.split()
            if len(v) != len(names):
                print(f"iozone: {path}: row \"{v[0]} {v[1]}\" has {len(v) - 2} values for "
                      f"{len(names) - 2} columns: skipped", file=sys.stderr)
                continue
            words = cmd.split()
            direct, fsync = "-I" in words, "-e" in words
            config = f"file_kb={v[0]};" + ("direct=1" if direct else "cached") + (";fsync" if fsync else "")
            for name, val in zip(names[2:], v[2:]):
                if name in MAP:
                    rows.append(row(TOOL, "iozone", ("disk", MAP[name], "psync", 1, int(v[1]) * 1024,
                                                     "throughput", "MB/s"), int(val) * 1024 / 1e6,
                                    job=cmd or "iozone", config=config, flags="" if direct else "cached"))
        prev = ln
    if not rows:
        raise NotToolOutput("no iozone table")
    return "iozone", rows
