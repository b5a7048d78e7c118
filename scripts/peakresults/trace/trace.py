"""Proving a pair is the same job at the level disk and network tools act: the system
calls. `peakresults trace run OUTFILE -- ARGV...` runs ARGV under strace and writes a
summary of a few KB (trace_summary.FORMAT, JSON): per data call its count, the sizes asked
for, bytes, O_DIRECT; the flags files were opened with; socket options with their values;
io_uring's rings and submissions; the sync calls of the timed part and the calls made
before it (setup); every system call's count (what strace -c counts), and those of the
threads that moved the data. One traced run gives both: all calls are traced (strace -f
-yy -T -s 1), so the command is not run twice. strace -f follows fio's job processes,
iperf3's server (a child of its adapter, scripts/peakresults/adapters/iperf3.py) and our thread teams.

compare(ours, tool) lists the differences beyond the tolerances below, one measured
sentence each; pair_cause(pair_dir) joins those of pair_dir/trace-ours[-part].txt and
trace-tool.txt; trace_status(pair_dir) says "same", "differs" or "not traced: why"."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from peakresults.trace.trace_compare import compare  # noqa: F401 (part of this module's interface)
from peakresults.trace.trace_parse import Tracer
from peakresults.trace.trace_summary import FORMAT, merge, summarize

STRACE = ["strace", "-f", "-qq", "-yy", "-T", "-s", "1"]
EXIT_NO_STRACE = 3


def _reader(fifo: str, tracer: Tracer, done: list) -> None:
    with open(fifo, encoding="utf-8", errors="replace") as f:
        for line in f:
            tracer.feed(line)
    done.append(True)


def run(outfile: str, argv: list) -> int:
    """Run ARGV under strace, write its summary to OUTFILE; the command's exit status
    (EXIT_NO_STRACE, one line on stderr and the reason in OUTFILE, without strace)."""
    if not shutil.which("strace"):
        print("peakresults trace: strace not installed (Debian: apt install strace)", file=sys.stderr)
        _write(outfile, {"format": FORMAT, "argv": argv, "error": "strace not installed"})
        return EXIT_NO_STRACE
    tracer, done = Tracer(), []
    with tempfile.TemporaryDirectory(prefix="peakbench-trace.") as tmp:
        fifo = os.path.join(tmp, "trace")
        os.mkfifo(fifo)
        reader = threading.Thread(target=_reader, args=(fifo, tracer, done), daemon=True)
        reader.start()
        try:
            rc = subprocess.call(STRACE + ["-o", fifo, "--"] + list(argv))
        except KeyboardInterrupt:
            rc = 130
        if not done and reader.is_alive():
            # strace never opened the FIFO (it failed first): open it so the reader ends
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        reader.join()
    summary = summarize(tracer, list(argv), rc)
    if tracer.ncalls == 0:
        summary["error"] = "strace recorded no call (ptrace not permitted?)"
    _write(outfile, summary)
    return rc


def _write(path: str, doc: dict) -> None:
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=0, sort_keys=True)
        f.write("\n")


def load(path: str):
    """A summary, or a string saying why there is none."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError:
        return f"no {os.path.basename(path)}"
    except ValueError:
        return f"{os.path.basename(path)} is not JSON"
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        return f"{os.path.basename(path)} is not a {FORMAT} summary"
    if doc.get("error"):
        return f"{os.path.basename(path)}: {doc['error']}"
    return doc


def _side(pair_dir: str, side: str):
    """The summary of one side, its parts merged (trace-ours.txt, trace-ours-<part>.txt)."""
    paths = sorted(set(glob.glob(os.path.join(pair_dir, f"trace-{side}.txt")) +
                       glob.glob(os.path.join(pair_dir, f"trace-{side}-*.txt"))))
    if not paths:
        return f"no trace-{side}.txt"
    out = None
    for p in paths:
        doc = load(p)
        if isinstance(doc, str):
            return doc
        out = doc if out is None else merge(out, doc)
    return out


def _tool_name(pair_dir: str) -> str:
    try:
        with open(os.path.join(pair_dir, "job.json"), encoding="utf-8") as f:
            return str(json.load(f).get("tool") or "tool")
    except (OSError, ValueError, AttributeError):
        return "tool"


def _differences(pair_dir: str):
    ours, tool = _side(pair_dir, "ours"), _side(pair_dir, "tool")
    for why in (ours, tool):
        if isinstance(why, str):
            return why
    return compare(ours, tool, _tool_name(pair_dir))


def trace_status(pair_dir: str) -> str:
    """"same", "differs" or "not traced: <reason>"."""
    diffs = _differences(pair_dir)
    if isinstance(diffs, str):
        return f"not traced: {diffs}"
    return "differs" if diffs else "same"


def pair_cause(pair_dir: str) -> str | None:
    """The measured differences of the two sides' traces joined ("; "), or None when the
    jobs are the same or a trace is missing (trace_status says which)."""
    diffs = _differences(pair_dir)
    if isinstance(diffs, str) or not diffs:
        return None
    return "; ".join(diffs)


def main(argv: list) -> int:
    """`trace run OUTFILE -- ARGV...`, `trace compare OURS TOOL [--tool NAME]` (exit 1 when
    they differ) and `trace status PAIR_DIR`; usage errors exit 2."""
    if argv[:1] == ["run"] and len(argv) >= 4 and argv[2] == "--":
        return run(argv[1], argv[3:])
    if argv[:1] == ["compare"] and len(argv) in (3, 5) and (len(argv) == 3 or argv[3] == "--tool"):
        a, b = load(argv[1]), load(argv[2])
        for why in (a, b):
            if isinstance(why, str):
                print(f"peakresults trace: {why}", file=sys.stderr)
                return 2
        diffs = compare(a, b, argv[4] if len(argv) == 5 else "tool")
        for d in diffs:
            print(d)
        return 1 if diffs else 0
    if argv[:1] == ["status"] and len(argv) == 2:
        print(trace_status(argv[1]))
        cause = pair_cause(argv[1])
        if cause:
            print(cause)
        return 0
    print("peakresults trace: usage: trace run OUTFILE -- ARGV... | trace compare OURS TOOL [--tool NAME]"
          " | trace status PAIR_DIR", file=sys.stderr)
    return 2
