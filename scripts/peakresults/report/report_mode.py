"""The run's mode (full, --quick, --tiny) and what a shortened run left out, so that the
report's summary says which figures are not the full protocol's: OUT/plan.json when the plan
wrote one (its "mode" and "shortened"), else read from OUT/commands.txt and compared with the
plans of plan.py (results folders written before plan.json)."""
import json
import os
import re
import shlex

from ..plan import plan

MODES = ("full", "quick", "tiny")
# Steps whose arguments say how much a run measured (OUT/commands.txt "<output>: <command>").
# The levels' L1-L3 sizes follow the machine's caches, not the mode: left out.
SIZED_STEPS = (("cpu-cpubench", "cpu", "cpubench"), ("cpu-linpack", "cpu", "linpack"),
               ("memory-membench", "memory", "membench"), ("levels-DRAM", "memory", "DRAM bandwidth"),
               ("disk-diskbench", "disk", "diskbench"), ("network-netbench", "network", "netbench"),
               ("dpdk-dpdkbench", "dpdk", "net_ring"), ("dpdk-memif", "dpdk", "memif pair"),
               ("dpdk-memif-rate", "dpdk", "memif latency"), ("network-udpframes", "dpdk", "kernel udp"))
# Options that name places or are said once for every step (threads, repetitions).
NOT_COMPARED = frozenset({"--reps", "--dir", "--raw", "--out", "--build-dir", "--buffer-dir",
                          "--file-prefix", "--quiet", "--threads", "--min-time"})


def read_commands(out: str) -> tuple[list[str], dict]:
    """(header lines without '# ', {output name: argv}) of OUT/commands.txt; ([], {}) without it."""
    head, steps = [], {}
    try:
        with open(os.path.join(out, "commands.txt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return head, steps
    for ln in lines:
        if ln.startswith("# "):
            head.append(ln[2:])
            continue
        name, sep, cmd = ln.partition(": ")
        if sep:
            try:
                steps[name] = shlex.split(cmd)
            except ValueError:  # an unbalanced quote: the words as they are
                steps[name] = cmd.split()
    return head, steps


def plan_doc(out: str) -> dict:
    """OUT/plan.json ({} when absent or unreadable)."""
    try:
        with open(os.path.join(out, "plan.json"), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def run_mode(out: str) -> str:
    """"full", "quick", "tiny" or "" (unknown). plan.json's "mode"; else commands.txt's
    "# mode: M" header; else the --mode the baseline, pair and cluster scripts got; else a
    second pass (only the full protocol runs one); else the one mode whose plan has the
    run's sizes (a --no-baselines run); else ""."""
    if plan_doc(out).get("mode") in MODES:
        return plan_doc(out)["mode"]
    head, steps = read_commands(out)
    for h in head:
        m = re.fullmatch(r"mode:\s*(\w+)", h.strip())
        if m and m.group(1) in MODES:
            return m.group(1)
    for argv in steps.values():
        for i, a in enumerate(argv[:-1]):
            if a == "--mode" and argv[i + 1] in MODES:
                return argv[i + 1]
    if any(name.endswith(".pass2") for name in steps):
        return "full"
    raw = os.path.join(out, "raw")
    if os.path.isdir(raw) and any(n.endswith(".pass2.json") for n in os.listdir(raw)):
        return "full"
    fits = [m for m in MODES if steps and not differences(steps, full_plan(out, m))]
    return fits[0] if len(fits) == 1 else ""


def differences(steps: dict, planned: dict) -> dict:
    """{step: [options whose values differ]} of the sized steps both hold."""
    out = {}
    for name, _, _ in SIZED_STEPS:
        if name in steps and name in planned:
            a, b = options(steps[name]), options(planned[name])
            diff = [k for k in dict.fromkeys(list(a) + list(b)) if k not in NOT_COMPARED and a.get(k) != b.get(k)]
            if diff:
                out[name] = diff
    return out if any(n in planned for n in steps) else {"": ["no step in common"]}


def options(argv: list[str]) -> dict:
    """{--option: value} of a command line ("" for a flag without a value)."""
    out = {}
    for i, a in enumerate(argv):
        if a.startswith("--") and "=" not in a:
            nxt = argv[i + 1] if i + 1 < len(argv) else ""
            out[a] = "" if nxt.startswith("-") else nxt
    return out


def full_plan(out: str, mode: str = "full") -> dict:
    """{output name: argv} of the suite steps of MODE's plan (no reference tools: their
    steps depend on the tools installed where the report is written); {} when the plan
    cannot be built here."""
    try:
        o = plan.parse_options(["--out", out, "--no-build", "--no-baselines"]
                               + ([f"--{mode}"] if mode != "full" else []))
        return {s.outf: s.argv for s in plan.build_plan(o)}
    except Exception:  # noqa: BLE001 - the report stands without this one line
        return {}


def rounds_per_job() -> tuple:
    """(ROUNDS, ROUNDS_MATCHED) of the plan: paired rounds per job by mode ({} when the plan
    program keeps them elsewhere)."""
    import importlib
    for name in ("plan_pairs", "plan"):
        try:
            mod = importlib.import_module(f"{__package__}.{name}")
        except ImportError:
            continue
        if hasattr(mod, "ROUNDS") and hasattr(mod, "ROUNDS_MATCHED"):
            return mod.ROUNDS, mod.ROUNDS_MATCHED
    return {}, {}


def _words(opts: dict, keys: list[str]) -> str:
    return " ".join(f"{k} {opts[k]}".strip() for k in keys if k in opts) or "not set"


def shortened(out: str, mode: str) -> list[str]:
    """Lines (Markdown list items) naming what this run measured less of than the full
    protocol: threads, repetition time, passes, paired rounds; then per suite, each step's
    options that differ from the full plan's."""
    if mode not in ("quick", "tiny"):
        return []
    said = plan_doc(out).get("shortened")
    if isinstance(said, list) and said and all(isinstance(x, str) for x in said):
        return ["- " + "; ".join(said)]
    _, steps = read_commands(out)
    full = full_plan(out)
    lines = []
    ran = options(steps.get("cpu-cpubench") or steps.get("memory-membench") or [])
    whole = options(full.get("cpu-cpubench") or full.get("memory-membench") or [])
    common = []
    if ran.get("--threads") and ran.get("--threads") != whole.get("--threads"):
        common.append(f"threads {ran['--threads']} (full: {whole.get('--threads', '1,2,4,8')})")
    if ran.get("--min-time"):
        common.append(f"repetitions of {ran['--min-time']} s (full: each suite's own minimum)")
    common.append("one pass (full: a second pass at the end of the run, so a point's repetitions "
                  "are minutes apart)")
    rounds, matched = rounds_per_job()
    if mode in rounds and "full" in rounds:
        common.append(f"{rounds[mode]} paired round(s) per reference job (full: {rounds['full']}"
                      + (f", {matched['full']} when placement-matched)" if "full" in matched else ")"))
    lines.append("- " + "; ".join(common))
    by_suite: dict = {}
    diffs = differences(steps, full)
    for name, suite, label in SIZED_STEPS:
        if name in diffs:
            a, b = options(steps[name]), options(full[name])
            by_suite.setdefault(suite, []).append(f"{label} {_words(a, diffs[name])} (full: {_words(b, diffs[name])})")
    lines += [f"- {suite}: " + "; ".join(parts) for suite, parts in by_suite.items()]
    return lines
