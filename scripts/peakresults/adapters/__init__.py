"""One adapter per reference tool (fio, hpcc, iozone, iperf3, likwid-bench, sockperf, and
oneDNN through peak_ref_gemm, paired only): each
module holds the tool's job derived from ours, its command line and run (run), its parser
into our rows (parse), the skipped entries when it is missing, and its pairing rules
(pair_jobs: the paired jobs, pairing.PairJob). common.py is what they share, pairing.py
the paired jobs' record and the machine facts they are derived from;
`python3 scripts/peakresults/adapters TOOL ...` runs one (__main__.py, common.main). hpcc's
adapter is a folder: one node in __init__.py, across a hostfile's nodes in cluster.py;
osu.py reads OSU's and IMB's outputs for the cluster part (scripts/cluster_osu.sh)."""
import importlib

# The adapters by name (the unpaired steps run in this order), and the order of their
# paired jobs in the plan.
NAMES = ("hpcc", "likwid", "fio", "iozone", "iperf3", "sockperf", "onednn")
PAIR_ORDER = ("likwid", "hpcc", "onednn", "fio", "iperf3", "sockperf")


def get(name: str):
    """The adapter module NAME (one of NAMES)."""
    if name not in NAMES:
        raise KeyError(name)
    return importlib.import_module(f"peakresults.adapters.{name}")


def argv(name: str, mode: str, *extra) -> list:
    """The command of adapter NAME in a plan's step (run_all.sh runs python3 steps from the
    repository's root)."""
    return ["python3", "scripts/peakresults/adapters", name, "--mode", mode] + [str(x) for x in extra]
