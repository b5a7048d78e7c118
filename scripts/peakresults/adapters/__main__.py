"""python3 scripts/peakresults/adapters TOOL [options]: run reference tool TOOL on
peakbench's job, or --parse its outputs (common.py's top says the options).
python3 scripts/peakresults/adapters hpcc cluster run ...: hpcc across a hostfile's nodes
(adapters/hpcc/cluster.py, the adapter's COMMANDS).
python3 scripts/peakresults/adapters pair JOB [--rounds N] ...: one paired job by hand
(plan/pair_by_hand.py: it builds a plan, so it is plan's; this command line, which nothing
imports, may use it: layers.py)."""
import os
import sys

if __package__ in (None, ""):  # run as `python3 scripts/peakresults/adapters`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    __package__ = "peakresults.adapters"  # noqa: A001

from peakresults import adapters  # noqa: E402
from peakresults.adapters import common  # noqa: E402


def main(argv: list) -> int:
    if argv and argv[0] == "pair":
        from peakresults.plan import pair_by_hand as pair
        return pair.main(argv[1:])
    if not argv or argv[0] not in adapters.NAMES:
        print(f"peakresults adapters: the first argument is a tool: {', '.join(adapters.NAMES)}"
              f" (got '{argv[0] if argv else ''}')", file=sys.stderr)
        return 2
    return common.main(adapters.get(argv[0]), argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
