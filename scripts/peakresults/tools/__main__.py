"""python3 scripts/peakresults/tools TOOL [--out FILE] [--skip TEST=REASON]... [--isa ISA]
[--ctx K=V]... [--set FIELD=VALUE]... [--csv] [FILE...]: parse the tool's outputs into
OUT/raw/baseline-<tool>.json (format of INTERFACES.md section 2), or print the rows as JSON
lines without --out. --ctx passes what the output does not say (sockperf's msg, likwid's
block_bytes, the version); --set rewrites a key field of every row (a paired job names the
peakbench row its tool run is the reference for). --csv: also print the rows as the old
bash pipeline's baseline CSV (ours= in flags), until `peakresults finish` replaces it.
Exit 0, 1 when a file is not the tool's output, 2 on a usage error."""
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
    p.add_argument("--csv", action="store_true")
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
    if a.csv:
        sys.stdout.write(legacy_csv(rows))
    elif not a.out:
        for r in rows:
            print(json.dumps(r))
    return rc


def legacy_csv(rows: list) -> str:
    """The rows as the old pipeline's baseline.csv lines (no header): suite "baseline",
    variant TOOL-VARIANT, ours=SUITE:TEST:VARIANT:METRIC in flags. Transitional: goes with
    lib.sh's peak_join_baselines when `peakresults finish` is merged."""
    def cell(v):
        s = "" if v is None else (f"{v:.10g}" if isinstance(v, float) else str(v))
        return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n') else s
    out = []
    for r in rows:
        flags = ";".join(x for x in (f"ours={r['suite']}:{r['test']}:{r['variant']}:{r['metric']}",
                                     r.get("config"), r.get("flags")) if x)
        vals = ["baseline", r["test"], f"{r['tool']}-{r['variant']}"] + \
            [r.get(c) for c in schema.COLUMNS[3:21]] + [r["tool"], r["mean"], flags]
        out.append(",".join(cell(v) for v in vals) + "\n")
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
