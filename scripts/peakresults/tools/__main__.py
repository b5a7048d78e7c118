"""python3 scripts/peakresults/tools TOOL [--out FILE] [--skip TEST=REASON]... [--isa ISA]
[--ctx K=V]... [--set FIELD=VALUE]... [FILE...]: parse the tool's outputs into
OUT/raw/baseline-<tool>.json (format: docs/results-schema.md), or print the rows as JSON
lines without --out. --ctx passes what the output does not say (sockperf's msg, likwid's
block_bytes, the version); --set rewrites a key field of every row (a paired job names the
peakbench row its tool run is the reference for). Exit 0, 1 when a file is not the tool's
output, 2 on a usage error."""
import argparse
import importlib
import json
import os
import sys

if __package__ in (None, ""):  # run as `python3 scripts/peakresults/tools`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    __package__ = "peakresults.tools"  # noqa: A001

from peakresults import schema  # noqa: E402
from peakresults.tools import NotToolOutput, write_doc  # noqa: E402

TOOLS = ("fio", "iperf3", "sockperf", "likwid", "hpcc", "iozone")


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"peakresults tools: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    p = _Parser(prog="peakresults tools")
    p.add_argument("tool", choices=TOOLS)
    p.add_argument("files", nargs="*")
    p.add_argument("--out")
    p.add_argument("--skip", action="append", default=[], metavar="TEST=REASON")
    p.add_argument("--isa", help="our kernels' ISA (default: the widest of this CPU)")
    p.add_argument("--ctx", action="append", default=[], metavar="K=V")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    a = p.parse_intermixed_args(argv)
    mod = importlib.import_module(f"peakresults.tools.{a.tool}")
    ctx = dict(kv.split("=", 1) for kv in a.ctx if "=" in kv)
    if a.isa:
        ctx["isa"] = a.isa
    sets = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        if k not in schema.KEY:
            p.error(f"--set: '{k}' is not a key field ({','.join(schema.KEY)})")
        sets[k] = int(v) if k in ("threads", "block_bytes") and v.isdigit() else (v or None)
    rows, skipped, version, rc = [], [], "", 0
    for s in a.skip:
        test, _, reason = s.partition("=")
        skipped.append({"test": test, "reason": reason})
    for f in a.files:
        try:
            v, r = mod.parse(f, ctx)
        except (NotToolOutput, OSError, ValueError, KeyError, TypeError) as e:
            print(f"peakresults tools: {f} is not a {a.tool} result ({e})", file=sys.stderr)
            rc = 1
            continue
        version = version or v
        rows += [dict(x, **sets) for x in r]
    if a.out:
        write_doc(a.out, mod.TOOL, version, rows, skipped)
    if not a.out:
        for r in rows:
            print(json.dumps(r))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
