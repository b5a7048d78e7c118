"""The result record's columns, named once, in common/harness/peak_columns.def (the C reporters
include it; docs/results-schema.md describes the columns and is tested against this
module), and the rest of the schema's rules for the results program."""
import os
import re

_DEF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common", "harness", "peak_columns.def")


def read_columns(path: str = _DEF) -> tuple:
    """(columns, host columns) of a peak_columns.def: its PEAK_COLUMN and PEAK_HOST_COLUMN
    lines' names, in order."""
    cols, hosts = [], []
    with open(path, encoding="utf-8") as f:
        for ln in f:
            m = re.match(r"PEAK_(HOST_)?COLUMN\((\w+),", ln)
            if m:
                (hosts if m.group(1) else cols).append(m.group(2))
    return tuple(cols), tuple(hosts)


# The CSV columns, in order. JSON rows carry the same keys plus "samples".
# clusterbench's optional columns (docs/results-schema.md, "Hosts"): the node a row was
# measured on (the sender of a pair; "all" for the across-node row) and the receiving node
# ("" when the row is one node's). After "flags" in CSV, two more keys in JSON; only
# clusterbench writes them, and a row without them (every other binary, every older
# results folder) has host and peer "".
COLUMNS, HOST_COLUMNS = read_columns()
# clusterbench's context: one context block per node under this key, each naming its node
# in "host" (the row's host) and otherwise keyed as a context block is.
NODES_KEY = "nodes"
CLUSTER_SUITE = "cluster"

# A reference tool's row (OUT/raw/baseline-<tool>.json, docs/results-schema.md): the
# common columns, where the KEY fields name the peakbench row it is the reference for,
# plus who measured it and how. baseline_tool/baseline belong to peakbench rows only.
BASELINE_COLUMNS = ("tool", "tool_version", "job", "config") + tuple(
    c for c in COLUMNS if c not in ("baseline_tool", "baseline"))
BASELINE_SCHEMA = "peakbench-baseline/1"

# What identifies a measured point: two runs' rows with equal keys measured the same thing.
KEY = ("suite", "test", "variant", "threads", "block_bytes", "metric", "unit")

# Units and metrics where a smaller figure is better (latencies, loss); the rest are rates.
LOWER_IS_BETTER_UNITS = frozenset({"ns", "us", "ms", "s", "cycles"})
LOWER_IS_BETTER_METRICS = frozenset({"latency", "loss", "retransmits"})


def lower_is_better(row: dict) -> bool:
    return row.get("unit") in LOWER_IS_BETTER_UNITS or row.get("metric") in LOWER_IS_BETTER_METRICS


def is_cpu_use(row: dict) -> bool:
    """A CPU use row (netbench's cpu_sender, cpu_receiver... in %): what a transfer cost, not
    a speed; it rises with the throughput beside it, so neither direction is better."""
    return str(row.get("metric", "")).startswith("cpu_") and row.get("unit") == "%"

# Flags that say the machine was not itself while a row ran; a pair carries them from our
# rows in its rounds (pairs.py). compare does not set a row aside for them alone: only a job
# that differs (JOB_FLAGS below) or a row bimodal in one run only.
NOISY_FLAGS = frozenset({"steal", "contended", "oversubscribed", "bimodal"})

# Flags that record how a point was run, beyond its key (the job): threads time-sharing
# CPUs, unpinned threads, a grown buffer, the pages a buffer got, disk I/O through the page
# cache or on tmpfs, a time-based or capped job, a virtual NIC, UDP GSO. Two runs' rows whose
# job flags differ (one run's only, or another value: buffer_pages=thp and =4k) measured
# different things: compare calls them "not comparable". The same job flags on both sides
# say nothing against comparing them (docs/methodology.md, "Comparing flagged rows").
# Labels of a working set against the caches as read (memory's cached, small_arrays,
# level=, cache_edge=) are not: the working set is in the key.
JOB_FLAGS = frozenset({
    "oversubscribed", "unpinned", "size_grown", "thp_partial", "buffered", "cache_dropped",
    "buffer_pages", "tmpfs", "ramfs", "time_based", "iodepth_capped", "vdev", "udp_gso"})


def job_flags(row: dict) -> frozenset:
    """The row's job flags (JOB_FLAGS) as written, a key=value flag with its value."""
    text = row.get("flags") or ""
    return frozenset(f for f in text.split(";") if f.split("=", 1)[0] in JOB_FLAGS)


# Noise flags that come with the share of CPU the row lost (the key=value flag beside them,
# docs/results-schema.md): compare judges such a row against that share (noise.py) rather
# than setting it aside. steal_pct is the stolen share of busy time; cpu_share_pct what the
# worst worker (dpdk: the lcores) got of its elapsed time.
SHARE_FLAGS = {"steal": "steal_pct", "contended": "cpu_share_pct", "preempted": "cpu_share_pct"}
# Metrics that do not follow the CPU time a row got (a count of lost or resent packets goes
# from 0 to anything when a receiver is descheduled): no share bounds them.
NOT_CPU_BOUND_METRICS = frozenset({"loss", "retransmits", "errors"})

# Flags that keep a row from standing for its group where one figure is shown (the report's
# summary and best-efficiency cells, efficiency.png, roofline.png: pick.py): its threads
# shared cores, another process or the hypervisor took its CPU, its peak or measurement is
# wrong, or its result was not checked.
DOUBT_FLAGS = ("oversubscribed", "contended", "preempted", "steal", "above_peak", "unverified")

# Context keys whose difference makes two runs different machines or setups; listed
# first by compare, and a difference in the first group makes rows not comparable.
MACHINE_KEYS = ("cpu.model", "cpu.family", "cpu.model_number", "os.kernel")
SETUP_KEYS = (
    "cpu.allowed", "hypervisor", "governor", "thp", "clocksource", "build.compiler",
    "build.cflags", "peak.uarch", "openblas.corename", "openblas.config",
    "mem.total_bytes", "c2c.round_trip_ns",
)


def isnum(x) -> bool:
    """A cell holding a number (JSON's true and false are no figure)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def flags_of(row: dict) -> set[str]:
    """The row's flags as a set of names (a "key=value" flag counts by its key)."""
    text = row.get("flags") or ""
    return {f.split("=", 1)[0] for f in text.split(";") if f}


def row_key(row: dict) -> tuple:
    """The identifying fields of a row, with missing values as None."""
    return tuple(row.get(k) for k in KEY)


def hosts_of(row: dict) -> tuple[str, str]:
    """(host, peer) of a row; ("", "") for a row without them."""
    return (row.get("host") or "", row.get("peer") or "")
