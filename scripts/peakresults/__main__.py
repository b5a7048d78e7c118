"""python3 scripts/peakresults compare OLD NEW [--tolerance PCT] [--format md|csv|json]
[--chart FILE]: exit 0 when nothing regressed beyond the tolerance, 1 when something did,
2 on a usage error (one line on stderr)."""
import argparse
import os
import sys

if __package__ in (None, ""):  # run as `python3 scripts/peakresults`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "peakresults"  # noqa: A001

from peakresults import compare_report  # noqa: E402
from peakresults.compare import compare  # noqa: E402
from peakresults.load import NotAResultsFolder, load_run  # noqa: E402


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        print(f"peakresults: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv: list) -> int:
    if argv[:1] == ["plan"]:  # run_all.sh's options and steps (plan.py)
        from peakresults import plan
        return plan.main(argv[1:])
    p = _Parser(prog="peakresults", description="peakbench's results program")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare", help="what changed between two results folders, beyond the noise")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--tolerance", type=float, default=5.0, metavar="PCT",
                   help="a slower row counts as a regression beyond this many percent (default 5)")
    c.add_argument("--format", choices=("md", "csv", "json"), default="md")
    c.add_argument("--chart", metavar="FILE", help="also draw the changes into FILE (PNG, gnuplot)")
    a = p.parse_args(argv)
    if not a.tolerance >= 0:
        p.error("--tolerance must be a percentage >= 0")
    try:
        old, new = load_run(a.old), load_run(a.new)
    except NotAResultsFolder as e:
        print(f"peakresults: {e}", file=sys.stderr)
        return 2
    cmp = compare(old, new, a.tolerance)
    if a.format == "md":
        sys.stdout.write(compare_report.markdown(cmp, a.old, a.new, a.tolerance))
    elif a.format == "csv":
        sys.stdout.write(compare_report.as_csv(cmp))
    else:
        sys.stdout.write(compare_report.as_json(cmp) + "\n")
    if a.chart:
        print(compare_report.chart(cmp, a.chart), file=sys.stderr)
    return 1 if cmp.regressions(a.tolerance) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
