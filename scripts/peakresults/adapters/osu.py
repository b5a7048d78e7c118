"""The OSU Micro-Benchmarks and IMB-MPI1, where they are on PATH (neither is in Debian),
read into reference rows for clusterbench's mpi_p2p (docs/cluster.md, "References"):

  osu_latency  "# Size  Latency (us)" (5.x) or "Avg Latency(us)" (7.x) -> mpi_p2p_latency, us
  osu_bw       "# Size  Bandwidth (MB/s)"                               -> mpi_p2p_bw, MB/s
  osu_bibw     the same columns, "Bi-Directional" in its title          -> mpi_p2p_bibw, MB/s
  osu_mbw_mr   "# Size  MB/s  Messages/s"                               -> mpi_p2p_msgrate, Mmsg/s
  IMB-MPI1 PingPong  t[usec] (half the round trip)                      -> mpi_p2p_latency, us

OSU's MB is 10^6 bytes, as ours. IMB's "Mbytes/sec" is not paired: it counted 2^20 bytes in
older releases and one message in flight is not osu_bw's window. Each file is one run
between two ranks on two nodes (scripts/cluster_run.sh, the hostfile's first two hosts).

  python3 -m peakresults.adapters.osu --out FILE TOOL_OUTPUT...
writes a reference tool's document (tool "osu" or "imb" per row) of every file it reads;
exit 1 when a file is neither tool's output."""
import json
import os
import re
import sys

from ..core.schema import BASELINE_SCHEMA
from .common import row

_VERSION = re.compile(r"^# OSU MPI (.*?) Test v(\S+)", re.M)
_IMB_VERSION = re.compile(r"Intel\(R\) MPI Benchmarks (\S+)")


def _numbers(text: str) -> list:
    """The data lines: [[float, ...]] of lines made of numbers only."""
    out = []
    for ln in text.splitlines():
        parts = ln.split()
        if not parts or ln.lstrip().startswith("#"):
            continue
        try:
            out.append([float(p) for p in parts])
        except ValueError:
            continue
    return out


def parse_osu(text: str) -> tuple:
    """(tool version, rows) of one OSU benchmark's output; ValueError if it is not one."""
    m = _VERSION.search(text)
    if not m:
        raise ValueError("no '# OSU MPI ... Test vX' title")
    title, ver = m.group(1), "OSU " + m.group(2)
    if "Latency" in title and "Multi" not in title:
        what = (("mpi_p2p_latency", "latency", "us", 1, 1.0),)
    elif "Multiple Bandwidth" in title:
        what = (("mpi_p2p_msgrate", "rate", "Mmsg/s", 2, 1e-6),)
    elif "Bi-Directional" in title:
        what = (("mpi_p2p_bibw", "throughput", "MB/s", 1, 1.0),)
    elif "Bandwidth" in title:
        what = (("mpi_p2p_bw", "throughput", "MB/s", 1, 1.0),)
    else:
        raise ValueError(f"OSU test '{title}' has no row of ours")
    prog = {"mpi_p2p_latency": "osu_latency", "mpi_p2p_bw": "osu_bw", "mpi_p2p_bibw": "osu_bibw",
            "mpi_p2p_msgrate": "osu_mbw_mr"}
    rows = []
    for nums in _numbers(text):
        for test, metric, unit, col, scale in what:
            if len(nums) > col and nums[0] >= 1:
                rows.append(row("osu", ver, ("cluster", test, "mpi", 1, int(nums[0]), metric, unit),
                                nums[col] * scale, job=f"{prog[test]} between two nodes",
                                config=f"message_bytes={int(nums[0])}"))
    if not rows:
        raise ValueError("no data lines")
    return ver, rows


def parse_imb(text: str) -> tuple:
    """(tool version, rows) of IMB-MPI1's PingPong table."""
    m = re.search(r"^# Benchmarking PingPong\s*$(.*?)(?:^# Benchmarking|\Z)", text, re.M | re.S)
    if not m:
        raise ValueError("no '# Benchmarking PingPong' table")
    v = _IMB_VERSION.search(text)
    ver = "IMB " + (v.group(1).rstrip(",") if v else "?")
    rows = [row("imb", ver, ("cluster", "mpi_p2p_latency", "mpi", 1, int(n[0]), "latency", "us"), n[2],
                job="IMB-MPI1 PingPong between two nodes (t[usec]: half the round trip)",
                config=f"message_bytes={int(n[0])};repetitions={int(n[1])}")
            for n in _numbers(m.group(1)) if len(n) >= 4 and n[0] >= 1]
    if not rows:
        raise ValueError("an empty PingPong table")
    return ver, rows


def parse(path: str) -> tuple:
    with open(path, errors="replace") as f:
        text = f.read()
    return parse_imb(text) if "Benchmarking PingPong" in text else parse_osu(text)


def main(argv: list) -> int:
    if len(argv) < 3 or argv[0] != "--out":
        print("cluster_osu: usage: --out FILE TOOL_OUTPUT...", file=sys.stderr)
        return 2
    rows, versions = [], []
    for path in argv[2:]:
        try:
            ver, got = parse(path)
        except (OSError, ValueError) as e:
            print(f"cluster_osu: {path}: {e}", file=sys.stderr)
            return 1
        rows += got
        versions.append(ver)
    tmp = argv[1] + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"schema": BASELINE_SCHEMA, "tool": "osu" if all(v.startswith("OSU") for v in versions)
                   else "osu/imb", "tool_version": ", ".join(sorted(set(versions))), "rows": rows,
                   "skipped": []}, f, indent=1)
        f.write("\n")
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
