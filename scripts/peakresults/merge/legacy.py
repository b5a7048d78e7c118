"""Reference rows in the old form (raw/baseline-<tool>.csv, the peakbench row named by an
`ours=SUITE:TEST:VARIANT-GLOB:METRIC` key in flags), for results folders written before
the baseline scripts wrote baseline-<tool>.json: each row is rewritten into the new form,
keyed by the first peakbench row the old join matched (same threads and block when the
old row gave them; the tool's figure converted to the row's unit). Read only for a tool
that has no baseline-<tool>.json."""
import csv
import fnmatch
import os

from ..core import schema

FACTOR = {("GB/s", "MB/s"): 1000, ("MB/s", "GB/s"): 0.001, ("Gbit/s", "Mbit/s"): 1000,
          ("Mbit/s", "Gbit/s"): 0.001, ("us", "ns"): 1000, ("ns", "us"): 0.001, ("ms", "us"): 1000}
STATS = schema.COLUMNS[schema.COLUMNS.index("n"):schema.COLUMNS.index("efficiency") + 1]


def _num(s):
    if s is None or s == "":
        return None
    try:
        return int(s)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            return None


def _factor(a, b):
    return 1 if a == b else FACTOR.get((a, b))


def convert(path: str, rows: list[dict], have_tools: set) -> tuple[list, list, str]:
    """(baseline rows, skipped, tool) of one old baseline CSV; ([], [], tool) when the tool
    already has its JSON file."""
    out, skipped, tool = [], [], ""
    with open(path, encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            tool = r.get("baseline_tool") or tool
            if tool in have_tools:
                continue
            flags = r.get("flags") or ""
            if r.get("n") in ("0", "") or r.get("mean") == "":
                reason = flags.split(":", 1)[1].strip() if flags.startswith(("skipped:", "failed:")) else flags
                skipped.append({"tool": tool, "test": r["test"], "reason": reason})
                continue
            kv = [x for x in flags.split(";") if x]
            ours = next((x[5:] for x in kv if x.startswith("ours=")), "")
            parts = ours.split(":")
            if len(parts) != 4:
                continue
            s, t, vglob, m = parts
            hit = next((o for o in rows if o["suite"] == s and o["test"] == t and o["metric"] == m
                        and fnmatch.fnmatchcase(o.get("variant") or "", vglob)
                        and (r["threads"] == "" or str(o.get("threads")) == r["threads"])
                        and (r["block_bytes"] == "" or str(o.get("block_bytes")) == r["block_bytes"])
                        and _factor(r["unit"], o["unit"])), None)
            row = {c: _num(r.get(c)) for c in STATS}
            if hit:
                fac = _factor(r["unit"], hit["unit"])
                for c in STATS[1:]:
                    if row[c] is not None and c not in ("theoretical", "efficiency"):
                        row[c] = row[c] * fac
                row.update({k: hit.get(k) for k in ("suite", "test", "variant", "threads", "block_bytes",
                                                      "metric", "unit")})
            else:
                row.update(suite=s, test=t, variant=vglob.replace("*", ""), threads=_num(r["threads"]),
                           block_bytes=_num(r["block_bytes"]), metric=m, unit=r["unit"])
            version = next((x[5:] for x in kv if x.startswith("tool=")), "")
            row.update(tool=tool, tool_version=version, job=f"{tool} {r['test']} ({r['variant']})",
                       config=";".join(x for x in kv if "=" in x and not x.startswith(("ours=", "tool="))),
                       flags=";".join(x for x in kv if "=" not in x))
            out.append(row)
    return out, skipped, tool or os.path.basename(path)[len("baseline-"):-4]
