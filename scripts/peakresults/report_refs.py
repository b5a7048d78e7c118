"""The report's "Reference tools" section: the paired rounds of pairs.py
(docs/methodology.md, "Reference tools") when they ran; else the joined baseline rows with
their peakbench / tool ratio. A ratio outside 0.90-1.10 without a measured cause is
"unexplained" and listed under the report's warnings."""
from . import pairs
from .pairs import MOVED_FACTOR
from .report_fmt import cell, fmt, human, isnum

BAND = (0.90, 1.10)

WRITE_LAYOUTS = [
    "Disk writes come in two layouts, each against its own fio job: **seq_write** overwrites a file",
    "already laid out (fio `--overwrite=1`), **seq_write_new** is the first write into a newly",
    "allocated file (fio's plain `--rw=write` on a new file, whose blocks are allocated but unwritten).",
    "On a virtual or thin-provisioned disk the first write is slower; compare each with its own row.",
]


def load_pairs(out: str, problems: list | None = None) -> list[dict]:
    """pairs.load_pairs(out), [] when the records are unreadable
    (then one line in problems, listed under the report's warnings)."""
    try:
        return list(pairs.load_pairs(out) or [])
    except (OSError, ValueError, KeyError, TypeError) as e:
        if problems is not None:
            problems.append(f"raw/pairs: paired rounds not readable ({e})")
        return []


def outside(ratio) -> bool:
    return isnum(ratio) and not BAND[0] <= ratio <= BAND[1]


def pairs_section(pairs: list[dict], unexplained: list[str]) -> list[str]:
    out = ["| Reference | Job (ours / tool) | Ours median | Tool median | Ratio median [min-max] | Pairs | Cause |",
           "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for p in pairs:
        ref = (f"{p.get('tool')} {p.get('tool_version', '')}: {p['suite']} {p['test']} ({p['variant']}) "
               f"{p['metric']} {p.get('threads')}t {human(p.get('block_bytes'))} [{p.get('kind', '')}]")
        rm = p.get("ratio_median")
        cause = p.get("cause") or ""
        if outside(rm) and not cause:
            cause = "unexplained"
            unexplained.append(ref)
        rng = f"{fmt(rm)} [{fmt(p.get('ratio_min'))}-{fmt(p.get('ratio_max'))}]" if isnum(rm) else "–"
        out.append(f"| {cell(ref)} | {cell(p.get('ours_job', ''))} / {cell(p.get('tool_job', ''))} | "
                   f"{fmt(p.get('ours_median'))} {p.get('unit', '')} | {fmt(p.get('tool_median'))} {p.get('unit', '')} | "
                   f"{rng} | {pairs_cell(p)} | {cell(cause)} |")
    if any("placement_" in (p.get("flags") or "") for p in pairs):
        out += ["", "A figure spanning two CPUs (two memory threads, a loopback client and server) runs as fast as",
                "where the host put the vCPUs. Such a job's rounds count only when both sides ran in one placement:",
                "run_all.sh took the VM placement fingerprint (core-to-core round trips) before and after each side,",
                f"and a round where it changed by more than {MOVED_FACTOR:g}x is left out (\"moved\"; its ratio stays in",
                "pairs.csv). \"none matched\": no round ran in one placement, so all count."]
    return out


def pairs_cell(p: dict) -> str:
    """The Pairs column: the pairs counted, and those left out because the host moved the
    vCPUs during the round (pairs.py, placement-matched jobs)."""
    n = str(p.get("n_pairs", 0))
    for flag in (p.get("flags") or "").split(";"):
        if flag.startswith("placement_moved="):
            n += f" (+{flag.split('=', 1)[1]} moved)"
        elif flag == "placement_unmatched":
            n += " (none matched)"
    return n


def baseline_section(matches: list, unmatched: list, unexplained: list[str], ratios: bool = True) -> list[str]:
    """matches: (peakbench row, baseline row); unmatched: baseline rows with no peakbench row.
    ratios=False when paired rounds ran: the sweep's tool figures were taken minutes away
    from ours, on a VM possibly another placement, so their quotient is not a comparison
    (the paired table is) and no ratio is printed for them."""
    out = ["| Tool | Tool job | Concurrency | Block size | Tool value | peakbench row | peakbench value | Ratio | Notes |",
           "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"]
    for ours, br in matches:
        ratio = ours["mean"] / br["mean"] if isnum(ours.get("mean")) and isnum(br.get("mean")) and br["mean"] > 0 else None
        if not ratios:
            ratio = None
        mine = f"{ours['suite']} {ours['test']} ({ours['variant']}) {ours['metric']}"
        note = "; ".join(x for x in (br.get("config") or "", br.get("flags") or "") if x)
        if outside(ratio):
            note = (note + "; " if note else "") + "unexplained"
            blk = f" {human(ours['block_bytes'])}" if ours.get("block_bytes") else ""
            unexplained.append(f"{br['tool']}: {mine} {ours['threads']}t{blk}")
        out.append(f"| {br['tool']} | {cell(br.get('job', ''))} | {ours['threads'] if ours.get('threads') is not None else '–'} | "
                   f"{human(ours.get('block_bytes'))} | {fmt(br.get('mean'))} {br['unit']} | {cell(mine)} | "
                   f"{fmt(ours.get('mean'))} {ours['unit']} | {f'{ratio * 100:.0f}%' if ratio is not None else '–'} | {cell(note)} |")
    for br in unmatched:
        out.append(f"| {br['tool']} | {cell(br.get('job', ''))} | {br.get('threads') if br.get('threads') is not None else '–'} | "
                   f"{human(br.get('block_bytes'))} | {fmt(br.get('mean'))} {br['unit']} | not measured by peakbench "
                   f"({br['suite']} {br['test']} {br['variant']} {br['metric']}) | – | – | {cell(br.get('config') or '')} |")
    return out


def skipped_lines(skipped: list[dict]) -> list[str]:
    """One line per tool and reason: a tool that is not installed is said once."""
    order, tests = [], {}
    for s in skipped:
        k = (s["tool"], s["reason"])
        if k not in tests:
            order.append(k)
            tests[k] = []
        if s["test"] not in tests[k]:
            tests[k].append(s["test"])
    return [f"- {tool} {', '.join(tests[tool, reason])}: skipped: {reason}" for tool, reason in order]
