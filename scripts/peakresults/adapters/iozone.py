"""IOZone for diskbench, where iozone is installed (it is not in Debian main: build it from
iozone.org and put it on PATH). Reads both layouts the PA1 document shows: `iozone -a`
(every file size x record size) and `iozone -s SIZE` (one file size).

Mapping (kBytes/sec x 1024 / 10^6 = MB/s; one process = 1 thread; block = reclen KiB):
  write        -> disk seq_write psync   throughput
  read         -> disk seq_read  psync   throughput
  random read  -> disk rand_read psync   throughput
  random write -> disk rand_write psync  throughput
Without -I in "Command line used" iozone went through the page cache: the rows are flagged
"cached" (diskbench bypasses the cache, so the two are not the same measurement). The run
uses -I (O_DIRECT) and -e (fsync in the timing), as diskbench does. A data row with fewer
values than the header names is skipped with a warning (the PA1 document has one), rather
than shifting values into the wrong columns."""
import os
import re
import sys
import tempfile

from .common import NotToolOutput, row

NAME = TOOL = PROGRAM = "iozone"
SUITES = ("disk",)
SIZE = {"full": "1g", "quick": "256m", "tiny": "16m"}
MAP = {"write": "seq_write", "read": "seq_read", "random_read": "rand_read", "random_write": "rand_write"}


def run(r, a) -> int:
    if not r.have("iozone"):
        for t in ("seq_write", "seq_read", "rand_read"):
            r.skip(t, "iozone not installed: it is not in Debian main and fio stands in for it "
                      "(or build iozone from iozone.org)")
        return r.finish()
    size = SIZE[a.mode]
    if r.plan:
        print(f"iozone -e -I -i 0 -i 1 -i 2 -s {size} -r 4k -r 1m -f {a.dir or '/tmp'}/peakbench-iozone.tmp")
        return 0
    d = a.dir
    if not d:
        d = tempfile.mkdtemp(prefix="peakbench-iozone.", dir=os.environ.get("TMPDIR") or "/var/tmp")
        r.cleanups.append(lambda: _quietly(os.rmdir, d))
    os.makedirs(d, exist_ok=True)
    file = os.path.join(d, f"peakbench-iozone.{os.getpid()}.tmp")
    r.cleanups.append(lambda: _quietly(os.remove, file))
    out = os.path.join(r.raw, "iozone.txt")
    if not r.run(900, out, ["iozone", "-e", "-I", "-i", "0", "-i", "1", "-i", "2", "-s", size, "-r", "4k",
                            "-r", "1m", "-f", file]):
        r.say("iozone failed")
        r.skip("seq_read", "failed: iozone exited non-zero")
        r.finish()
        return 1
    return r.finish()


def _quietly(f, path) -> None:
    try:
        f(path)
    except OSError:
        pass


def _header(line: str, upper: str) -> list:
    if "\t" in line:
        return ["_".join(t.split()) for t in line.split("\t") if t.strip()]
    # space-aligned: a word of the line above ending in the same column joins the name
    ends = {m.end(): m.group(0) for m in re.finditer(r"\S+", upper)}
    return [(ends[m.end()] + "_" if m.end() in ends else "") + m.group(0) for m in re.finditer(r"\S+", line)]


def parse(path: str, ctx: dict) -> tuple:
    """iozone's table -> disk rows; the PA1 document's tab-separated header and iozone's own
    space-aligned two-line header."""
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


def baseline_extra(o, disk_dir: str) -> list:
    return ["--dir", disk_dir]


def pair_jobs(e) -> list:
    """No paired job: fio stands in for iozone in the pairs."""
    return []
