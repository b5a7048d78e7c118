"""report.md's Warnings section: every flag the rows carry, counted, with what it means
(a flag with a reason, such as unsupported, once, its reasons listed; probe_short in the
words of what this run measured: report_causes), the rows above their peak by the cause
cpubench found and those it corrected, the reference ratios with no measured cause, and
the raw files that could not be used."""
from . import report_causes, report_refs
from .report_fmt import FLAG_MEANING, cell, flag_name, warnings

NO_MEANING = "(no description: see the suite's docs)"


def _meaning(flag: str, reasons: dict, rows: list[dict], context: dict) -> str:
    if flag == "probe_short":
        return report_causes.probe_short_meaning(rows, context)
    text = FLAG_MEANING.get(flag, NO_MEANING)
    if reasons:
        text += ": " + "; ".join(f"{why} ({n})" for why, n in reasons.items())
    return text


def flag_table(rows: list[dict], context: dict) -> list[str]:
    """One line per flag in the order first met: rows, suites, meaning."""
    cnt: dict = {}
    where: dict = {}
    reasons: dict = {}
    for r in rows:
        for w in warnings(r.get("flags")):
            f = flag_name(w)
            if f not in cnt:
                cnt[f], where[f], reasons[f] = 0, [], {}
            cnt[f] += 1
            if r["suite"] not in where[f]:
                where[f].append(r["suite"])
            if w != f:
                why = w.split(":", 1)[1].strip()
                reasons[f][why] = reasons[f].get(why, 0) + 1
    if not cnt:
        return ["No row carries a warning flag."]
    return (["| Flag | Rows | Suites | Meaning |", "| --- | ---: | --- | --- |"]
            + [f"| {f} | {n} | {', '.join(where[f])} | {cell(_meaning(f, reasons[f], rows, context))} |"
               for f, n in cnt.items()])


def section(all_rows: list[dict], unexplained: list[str], problems: list[str], context: dict | None = None,
            verdicts: list[dict] | None = None) -> list[str]:
    """The section; ALL_ROWS: the suites' rows and the reference tools' (suite "baseline");
    VERDICTS: report_refs' (whether the ratios were judged by an interval)."""
    out = ["", "## Warnings", ""] + flag_table(all_rows, context or {})
    above = report_causes.above_peak_lines(all_rows)
    if above:
        out += ["", "Rows above their theoretical peak, by the input cpubench found to disagree with its own "
                    "measurement (the row's `cause=` flag, docs/results-schema.md):", ""] + above
    fixed = report_causes.corrected_lines(all_rows)
    if fixed:
        out += ["", "Peaks whose input cpubench measured wrong and corrected before reporting (no alarm):", ""] + fixed
    if unexplained:
        out += ["", f"Reference ratios outside {report_refs.BAND_TEXT}{report_refs.interval_words(verdicts or [])} "
                    "with no measured cause (unexplained):", ""]
        out += [f"- {u}" for u in unexplained]
    if problems:
        out += ["", "Raw files the results program could not use:", ""] + [f"- {p}" for p in problems]
    return out
