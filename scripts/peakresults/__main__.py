"""python3 scripts/peakresults finish OUT [--no-charts]: the raw files of a run into the
suite JSON/CSV files, results.csv, baselines.csv, context.json, charts/, report.md and
report-appendix.md (exit 2 when OUT has no raw/ folder).
python3 scripts/peakresults theoretical FILE SUITE VARIANT: the first theoretical figure.
python3 scripts/peakresults cache-env FILE: PEAKBENCH_CACHE_EFFECTIVE's value from a peakinfo
JSON (peakinfo --caches); exit 1 when the file has no cache sizes.
python3 scripts/peakresults cloud-env FILE: PEAKBENCH_CLOUD's value (the cloud peakinfo
identified) from a peakinfo JSON; exit 1 when the file has no cloud keys.
python3 scripts/peakresults pairs-enough OUT JOB [K]: before round K of a paired job, exit 0
when no figure's verdict is open with rounds left that could settle it (pairs_settle.py), 1
when one is, one line saying why.
python3 scripts/peakresults trace run OUTFILE -- ARGV...: ARGV under strace, its system calls
summarized into OUTFILE (trace.py; exit: ARGV's, 3 without strace).
python3 scripts/peakresults insmix BINARY SYMBOL: the instruction mix of SYMBOL's loops.
python3 scripts/peakresults compare OLD NEW [--tolerance PCT] [--format md|csv|json]
[--chart FILE]: exit 0 when nothing regressed beyond the tolerance, 1 when something did,
2 on a usage error (one line on stderr).
python3 scripts/peakresults compare --shape OLD NEW [--format md|json]: exit 0 when the two
runs have the same shape (suites, rows, fields, files; compare_shape.py), whatever their
numbers, 1 naming what differs."""
import argparse
import os
import sys

if __package__ in (None, ""):  # run as `python3 scripts/peakresults`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "peakresults"  # noqa: A001

from peakresults.compare import compare_report, compare_shape  # noqa: E402
from peakresults.compare.compare import compare  # noqa: E402
from peakresults.core.load import NotAResultsFolder, load_run  # noqa: E402


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        print(f"peakresults: {message}", file=sys.stderr)
        sys.exit(2)


def run_finish(out: str, draw: bool) -> int:
    from peakresults.report.finish import finish
    if not os.path.isdir(os.path.join(out, "raw")):
        print(f"peakresults: {out}: no raw/ folder (not a run_all.sh results folder)", file=sys.stderr)
        return 2
    _, charts = finish(out, draw)
    for msg in charts.failed:
        print(f"peakresults: {msg}", file=sys.stderr)
    if charts.note:
        print(f"peakresults: {charts.note}", file=sys.stderr)
    print(f"peakresults: {len(charts.drawn)} charts, {os.path.join(out, 'report.md')}", file=sys.stderr)
    return 0


def run_theoretical(path: str, suite: str, variant: str) -> int:
    """run_all.sh's loopback peak for netbench: exit 1 when the file has none."""
    import json
    try:
        with open(path, encoding="utf-8") as f:
            rows = json.load(f).get("results") or []
    except (OSError, ValueError, AttributeError):
        return 1
    for r in rows:
        v = r.get("theoretical") if isinstance(r, dict) else None
        if r.get("suite") == suite and r.get("variant") == variant and isinstance(v, (int, float)):
            print(v)
            return 0
    return 1


def run_pair_question(verb: str, args: list) -> int:
    """run_all.sh before a conditional step of a paired job: `pairs-enough OUT JOB [K]` (before
    round K: 0 = the job's verdicts are settled or cannot settle, skip it; 1 = run it; 2 = usage)."""
    from peakresults.pairs import pairs
    if len(args) not in (2, 3) or not os.path.isfile(os.path.join(args[0], "raw", "pairs", args[1], "job.json")):
        print(f"peakresults: {verb} OUT JOB [K]: no OUT/raw/pairs/JOB/job.json", file=sys.stderr)
        return 2
    if len(args) == 3 and not (args[2].isdigit() and int(args[2]) > 0):
        print(f"peakresults: {verb} OUT JOB K: K '{args[2]}' is not a round number (1, 2, ...)", file=sys.stderr)
        return 2
    ok, line = pairs.enough_line(args[0], args[1], int(args[2]) if len(args) == 3 else None)
    print(line)
    return 0 if ok else 1


def run_eal_mem(args: list) -> int:
    """`eal-mem PROCS MB [MOUNTS [MEMINFO]]`: dpdkbench's EAL memory arguments, one word a
    line (plan.dpdk_eal_mem, the one rule; scripts/lib.sh's peak_dpdk_eal_mem calls this)."""
    from peakresults.plan import plan
    if not 2 <= len(args) <= 4 or not all(a.isdigit() and int(a) > 0 for a in args[:2]):
        print("peakresults: eal-mem PROCS MB [MOUNTS [MEMINFO]]", file=sys.stderr)
        return 2
    files = dict(zip(("mounts", "meminfo"), args[2:]))
    print("\n".join(plan.dpdk_eal_mem(int(args[0]), int(args[1]), **files)))
    return 0


def main(argv: list) -> int:
    if argv[:1] == ["eal-mem"]:  # dpdkbench's EAL memory arguments (plan.dpdk_eal_mem)
        return run_eal_mem(argv[1:])
    if argv[:1] == ["plan"]:  # run_all.sh's options and steps (plan.py)
        from peakresults.plan import plan
        return plan.main(argv[1:])
    if argv[:1] == ["pairs-enough"]:  # run_all.sh's conditional rounds
        return run_pair_question(argv[0], argv[1:])
    if argv[:1] == ["trace"]:  # a pair's two sides under strace (trace.py)
        from peakresults.trace import trace
        return trace.main(argv[1:])
    if argv[:1] == ["insmix"]:  # a kernel's instruction mix (insmix.py, insmix_tools.py)
        from peakresults.insmix import insmix_tools
        return insmix_tools.main(argv[1:])
    p = _Parser(prog="peakresults", description="peakbench's results program")
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("finish", help="everything after the binaries: merge, CSV, baselines, charts, report")
    f.add_argument("out")
    f.add_argument("--no-charts", action="store_true", help="write the charts' data files, draw nothing")
    ce = sub.add_parser("cache-env", help="PEAKBENCH_CACHE_EFFECTIVE from a peakinfo JSON file")
    ce.add_argument("file")
    cl = sub.add_parser("cloud-env", help="PEAKBENCH_CLOUD from a peakinfo JSON file")
    cl.add_argument("file")
    t = sub.add_parser("theoretical", help="the first theoretical figure of a suite/variant in a JSON file")
    t.add_argument("file")
    t.add_argument("suite")
    t.add_argument("variant")
    c = sub.add_parser("compare", help="what changed between two results folders, beyond the noise")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--tolerance", type=float, default=5.0, metavar="PCT",
                   help="a slower row counts as a regression beyond this many percent (default 5)")
    c.add_argument("--format", choices=("md", "csv", "json"), default="md")
    c.add_argument("--chart", metavar="FILE", help="also draw the changes into FILE (PNG, gnuplot)")
    c.add_argument("--shape", action="store_true",
                   help="compare the runs' shape (suites, rows, fields, files), not their numbers")
    a = p.parse_args(argv)
    if a.cmd == "finish":
        return run_finish(a.out, not a.no_charts)
    if a.cmd == "cache-env":
        from peakresults.core.cache_env import from_file
        v = from_file(a.file)
        if v:
            print(v)
        return 0 if v else 1
    if a.cmd == "cloud-env":
        from peakresults.core.cloud_env import from_file as cloud_from_file
        v = cloud_from_file(a.file)
        if v:
            print(v)
        return 0 if v else 1
    if a.cmd == "theoretical":
        return run_theoretical(a.file, a.suite, a.variant)
    if not a.tolerance >= 0:
        p.error("--tolerance must be a percentage >= 0")
    if a.shape and (a.chart or a.format == "csv"):
        p.error("--shape writes md or json, and no chart")
    try:
        old, new = load_run(a.old), load_run(a.new)
    except NotAResultsFolder as e:
        print(f"peakresults: {e}", file=sys.stderr)
        return 2
    if a.shape:
        shape = compare_shape.Shape(old, new)
        text = compare_shape.as_json(shape) + "\n" if a.format == "json" else \
            compare_shape.markdown(shape, a.old, a.new)
        sys.stdout.write(text)
        return 0 if shape.same else 1
    cmp = compare(old, new, a.tolerance)
    if a.format == "md":
        sys.stdout.write(compare_report.markdown(cmp, a.old, a.new, a.tolerance))
    elif a.format == "csv":
        sys.stdout.write(compare_report.as_csv(cmp))
    else:
        sys.stdout.write(compare_report.as_json(cmp, a.tolerance) + "\n")
    if a.chart:
        print(compare_report.chart(cmp, a.chart), file=sys.stderr)
    return 1 if cmp.regressions(a.tolerance) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
