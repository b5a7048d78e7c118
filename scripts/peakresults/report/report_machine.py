"""The report's Machine section (report.md) and its Steps, context keys and peaks (the
appendix): context.json, peaks.csv and status.tsv in words."""
import os
import re

from ..core.cache_env import report_row as cache_row
from ..core.cloud_env import report_row as cloud_row
from .report_fmt import cell, fmt


def _v(c, k):
    v = c.get(k)
    if v is None:
        return "unknown"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _ghz(c, k):
    """A clock to four significant digits (context.json keeps every digit measured)."""
    v = c.get(k)
    return fmt(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _v(c, k)


def _size(c, k):
    v = c.get(k)
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return "unknown"
    return f"{round(v / 1048576 * 100) / 100:g} MiB" if v >= 1048576 else f"{v / 1024:g} KiB"


def core_line(c: dict) -> str | None:
    """The core the run believes and why, in one line (cpu.identity, issue 34): a model
    number is a claim, and a masked one is said, with the features and caches that
    contradict it. None when the context names no core, or predates cpu.identity (then
    nothing says why: peak.uarch stays in the appendix's context keys)."""
    uarch, verdict, note = c.get("peak.uarch"), c.get("cpu.identity"), c.get("cpu.identity_note")
    if not uarch or not verdict:
        return None
    src = _v(c, "peak.uarch_source")
    if src == "config":
        chosen = f"{uarch} (cpu.uarch, configured)"
    elif uarch in ("measured", "unknown"):
        chosen = "measured by the probe: no table entry used"
    else:
        chosen = f"{uarch} (table)"
    why = f": {note}" if note else ""
    if verdict == "masked":
        return f"Core: {chosen}. **The model number is masked**{why}."
    if verdict == "consistent":
        return f"Core: {chosen}; the model number is consistent{why}."
    return f"Core: {chosen}; identity {verdict}{why}."


def core_lines(c: dict) -> list[str]:
    """The core line after a blank line (the summary's, below the machine row), or none."""
    line = core_line(c)
    return ["", line] if line else []


def core_row(c: dict) -> str:
    """The Machine section's Core cell: the core line, or for results before cpu.identity
    the entry used, unchecked."""
    line = core_line(c)
    if line:
        return line.removeprefix("Core: ")
    return f"{_v(c, 'peak.uarch')} ({_v(c, 'peak.uarch_source')}); the model number was not checked"


def machine(c: dict, peaks: list[dict] | None = None) -> list[str]:
    """The Machine section of report.md (peaks: unused, the appendix lists them: peaks_table)."""
    out = ["## Machine", ""]
    if c:
        gib = lambda k: f"{round((c.get(k) or 0) / 1073741824 * 10) / 10:g}"  # noqa: E731
        out += ["| | |", "| --- | --- |",
                f"| CPU | {_v(c, 'cpu.model')} (family {_v(c, 'cpu.family')}, model {_v(c, 'cpu.model_number')}) |",
                f"| ISA | {_v(c, 'cpu.isa')} |",
                f"| Core | {cell(core_row(c))} |",
                f"| CPUs | {_v(c, 'cpu.allowed')} allowed of {_v(c, 'cpu.logical')} logical, {_v(c, 'cpu.cores')} cores, "
                f"{_v(c, 'cpu.sockets')} socket(s), {_v(c, 'numa.nodes')} NUMA node(s) |",
                f"| Clock | {_ghz(c, 'cpu.ghz.measured')} GHz measured, {_ghz(c, 'cpu.ghz.nominal')} GHz nominal |",
                f"| Caches | L1d {_size(c, 'cache.l1d')}, L2 {_size(c, 'cache.l2')}, L3 {_size(c, 'cache.l3')} "
                f"(shared by {_v(c, 'cache.l3_shared_by')}) |",
                f"| Memory | {gib('mem.total_bytes')} GiB total, {gib('mem.available_bytes')} GiB available |",
                f"| OS | {_v(c, 'os.kernel')}, hypervisor {_v(c, 'hypervisor')}, clocksource {_v(c, 'clocksource')}, "
                f"governor {_v(c, 'governor')}, THP {_v(c, 'thp')} |",
                f"| Build | {_v(c, 'build.compiler')} {_v(c, 'build.cflags')} ({_v(c, 'build.type')}), git {_v(c, 'git.revision')} |",
                (f"| BLAS | OpenBLAS kernel {_v(c, 'openblas.corename')} ({_v(c, 'openblas.config')}), "
                 f"OPENBLAS_CORETYPE {_v(c, 'openblas.coretype_env')} |" if "openblas.corename" in c
                 else "| BLAS | not read: linpack did not run |"),
                f"| Taken | {_v(c, 'timestamp')} |"]
        if cloud_row(c):  # the provider and instance type (docs/cloud.md)
            out.insert(out.index(next(ln for ln in out if ln.startswith("| OS |"))) + 1, cloud_row(c))
        row = cache_row(c, _size)  # (issue 34: a VM told the host's L3)
        if row:
            out.insert(out.index(next(ln for ln in out if ln.startswith("| Caches |"))) + 1, row)
        if "c2c.end_round_trip_ns" in c:
            moved = ("**the host moved the vCPUs during the run** (a pair changed by over 1.5x): figures taken "
                     "minutes apart ran on different placements") if c.get("c2c.moved") is True else "no move seen"
            out.append(f"| VM placement | core-to-core round trip (min/median ns per CPU pair) {_v(c, 'c2c.round_trip_ns')} "
                       f"at the start, {_v(c, 'c2c.end_round_trip_ns')} at the end: {moved} |")
        if c.get("warnings"):
            out.append(f"| Context warnings | {c['warnings']} |")
    else:
        out.append("No context: peakinfo did not run (see the appendix's Steps).")
    return out + table_corrections(c)


def context_keys(c: dict) -> list[str]:
    """Every context key (the appendix)."""
    if not c:
        return ["No context: peakinfo did not run."]
    return ["| key | value |", "| --- | --- |"] + [f"| {k} | {cell(_v(c, k))} |" for k in c]


def peaks_table(peaks: list[dict]) -> list[str]:
    """The theoretical peaks and where each came from."""
    out = []
    if peaks:
        out += ["| Subsystem | Item | Peak | Source | How |", "| --- | --- | ---: | --- | --- |"]
        for r in peaks:
            if r["test"] not in ("peak", "frequency"):
                continue
            v = r["theoretical"] if r.get("theoretical") is not None else r.get("mean")
            kv = [f for f in (r.get("flags") or "").split(";") if f]
            src = kv[0][7:] if kv and kv[0].startswith("source=") else ""
            how = "; ".join(kv[1:] if src or (kv and kv[0] == "source=") else kv)
            item = (f"clock ({r['variant']})" if r["test"] == "frequency"
                    else r["variant"] + (f" x{r['threads']}" if r.get("threads") is not None else ""))
            out.append(f"| {r['suite']} | {item} | {'unknown' if v is None else fmt(v) + ' ' + r['unit']} | "
                       f"{src or '–'} | {cell(how)} |")
    else:
        out.append("No peaks: peakinfo did not run.")
    return out


# One entry of peak.table_corrected: "vec_int_mul_units: table 1, probe 2 (vmul128 1.95, 1.97 per cycle)".
_CORRECTION = re.compile(r"\s*([^:;]+?):\s*table\s+([^,]+?),\s*probe\s+([^\s(]+)\s*(?:\((.*)\))?\s*")


def table_corrections(c: dict) -> list[str]:
    """The unit counts the probe corrected in the micro-architecture table (peak.table_corrected,
    absent from older results, "none" when nothing was), both counts of each; and where the
    probe disagreed but the table was kept (peak.probe_notes)."""
    out = []
    text = c.get("peak.table_corrected")
    if isinstance(text, str) and text.strip() not in ("", "none"):
        out += ["", "The probe corrected the micro-architecture table (`peak.table_corrected`); the theoretical peaks and "
                "the rows flagged `table_corrected` use the probe's count:", "",
                "| Count | Table | Probe | Probe measured |", "| --- | ---: | ---: | --- |"]
        for entry in (e for e in text.split(";") if e.strip()):
            m = _CORRECTION.fullmatch(entry)
            if m:
                name, table, probe, measured = m.groups()
                out.append(f"| {cell(name)} | {cell(table)} | {cell(probe)} | {cell(measured or '–')} |")
            else:  # a wording this program does not know: shown whole
                out.append(f"| {cell(entry.strip())} | – | – | – |")
        if c.get("peak.probe") not in (None, ""):
            out += ["", f"The probe's figures (`peak.probe`): {cell(_v(c, 'peak.probe'))}"]
    notes = c.get("peak.probe_notes")
    if isinstance(notes, str) and notes.strip():
        out += ["", f"Where the probe disagreed and the table was kept (`peak.probe_notes`): {cell(notes)}"]
    return out


def read_status(out: str) -> list[list[str]]:
    try:
        with open(os.path.join(out, "status.tsv"), encoding="utf-8") as f:
            return [ln.rstrip("\n").split("\t") + [""] * 5 for ln in f if ln.strip()]
    except OSError:
        return []


def steps(status: list) -> list[str]:
    out = ["## Steps", ""]
    if not status:
        return out + ["No status.tsv: this folder was not written by run_all.sh."]
    out += ["| Step | Suite | Status | Seconds | Note |", "| --- | --- | --- | ---: | --- |"]
    out += [f"| {s[0]} | {s[1]} | {s[2].replace('_', ' ')} | {s[3]} | {cell(s[4])} |" for s in status]
    return out


def status_problems(status: list) -> list[str]:
    """"name (status)" of each step that did not end ok: not the resume line, nor a paired
    round skipped because the job's pairs were already enough (run_all.sh's pairs-enough)."""
    return [f"{s[0]} ({s[2].replace('_', ' ')})" for s in status
            if s[2] not in ("ok", "resumed")
            and not (s[2] == "skipped" and len(s) > 4 and s[4].startswith("pairs enough"))]


def status_notes(status: list, suite: str) -> list[str]:
    out = []
    for s in status:
        if s[1] != suite or s[2] == "ok":
            continue
        st = s[2].replace("_", " ")
        out.append(f"- {s[0]}: {s[4]}" if s[4].startswith(st) else f"- {s[0]}: {st}" + (f" ({s[4]})" if s[4] else ""))
    return out
