"""The compact summary of a parsed trace (trace_parse.Tracer), and the merge of two
summaries (a job whose side runs in parts: trace-ours-seq.txt and trace-ours-rand.txt)."""
from peakresults.trace.trace_parse import MAX_SIZES, MINOR_FILE, MINOR_SOCKET, READS, WRITES

FORMAT = "peakbench-trace/1"


def _top_sizes(sizes: dict) -> dict:
    top = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))
    out = {str(k): v for k, v in top[:MAX_SIZES]}
    rest = sum(v for _, v in top[MAX_SIZES:])
    if rest:
        out["other"] = rest
    return out


def _start(t: dict):
    """The index (among the file's data calls) of its first timed call: the first data call
    after the first cache drop (fadvise DONTNEED), which both tools make between laying a
    file out and timing on it; without one, the first call of its largest group. (The
    largest group alone took fio's timed 1 MiB writes for layout when its reads that
    followed moved more bytes.)"""
    if not t["groups"]:
        return None
    for ev, _, idx in t["runs"]:
        if ev == "fadvise64 DONTNEED":
            if idx < t["ndata"]:
                return idx
            break
    key = max(t["groups"], key=lambda k: (t["groups"][k]["bytes"], t["groups"][k]["calls"]))
    return t["first"][key]


def _file_phases(t: dict, start: int, out: dict) -> None:
    setup, writes_at_start = [], 0
    for ev, n, idx in t["runs"]:
        # a run recorded when `start` data calls had passed precedes the first timed call
        # unless it is that call
        if idx > start or idx == start and ev.split(" ")[0] in READS | WRITES:
            break
        setup.append(ev if n == 1 else f"{ev} x{n}")
        if ev.split(" ")[0] in WRITES:
            writes_at_start += n
    out["setup"].append(setup)
    last = writes_at_start
    for writes, idx, name, secs in t["syncs"]:
        if idx <= start:
            continue
        if writes == last:
            # nothing written since the last sync: a cache drop's (diskbench's before each
            # repetition, reads included), which makes nothing durable
            out["sync_idle"] = out.get("sync_idle", 0) + 1
            continue
        out["sync"][name] = out["sync"].get(name, 0) + 1
        out["sync_secs"] = round(out.get("sync_secs", 0.0) + secs, 6)
        k = str(writes - last)
        out["sync_intervals"][k] = out["sync_intervals"].get(k, 0) + 1
        last = writes


def _add_groups(t: dict, start, out: dict, hot: set) -> None:
    for key, g in t["groups"].items():
        d, kind, call, direct, size = key
        phase = "setup" if start is not None and kind == "file" and t["first"][key] < start else "run"
        gk = (phase, d, kind, call, direct)
        a = out.setdefault(gk, {"calls": 0, "bytes": 0, "seq": 0, "msgs": 0, "sizes": {}})
        for f in ("calls", "bytes", "seq", "msgs", "secs"):
            a[f] = a.get(f, 0) + g[f]
        if d == "read" and kind in ("tcp", "udp", "unix") and call != "recvmmsg" and 0 < g.get("most", 0) < (size or 0):
            size = g["most"]  # room offered and never filled is no part of the job (trace_parse)
        a["sizes"][size] = a["sizes"].get(size, 0) + g["calls"]
        if phase == "run":
            hot |= g["tids"]


def summarize(tr, argv: list, exit_code) -> dict:
    """The summary (FORMAT) of a Tracer's calls."""
    out = {"format": FORMAT, "argv": list(argv), "exit": exit_code, "calls_traced": tr.ncalls,
           "data": [], "setup": [], "sync": {}, "sync_secs": 0.0, "sync_intervals": {}, "opens": {}, "sockopts": {},
           "uring": tr.uring, "control": {"sockets": 0, "calls": 0, "bytes": 0},
           "excluded": {}, "syscalls": dict(sorted(tr.syscalls.items())), "hot_syscalls": {}}
    totals = {}
    for t in tr.targets.values():
        cls = "socket" if t["kind"] in ("tcp", "udp", "unix") else t["kind"]
        totals[cls] = totals.get(cls, 0) + t["bytes"]
    groups, hot = {}, set()
    for label, t in sorted(tr.targets.items(), key=lambda kv: kv[0]):
        if t["ndata"] == 0 and t["kind"] == "file":
            continue
        if t["kind"] == "other":
            why = label.split(":")[0] if ":" in label else "/" + label.split("/")[1] if label.startswith("/") else label
            out["excluded"][why] = out["excluded"].get(why, 0) + t["bytes"]
            continue
        cls = "socket" if t["kind"] != "file" else "file"
        limit = MINOR_SOCKET * totals.get("socket", 0) if cls == "socket" else \
            MINOR_FILE * (totals.get("socket", 0) + totals.get("file", 0))
        if t["bytes"] < limit:
            if cls == "socket":
                c = out["control"]
                c["sockets"] += 1
                c["calls"] += t["ndata"]
                c["bytes"] += t["bytes"]
            else:
                out["excluded"]["small files"] = out["excluded"].get("small files", 0) + t["bytes"]
            continue
        start = _start(t) if cls == "file" else None
        if cls == "file":
            _file_phases(t, start, out)
            for fl, n in tr.openflags.get(label, {}).items():
                out["opens"][fl] = out["opens"].get(fl, 0) + n
        elif t.get("sock"):
            for opt, v in t["sock"]["opts"].items():
                vals = out["sockopts"].setdefault(opt, {})
                vals[v] = vals.get(v, 0) + 1
        _add_groups(t, start, groups, hot)
    for (phase, d, kind, call, direct), a in sorted(groups.items(), key=lambda kv: str(kv[0])):
        out["data"].append({"phase": phase, "dir": d, "target": kind, "call": call, "direct": direct,
                            "calls": a["calls"], "bytes": a["bytes"], "seq": a["seq"], "msgs": a["msgs"],
                            "secs": round(a.get("secs", 0.0), 6),
                            "sizes": _top_sizes(a["sizes"])})
    for tid in hot:
        for name, n in tr.by_tid.get(tid, {}).items():
            out["hot_syscalls"][name] = out["hot_syscalls"].get(name, 0) + n
    out["hot_syscalls"] = dict(sorted(out["hot_syscalls"].items()))
    return out


def _add_counts(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict):
            out[k] = _add_counts(out.get(k, {}), v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = out.get(k, 0) + v
        else:
            out.setdefault(k, v)
    return out


def merge(a: dict, b: dict) -> dict:
    """Two summaries of parts of one side as one (counts added, data groups joined)."""
    out = dict(a)
    out["sync_secs"] = (a.get("sync_secs") or 0) + (b.get("sync_secs") or 0)
    out["sync_idle"] = (a.get("sync_idle") or 0) + (b.get("sync_idle") or 0)
    for k in ("sync", "sync_intervals", "opens", "sockopts", "control", "excluded", "syscalls", "hot_syscalls"):
        out[k] = _add_counts(a.get(k) or {}, b.get(k) or {})
    out["setup"] = (a.get("setup") or []) + (b.get("setup") or [])
    out["argv"] = [a.get("argv"), b.get("argv")]
    out["exit"] = next((x for x in (a.get("exit"), b.get("exit")) if x), a.get("exit"))
    out["calls_traced"] = (a.get("calls_traced") or 0) + (b.get("calls_traced") or 0)
    ua, ub = a.get("uring") or {}, b.get("uring") or {}
    out["uring"] = {"setup": (ua.get("setup") or []) + (ub.get("setup") or []),
                    "enter": _add_counts(ua.get("enter") or {}, ub.get("enter") or {}),
                    "submitted": (ua.get("submitted") or 0) + (ub.get("submitted") or 0)}
    groups = {}
    for g in (a.get("data") or []) + (b.get("data") or []):
        k = (g["phase"], g["dir"], g["target"], g["call"], g["direct"])
        if k in groups:
            x = groups[k]
            groups[k] = dict(x, **{f: x.get(f, 0) + g.get(f, 0) for f in ("calls", "bytes", "seq", "msgs", "secs")},
                             sizes=_add_counts(x["sizes"], g["sizes"]))
        else:
            groups[k] = dict(g)
    out["data"] = list(groups.values())
    return out

