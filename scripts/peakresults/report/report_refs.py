"""The reference tools in the report: one verdict per compared figure (ratio ours / tool, in
band or its measured cause), from the paired rounds of pairs.py (docs/methodology.md,
"Reference tools") when they ran, else from the baseline rows joined on their key. report.md
names each job in a few words; the full command lines go to the appendix (and
commands.txt). A paired ratio is judged by its interval: one round is shown, not judged; a
median outside 0.90-1.10 whose interval (with fewer than 6 rounds, the rounds' range)
reaches into the band is not decided; only one whose interval lies outside the band, with
no measured cause, is "unexplained" and listed under the report's warnings."""
from ..core import schema
from ..pairs import pairs
from ..pairs.pairs import MOVED_FACTOR
from .report_fmt import cell, fmt, human, isnum

BAND = pairs.BAND
BAND_TEXT = f"{BAND[0]:.2f}-{BAND[1]:.2f}"  # "0.90-1.10"

WRITE_LAYOUTS = [
    "Disk writes come in two layouts, each against its own fio job: **seq_write** overwrites a file",
    "already laid out (fio `--overwrite=1`), **seq_write_new** is the first write into a newly",
    "allocated file (fio's plain `--rw=write` on a new file, whose blocks are allocated but unwritten).",
    "On a virtual or thin-provisioned disk the first write is slower; compare each with its own row.",
]


def placement_note(out_dir: str = "") -> list[str]:
    """Why some rounds of a placement-matched job are left out, with the run's threshold
    (pairs.calibration: from the fingerprints taken at the start, else the fixed one)."""
    limit = pairs.calibration(out_dir)[1] if out_dir else f"{MOVED_FACTOR:g}x"
    return ["A figure spanning two CPUs (two memory threads, a loopback client and server) runs as fast as",
            "where the host put the vCPUs. Such a job's rounds count only when both sides ran in one placement:",
            "run_all.sh took the VM placement fingerprint (core-to-core round trips) before and after each side,",
            f"and a round where it changed by more than the run's threshold is left out (\"moved\"; its ratio",
            f"stays in pairs.csv). Threshold: {limit}. \"none matched\": no round ran in one placement,",
            "so all count."]


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


def short_job(r: dict) -> str:
    """A compared figure in a few words: "seq_read psync 1 MiB 1t", "linpack dgesv 2t",
    "rand_read uring-qd32 4 KiB 1t iops"; the metric only when the test does not say it."""
    test, variant, metric = r.get("test") or "", r.get("variant") or "", r.get("metric") or ""
    words = [test]
    if variant and not test.startswith(variant):
        words.append(variant)
    if r.get("block_bytes"):
        words.append(human(r["block_bytes"]))
    if r.get("threads") is not None:
        words.append(f"{r['threads']}t")
    if metric and metric not in test and metric not in ("throughput", "flops"):
        words.append(metric)
    return " ".join(words) + (" (our best)" if r.get("kind") == "best" else "")


def ratio_txt(x) -> str:
    """A ratio to two decimals; three when two would put a ratio outside the band on its
    edge (0.896 is not "0.90", in band)."""
    if not isnum(x):
        return "–"
    two = f"{x:.2f}"
    return f"{x:.3f}" if outside(x) and not outside(float(two)) else two


def _value(x, unit) -> str:
    return f"{fmt(x)} {unit}" if isnum(x) else "–"


def pairs_cell(p: dict) -> str:
    """The Pairs column: the pairs counted, and those left out because the host moved the
    vCPUs during the round (pairs.py, placement-matched jobs)."""
    n = str(p.get("n_pairs", 0))
    for flag in (p.get("flags") or "").split(";"):
        if flag == "pairs_wide":
            n += " (wide)"
        if flag.startswith("placement_moved="):
            n += f" (+{flag.split('=', 1)[1]} moved)"
        elif flag == "placement_unmatched":
            n += " (none matched)"
        elif flag.startswith("failed_rounds="):
            n += f" ({flag.split('=', 1)[1]} failed)"
    return n


def _verdict(ratio, cause: str, none: str, differs: bool = False) -> str:
    """DIFFERS: the traced round or the hot loops showed another job (the cause says how):
    whatever the ratio, the pair is not like for like."""
    if differs:
        return f"not the same job: {cause}"
    if not isnum(ratio):
        return none
    if outside(ratio):
        return cause or "unexplained"
    return "in band"


# Tools whose figure is a library routine where ours is the unit's peak kernel: oneDNN's
# matmul (peak_ref_gemm) moves its operands through the caches and packs them, cpubench's
# dot-product row keeps them in registers. Never the same job, whatever the ratio; the
# verdict says what the run measured of each: its share of the row's peak.
LIBRARY_GEMM_TOOLS = frozenset({"oneDNN"})
SINGLE_ROUND = "one round: not judged"


def _interval(p: dict) -> tuple | None:
    """The record's interval of the median ratio: its 95% interval (6 rounds or more),
    else the rounds' range (2 to 5 rounds); None for one round."""
    if isnum(p.get("ratio_ci_low")) and isnum(p.get("ratio_ci_high")):
        return p["ratio_ci_low"], p["ratio_ci_high"]
    if (p.get("n_pairs") or 0) >= 2 and isnum(p.get("ratio_min")) and isnum(p.get("ratio_max")):
        return p["ratio_min"], p["ratio_max"]
    return None


def _library_words(p: dict, peaks: dict) -> str:
    """Why a peak kernel against a library GEMM is not the same job, with each side's share
    of the row's peak as this run measured them (PEAKS: row key -> theoretical)."""
    words = (f"our peak kernel keeps its operands in registers, {p.get('tool')}'s GEMM moves them "
             "through the caches and packs them")
    peak = peaks.get(tuple(p.get(k) for k in schema.KEY))
    if isnum(peak) and peak > 0 and isnum(p.get("ours_median")) and isnum(p.get("tool_median")):
        words += (f": ours {p['ours_median'] / peak:.2f} of the row's peak ({fmt(peak)} {p.get('unit', '')}), "
                  f"{p.get('tool')}'s {p['tool_median'] / peak:.2f}")
    return words


def pair_judgement(p: dict, peaks: dict | None = None) -> tuple[str, bool]:
    """(verdict, unexplained) of a paired record (pairs.py): the verdict words and whether
    it is an alarm, by its interval (the module's rule)."""
    rm, cause = p.get("ratio_median"), p.get("cause") or ""
    flags = set((p.get("flags") or "").split(";"))
    if flags & {"trace_differs", "mix_differs"}:
        return _verdict(rm, cause, "", differs=True), False
    if p.get("tool") in LIBRARY_GEMM_TOOLS and isnum(rm):
        return f"not the same job: {_library_words(p, peaks or {})}", False
    if not isnum(rm):
        return "no complete round", False
    if not outside(rm):
        return ("in band" if _interval(p) else SINGLE_ROUND), False
    if cause:
        return cause, False
    iv = _interval(p)
    if iv is None:
        return SINGLE_ROUND, False
    if iv[0] <= BAND[1] and iv[1] >= BAND[0]:  # the interval reaches into the band
        return f"not decided: its interval {ratio_txt(iv[0])}-{ratio_txt(iv[1])} reaches {BAND_TEXT}", False
    return "unexplained", True


def _pair_ratio(p: dict) -> str:
    """The summary's ratio: the median, with its interval when pairs.py has one (6 pairs or
    more), and the count when a single pair is all there is."""
    rm = p.get("ratio_median")
    txt = ratio_txt(rm)
    if not isnum(rm):
        return txt
    if p.get("n_pairs") == 1:
        return f"{txt} (1 pair)"
    if isnum(p.get("ratio_ci_low")) and isnum(p.get("ratio_ci_high")):
        wide = ", wide" if "pairs_wide" in (p.get("flags") or "").split(";") else ""
        return f"{txt} [{ratio_txt(p['ratio_ci_low'])}-{ratio_txt(p['ratio_ci_high'])}{wide}]"
    return txt


def _tool_version(v: dict) -> str:
    """"fio-3.33", "hpcc 1.5.0", "iperf3 iperf 3.12": the version string names the tool or follows it."""
    ver = (v.get("version") or "").strip()
    return ver if ver.startswith(v["tool"]) else f"{v['tool']} {ver}".strip()


def row_peaks(rows: list[dict]) -> dict:
    """{row key: theoretical} of the rows that have a peak (a pair's row's peak)."""
    return {schema.row_key(r): r["theoretical"] for r in rows if isnum(r.get("theoretical"))}


def pair_verdicts(recs: list[dict], rows: list[dict] | None = None) -> list[dict]:
    """One verdict per paired record, in pairs.py's order; ROWS: the run's rows (a pair
    against a library GEMM names each side's share of its row's peak)."""
    out, peaks = [], row_peaks(rows or [])
    for p in recs:
        rm, unit = p.get("ratio_median"), p.get("unit", "")
        verdict, alarm = pair_judgement(p, peaks)
        ref = (f"{p.get('tool')} {p.get('tool_version', '')}: {p.get('suite')} {p.get('test')} ({p.get('variant')}) "
               f"{p.get('metric')} {p.get('threads')}t {human(p.get('block_bytes'))} [{p.get('kind', '')}]")
        out.append({"ratio": rm, "tool": p.get("tool", ""), "version": p.get("tool_version", ""),
                    "job": short_job(p), "ours": _value(p.get("ours_median"), unit),
                    "theirs": _value(p.get("tool_median"), unit), "pairs": pairs_cell(p),
                    "range": f"{ratio_txt(rm)} [{ratio_txt(p.get('ratio_min'))}-{ratio_txt(p.get('ratio_max'))}]"
                    if isnum(rm) else "–",
                    "verdict": verdict, "ratio_txt": _pair_ratio(p),
                    "unexplained": alarm, "single": verdict == SINGLE_ROUND,
                    "undecided": verdict.startswith("not decided"), "ref": ref,
                    "ours_job": p.get("ours_job", ""), "tool_job": p.get("tool_job", ""),
                    "placement": "placement_" in (p.get("flags") or "")})
    return out


def _ratio(ours: dict, br: dict):
    ok = isnum(ours.get("mean")) and isnum(br.get("mean")) and br["mean"] > 0
    return ours["mean"] / br["mean"] if ok else None


def join_verdicts(matches: list) -> list[dict]:
    """One verdict per (peakbench row, joined reference row): no measured cause exists for
    these, so a ratio outside the band is unexplained."""
    out = []
    for ours, br in matches:
        ratio = _ratio(ours, br)
        blk = f" {human(ours['block_bytes'])}" if ours.get("block_bytes") else ""
        out.append({"ratio": ratio, "tool": br["tool"], "version": br.get("tool_version", ""), "job": short_job(ours),
                    "ours": _value(ours.get("mean"), ours["unit"]), "theirs": _value(br.get("mean"), br["unit"]),
                    "pairs": "–", "range": ratio_txt(ratio), "verdict": _verdict(ratio, "", "–"),
                    "unexplained": outside(ratio),
                    "ref": f"{br['tool']}: {ours['suite']} {ours['test']} ({ours['variant']}) {ours['metric']} "
                           f"{ours['threads']}t{blk}",
                    "ours_job": "", "tool_job": br.get("job", ""), "placement": False,
                    "group": (br["tool"], ours["suite"], ours["test"], ours["variant"], ours.get("threads"),
                              ours.get("block_bytes"))})
    return out


def summary_lines(verdicts: list[dict]) -> list[str]:
    """The summary's verdicts, ratio first, one line per compared job: of the joined rows
    (no paired rounds) only each job's first metric (its throughput before its latency)."""
    if not verdicts:
        return ["No reference tool was compared (--no-baselines, none installed, or none ran)."]
    seen, out = set(), ["| Ratio | Tool | Job | Ours | Tool's | Verdict |", "| ---: | --- | --- | ---: | ---: | --- |"]
    for v in verdicts:
        if v.get("group") in seen:
            continue
        if v.get("group"):
            seen.add(v["group"])
        out.append(f"| {v.get('ratio_txt') or ratio_txt(v['ratio'])} | {v['tool']} | {cell(v['job'])} | {v['ours']} | {v['theirs']} | "
                   f"{cell(v['verdict'])} |")
    return out


def interval_words(verdicts: list[dict]) -> str:
    """", their interval too" when the verdicts are the paired rounds' (judged by their
    interval), "" for joined rows (one run each side: no interval)."""
    return ", their interval too," if any("single" in v for v in verdicts) else ""


def judged_notes(verdicts: list[dict]) -> list[str]:
    """Under the summary's table: the ratios shown and not judged (one round each) and those
    outside the band whose interval reaches into it (not decided), counted; [] when none."""
    single = sum(1 for v in verdicts if v.get("single"))
    undecided = sum(1 for v in verdicts if v.get("undecided"))
    out = []
    if single:
        out.append(f"{single} of {len(verdicts)} ratios come from one paired round each: shown, not judged "
                   "(one round on a shared host says little; the full protocol runs 6 or more).")
    if undecided:
        out.append(f"{undecided} ratio(s) outside {BAND_TEXT} whose interval reaches into it: not decided, "
                   "no alarm (more rounds would tell).")
    return [""] + out if out else []


def pairs_section(recs: list[dict], unexplained: list[str], out_dir: str = "",
                  rows: list[dict] | None = None) -> list[str]:
    """report.md's table of the paired rounds, ratio first: the rounds' spread and count (each
    verdict, with its cause, is the summary's; the commands are the appendix's)."""
    vs = pair_verdicts(recs, rows)
    unexplained += [v["ref"] for v in vs if v["unexplained"]]
    out = ["| Ratio median [min-max] | Tool | Job | Ours median | Tool median | Pairs |",
           "| ---: | --- | --- | ---: | ---: | ---: |"]
    out += [f"| {v['range']} | {cell(_tool_version(v))} | {cell(v['job'])} | {v['ours']} | "
            f"{v['theirs']} | {v['pairs']} |" for v in vs]
    if any(v["placement"] for v in vs):
        out += [""] + placement_note(out_dir)
    return out


def joined_section(matches: list, unexplained: list[str]) -> list[str]:
    """report.md's table of the joined rows when no paired rounds ran, ratio first."""
    vs = join_verdicts(matches)
    unexplained += [v["ref"] for v in vs if v["unexplained"]]
    out = ["| Ratio | Tool | Job | Ours | Tool's | Verdict |", "| ---: | --- | --- | ---: | ---: | --- |"]
    out += [f"| {ratio_txt(v['ratio'])} | {v['tool']} | {cell(v['job'])} | {v['ours']} | {v['theirs']} | "
            f"{cell(v['verdict'])} |" for v in vs]
    return out


def commands_section(recs: list[dict], matches: list, unmatched: list) -> list[str]:
    """The appendix: each compared job's full command lines (ours and the tool's)."""
    out = []
    if recs:
        out += ["Paired jobs (ours and the tool's command of each figure; every round's command is in "
                "[commands.txt](commands.txt)):", ""]
        for v in pair_verdicts(recs):
            out += [f"- {v['tool']} {cell(v['job'])}:", f"  - ours: `{v['ours_job']}`", f"  - tool: `{v['tool_job']}`"]
        out.append("")
    if matches or unmatched:
        out += ["Reference rows over the sweep's points, each joined to the peakbench row of the same key "
                "(suite, test, variant, threads, block size, metric, unit)" +
                (": taken minutes away from ours, so no ratio is given for them (the paired rounds are the "
                 "comparison)." if recs else "."), ""]
        out += baseline_section(matches, unmatched, [], ratios=not recs)
    return out


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
    out += unmatched_lines(unmatched)
    return out


def unmatched_lines(unmatched: list) -> list[str]:
    return [f"| {br['tool']} | {cell(br.get('job', ''))} | {br.get('threads') if br.get('threads') is not None else '–'} | "
            f"{human(br.get('block_bytes'))} | {fmt(br.get('mean'))} {br['unit']} | not measured by peakbench "
            f"({br['suite']} {br['test']} {br['variant']} {br['metric']}) | – | – | {cell(br.get('config') or '')} |"
            for br in unmatched]


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
