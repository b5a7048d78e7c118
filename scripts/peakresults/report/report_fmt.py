"""Number, size and flag wording shared by the report's modules (as report.sh printed them)."""
from ..core.schema import isnum

FLAG_MEANING = {
    "steal": "the hypervisor took CPU time from this VM during the measurement (steal time): figures are low and noisy",
    "oversubscribed": "more threads than allowed CPUs: threads time-share cores, so per-thread figures fall",
    "contended": "another process used our CPUs during the run (wall time > CPU time): the figure is low",
    "unpinned": "threads could not be pinned to CPUs (affinity refused): the scheduler moved them",
    "cached": "the working set fits in a CPU cache (or the page cache): this is not a DRAM / device figure",
    "small_arrays": "STREAM arrays smaller than 4x the last-level cache: not a DRAM figure",
    "above_peak": "above the theoretical peak: an input of the peak (clock, unit count, work per instruction, "
                  "cores) or the measurement is wrong; cpubench's cause= flag names the input it found to disagree "
                  "with its own measurement (listed below the table)",
    "clock_corrected": "cpubench found the row's clock below the imul-anchored clock (its cause= flag) and took "
                       "its peak again at the anchor: no alarm unless the row is still above its peak",
    "clock_refused": "the clock under the row's class was refused (its check failed: the context's "
                     "cpu.clock_ghz.LOAD says why); the row's peak stands at the scalar imul clock",
    "unsupported": "the ISA or feature is not available here: not measured; the reason follows",
    "no_knee": "a sustained run with one level over its length: no burst seen, or a burst longer than the run",
    "udp_gso": "UDP sent with generic segmentation offload (UDP_SEGMENT): one send call for many datagrams",
    "zero": "a zero rate or latency: the measurement is not physical",
    "unverified": "the data written was not read back and checked (use --verify)",
    "buffered": "O_DIRECT was not possible for this block size: buffered I/O",
    "cache_dropped": "the file pages were dropped from the page cache before each repetition (posix_fadvise)",
    "tmpfs": "the test directory is on tmpfs: this measures memory, not a disk",
    "time_based": "repetitions ran for a fixed time rather than one pass over the file",
    "iodepth_capped": "the requested queue depth was capped (more I/Os in flight than the engine allows)",
    "size_grown": "the buffer was grown so every thread holds at least two blocks",
    "thp_partial": "transparent huge pages covered only part of the buffer",
    "no_peak": "no theoretical peak is known for this row",
    "table_corrected": "the peak uses a unit count the probe measured in place of the micro-architecture table's "
                       "(the Machine section's peaks list both)",
    "probe_short": "the probe's loop, timed beside the kernel, ran the row's class below the count the peak uses "
                   "(the Warnings section says what it reached and what else was measured then)",
    "vdev": "DPDK ran on a virtual device (net_ring / memif), not a NIC: no wire, no PHY limit",
    "same_run_as_dgesv": "the same linpack solve, compared with another theoretical peak",
    "comparison": "a comparison row: its theoretical is another peak than its own (by design), its efficiency a "
                  "ratio to it, never an alarm",
    "fma": "the peak counts fused multiply-add as two operations",
    "chains_disagree": "the integer and floating-point frequency chains disagree by more than 5%",
    "single_process": "the tool ran one process (one thread for STREAM)",
    "star_x_procs": "hpcc StarSTREAM per-process figure multiplied by the number of processes",
    "half_rtt_doubled": "sockperf printed half the round trip; doubled to a round trip",
    "fsync": "fsync is inside the timing",
    "above_link": "MPI bandwidth above the link speed (sysfs or net.gbps): the link's speed or the measurement is wrong",
    "above_copy": "shared-memory MPI bandwidth above twice one core's copy rate at that size: not physical",
    "below_tcp": "MPI's 8 B latency under half TCP's fastest round trip on the same pair over a TCP transport: "
                 "implausible, the timing or the transport is not what it seems",
    "intra_node": "both MPI ranks on one node: shared memory, not a network",
    "bimodal": "the pooled repetitions of both passes fall in two groups (modes=A|B): the machine changed state between them",
}

# Whose figure a metric is: a row's label says it (client/server, sender/receiver).
METRIC_LABEL = {
    "cpu_sender": "CPU use, sender (client)",
    "cpu_receiver": "CPU use, receiver (server)",
    "transaction_rate": "transactions per second",
    "throughput_conn": "throughput of one connection",
}


def fmt(x) -> str:
    if not isnum(x):
        return "–"
    a = abs(x)
    if a >= 1000:
        return f"{x:.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 10:
        return f"{x:.2f}"
    if a >= 1:
        return f"{x:.3f}"
    if a == 0:
        return "0"
    return f"{x:.3g}"


def human(b) -> str:
    if b is None or b == "":
        return "–"
    b = int(b)
    g, m = 1 << 30, 1 << 20
    if b >= g:
        return f"{b // g} GiB" if b % g == 0 else f"{b / g:.1f} GiB"
    if b >= m:
        return f"{b // m} MiB" if b % m == 0 else f"{b / m:.1f} MiB"
    if b >= 1024 and b % 1024 == 0:
        return f"{b // 1024} KiB"
    if b >= 65536:
        return f"{b / 1024:.1f} KiB"
    return f"{b} B"


# Flags whose reason follows them and is the rest of the cell, whatever it holds (a reason
# may hold a semicolon: "unsupported: no 64-bit lane multiply below AVX-512DQ (vpmullq);
# see avx512_i64_mul"); libpeak writes them last.
REASON_FLAGS = ("skipped", "failed", "unsupported")


def warnings(flags) -> list[str]:
    """The warning words of a flags cell: bare words (key=value pairs are notes); a
    skipped:/failed:/unsupported: flag and its reason, the rest of the cell, one item."""
    out = []
    items = (flags or "").split(";")
    for i, w in enumerate(items):
        if w.startswith(tuple(f + ":" for f in REASON_FLAGS)):
            if w.startswith("unsupported:"):
                out.append(";".join(items[i:]))
            break
        if w and "=" not in w:
            out.append(w)
    return out


def flag_name(warning: str) -> str:
    """A warning's flag: "unsupported" of "unsupported: REASON", the word itself otherwise."""
    head = warning.split(":", 1)[0]
    return head if head in REASON_FLAGS and ":" in warning else warning


def cell(s) -> str:
    """A Markdown table cell: no pipe or newline breaks the table."""
    return str(s).replace("|", "/").replace("\n", " ")


def value(r: dict) -> str:
    if not r.get("n") or r.get("mean") is None:
        return "not measured"
    sd = r.get("stddev") if r.get("stddev") is not None else 0
    return f"{fmt(r['mean'])} ± {fmt(sd)} {r['unit']} ({r['n']})"


def eff(r: dict) -> str:
    return f"{r['efficiency'] * 100:.1f}%" if isnum(r.get("efficiency")) else "–"


def workload(r: dict) -> str:
    """The row's name in the tables; a metric that says whose figure it is named too."""
    w = r["test"] + (f" ({r['variant']})" if r.get("variant") else "")
    lbl = METRIC_LABEL.get(r.get("metric"))
    return f"{w}: {lbl}" if lbl else w
