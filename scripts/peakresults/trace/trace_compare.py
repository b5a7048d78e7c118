"""The differences between two trace summaries (trace.py), each one measured sentence.

Counts are compared relative to the work, never absolute (a 1 s run and a 3 s run differ in
count): sizes by their share of a direction's calls or bytes, syncs per write, batching
per call, other calls per data call. Tolerances:"""
from peakresults.trace.trace_parse import SYNCS

SIGNIFICANT = 0.02  # a direction carrying this share of a side's data calls or bytes counts
DOMINANT = 0.10  # a size is one of a direction's own when it has this share of calls or bytes
ABSENT = 0.01  # ... and missing from the other side below this share of both
DIRECT_POINTS = 0.10  # O_DIRECT share of bytes differing by more than this
DELIVERED_POINTS = 0.10  # UDP bytes read over bytes sent differing by more than this
SEQ_POINTS = 0.25  # sequential share of calls differing by more than this
BATCH_FACTOR = 1.25  # messages per call differing by more than this factor
SYNC_FACTOR = 1.5  # writes per sync differing by more than this factor
END_SYNC_SHARE = 0.5  # a side whose largest burst holds more than this share of its writes syncs at its end
RATE_MIN, RATE_FACTOR = 0.25, 3.0  # other calls per data call: at least this (a per-I/O habit), and this factor apart
OPEN_FLAGS = ("O_DSYNC", "O_SYNC", "O_APPEND", "O_NOATIME")
HARMLESS_OPTS = ("SO_REUSEADDR", "SO_REUSEPORT", "SO_RCVTIMEO", "SO_SNDTIMEO", "SO_KEEPALIVE", "SO_LINGER",
                 "SO_PRIORITY", "IP_RECVERR")
FAMILIES = {"poll": ("poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2"),
            "futex": ("futex",), "sleep": ("nanosleep", "clock_nanosleep"), "sched_yield": ("sched_yield",),
            "clock_gettime": ("clock_gettime", "gettimeofday"), "fcntl": ("fcntl",), "lseek": ("lseek",),
            "getrusage": ("getrusage",), "ioctl": ("ioctl",), "io_getevents": ("io_getevents", "io_pgetevents")}


def fmt_size(n) -> str:
    try:
        n = int(n)
    except (TypeError, ValueError):
        return str(n)
    for unit, b in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= b and n % b == 0:
            return f"{n // b} {unit}"
    return f"{n:,} B"


def _dirs(doc: dict) -> dict:
    """(target, dir) -> totals of the timed ("run") data calls."""
    out = {}
    for g in doc.get("data") or []:
        if g.get("phase") != "run":
            continue
        a = out.setdefault((g["target"], g["dir"]), {"calls": 0, "bytes": 0, "msgs": 0, "seq": 0,
                                                     "direct": 0, "sizes": {}, "by_call": {}})
        for f in ("calls", "bytes", "msgs", "seq"):
            a[f] += g.get(f) or 0
        if g.get("direct"):
            a["direct"] += g.get("bytes") or 0
        a["by_call"][g["call"]] = a["by_call"].get(g["call"], 0) + g["calls"]
        for s, n in (g.get("sizes") or {}).items():
            a["sizes"][s] = a["sizes"].get(s, 0) + n
    return out


def _shares(a: dict) -> dict:
    """size -> (share of calls, share of bytes asked for)."""
    calls = sum(a["sizes"].values()) or 1
    asked = {s: n * (int(s) if s.isdigit() else 0) for s, n in a["sizes"].items()}
    total = sum(asked.values()) or 1
    return {s: (n / calls, asked[s] / total) for s, n in a["sizes"].items()}


def _main_call(a: dict) -> str:
    return max(a["by_call"], key=a["by_call"].get) if a["by_call"] else "?"


WORDS = {("file", "write"): "write block", ("file", "read"): "read block"}


def _sizes(what: str, a: dict, b: dict, tool: str) -> list:
    sa, sb = _shares(a), _shares(b)
    dom_a = [s for s, (c, y) in sa.items() if s != "other" and max(c, y) >= DOMINANT]
    dom_b = [s for s, (c, y) in sb.items() if s != "other" and max(c, y) >= DOMINANT]
    missing = [s for s in dom_a if max(sb.get(s, (0, 0))) < ABSENT] + \
              [s for s in dom_b if max(sa.get(s, (0, 0))) < ABSENT]
    if not missing:
        return []

    def one(dom, a_):
        order = sorted(dom, key=lambda s: -a_["sizes"][s])
        return ", ".join(fmt_size(s) for s in order) + f" {_main_call(a_)}"
    return [f"{what} size: ours {one(dom_a, a)}, {tool} {one(dom_b, b)}"]


def _direction(key, a, b, tool) -> list:
    target, d = key
    what = WORDS.get(key) or ("send" if d == "write" else "receive")
    out = _sizes(what, a, b, tool)
    if target == "file":
        da, db = a["direct"] / max(a["bytes"], 1), b["direct"] / max(b["bytes"], 1)
        if abs(da - db) > DIRECT_POINTS:
            def how(x):
                return "O_DIRECT" if x >= 0.99 else "buffered" if x <= 0.01 else f"{x:.0%} of bytes O_DIRECT"
            out.append(f"file {d}s: ours {how(da)}, {tool} {how(db)}")
        qa, qb = a["seq"] / max(a["calls"], 1), b["seq"] / max(b["calls"], 1)
        if abs(qa - qb) > SEQ_POINTS:
            out.append(f"file {d}s: ours {qa:.0%} sequential ({_main_call(a)}), {tool} {qb:.0%}")
    ma, mb = a["msgs"] / max(a["calls"], 1), b["msgs"] / max(b["calls"], 1)
    if max(ma, mb) / max(min(ma, mb), 1e-9) > BATCH_FACTOR:
        out.append(f"{what}: ours {_main_call(a)}, {ma:.3g} messages a call; {tool} {_main_call(b)}, "
                   f"{mb:.3g} a call")
    return out


def _data(ours: dict, tool: dict, name: str) -> list:
    da, db = _dirs(ours), _dirs(tool)
    ca, cb = sum(x["calls"] for x in da.values()) or 1, sum(x["calls"] for x in db.values()) or 1
    ya, yb = sum(x["bytes"] for x in da.values()) or 1, sum(x["bytes"] for x in db.values()) or 1
    out = []
    for key in sorted(set(da) | set(db)):
        a, b = da.get(key), db.get(key)
        sig_a = a is not None and max(a["calls"] / ca, a["bytes"] / ya) >= SIGNIFICANT
        sig_b = b is not None and max(b["calls"] / cb, b["bytes"] / yb) >= SIGNIFICANT
        if not (sig_a or sig_b):
            continue
        target, d = key
        if a is None or b is None:
            who, x = ("ours", a) if a is not None else (name, b)
            other = name if who == "ours" else "ours"
            out.append(f"{who}: {x['calls']:,} {_main_call(x)} ({d} on {target}, {fmt_size(x['bytes'])}); "
                       f"{other}: none")
            continue
        out += _direction(key, a, b, name)
    out += _delivered(da, db, name)
    return out


def _delivered(da: dict, db: dict, name: str) -> list:
    """Loopback: the share of the bytes sent that the receiver read (a slower receiver
    drops UDP datagrams)."""
    def share(d):
        w, r = d.get(("udp", "write")), d.get(("udp", "read"))
        return r["bytes"] / w["bytes"] if w and r and w["bytes"] else None
    sa, sb = share(da), share(db)
    if sa is None or sb is None or abs(sa - sb) <= DELIVERED_POINTS:
        return []
    return [f"UDP bytes read / sent: ours {sa:.0%}, {name} {sb:.0%}"]


def _syncs(doc: dict) -> tuple:
    writes = sum(a["calls"] for (t, d), a in _dirs(doc).items() if t == "file" and d == "write")
    syncs = {k: v for k, v in (doc.get("sync") or {}).items() if k in SYNCS}
    return writes, syncs, doc.get("sync_secs") or 0.0


def _burst(doc: dict):
    """The writes between two syncs that the typical written block sees: the median over
    the writes of sync_intervals (a short burst, such as diskbench's warm-up before its
    timed repetition, weighs by its few writes), None without intervals."""
    iv = sorted((int(k), v) for k, v in (doc.get("sync_intervals") or {}).items() if str(k).isdigit())
    total = sum(k * v for k, v in iv)
    if not total:
        return None
    seen = 0
    for k, v in iv:
        seen += k * v
        if 2 * seen >= total:
            return float(k)
    return float(iv[-1][0])


def _syncs_at_end(doc: dict, writes: int) -> bool:
    """Most of the side's writes meet their first sync at the end of the job: its largest
    burst between two syncs holds more than END_SYNC_SHARE of its writes (diskbench's
    warm-up sync before it, fio's end_fsync). Two such sides sync the same way whatever
    their bursts' lengths, which only measure how long each round wrote."""
    iv = [int(k) for k in (doc.get("sync_intervals") or {}) if str(k).isdigit()]
    return bool(iv) and max(iv) > END_SYNC_SHARE * writes


def _sync(ours: dict, tool: dict, name: str) -> list:
    (wa, sa, ta), (wb, sb, tb) = _syncs(ours), _syncs(tool)
    if not wa or not wb:
        return []
    fa, fb = sum(sa.values()), sum(sb.values())

    def what(w, s, f, t):
        names = "/".join(sorted(s))
        each = f", {t / f * 1000:.3g} ms each" if f and t else ""
        return f"a sync after every {w / f:.0f} writes ({f:,} {names} / {w:,}{each})"
    if fa == 0 and fb == 0:
        return []
    if fa == 0 or fb == 0:
        return [f"{name}: {what(wb, sb, fb, tb)}; ours: none" if fa == 0 else
                f"ours: {what(wa, sa, fa, ta)}; {name}: none"]
    out = []
    pa, pb = _burst(ours) or wa / fa, _burst(tool) or wb / fb
    at_end = _syncs_at_end(ours, wa) and _syncs_at_end(tool, wb)
    if not at_end and max(pa, pb) / min(pa, pb) > SYNC_FACTOR:
        out.append(f"ours: {what(wa, sa, fa, ta)}; {name}: {what(wb, sb, fb, tb)}")
    if set(sa) != set(sb):
        out.append(f"sync call: ours {'/'.join(sorted(sa))}, {name} {'/'.join(sorted(sb))}")
    return out


def _flags(doc: dict) -> set:
    return {f for k in (doc.get("opens") or {}) for f in k.split("|") if f in OPEN_FLAGS}


def _setup_kinds(doc: dict) -> tuple:
    kinds, shown = set(), []
    for events in doc.get("setup") or []:
        sizes = {e.split(" ")[1] for e in events if e.startswith("fallocate ") and " " in e}
        for e in events:
            word = e.split(" ")[0]
            if word == "ftruncate" and e.split(" x")[0].split(" ")[-1] in sizes:
                continue  # the size fallocate already set
            kind = "sync" if word in SYNCS else "layout writes" if word.startswith(("write", "pwrite")) else \
                word if word in ("fallocate", "ftruncate") else None
            if kind:
                kinds.add(kind)
                shown.append(e)
    return kinds, shown


def _setup(ours: dict, tool: dict, name: str) -> list:
    (ka, ea), (kb, eb) = _setup_kinds(ours), _setup_kinds(tool)
    if ka == kb:
        return []
    return [f"setup before the timed calls: ours {', '.join(ea) or 'none'}; {name} {', '.join(eb) or 'none'}"]


def _opts(doc: dict) -> dict:
    return {k: sorted(v) for k, v in (doc.get("sockopts") or {}).items()
            if not any(h in k for h in HARMLESS_OPTS)}


def _sockopts(ours: dict, tool: dict, name: str) -> list:
    oa, ob = _opts(ours), _opts(tool)
    out = []
    for k in sorted(set(oa) | set(ob)):
        if oa.get(k) != ob.get(k):
            opt = k.split(" ")[-1]
            out.append(f"{opt}: ours {'/'.join(oa[k]) if k in oa else 'not set'}, "
                       f"{name} {'/'.join(ob[k]) if k in ob else 'not set'}")
    return out


def _uring(ours: dict, tool: dict, name: str) -> list:
    ua, ub = ours.get("uring") or {}, tool.get("uring") or {}
    ea, eb = ua.get("enter") or {}, ub.get("enter") or {}
    if not ea and not eb:
        return []
    if not ea or not eb:
        who = name if eb else "ours"
        return [f"{who}: io_uring ({sum((eb or ea).values()):,} io_uring_enter); "
                f"{'ours' if who == name else name}: none"]
    out = []
    # the rings entered (a summary from before "used" was recorded: every ring)
    ra = sorted({str(s.get("entries")) for s in ua.get("setup") or [] if s.get("used", True)})
    rb = sorted({str(s.get("entries")) for s in ub.get("setup") or [] if s.get("used", True)})
    if ra != rb:
        out.append(f"io_uring ring entries: ours {'/'.join(ra) or '?'}, {name} {'/'.join(rb) or '?'}")
    top_a, top_b = max(ea, key=ea.get), max(eb, key=eb.get)
    if top_a != top_b:
        out.append(f"io_uring_enter: ours mostly {top_a} ({ea[top_a]:,} of {sum(ea.values()):,}), "
                   f"{name} {top_b} ({eb[top_b]:,} of {sum(eb.values()):,})")
    return out


def _rates(ours: dict, tool: dict, name: str) -> list:
    na = sum(a["calls"] for a in _dirs(ours).values())
    nb = sum(a["calls"] for a in _dirs(tool).values())
    if not na or not nb:
        return []
    out = []
    ha, hb = ours.get("hot_syscalls") or {}, tool.get("hot_syscalls") or {}
    for fam, calls in FAMILIES.items():
        xa, xb = sum(ha.get(c, 0) for c in calls), sum(hb.get(c, 0) for c in calls)
        ra, rb = xa / na, xb / nb
        if max(ra, rb) >= RATE_MIN and max(ra, rb) > RATE_FACTOR * min(ra, rb):
            def one(x, n, h):
                used = "/".join(c for c in calls if h.get(c)) or fam
                return f"{x / n:.2g} {used} per data call ({x:,} / {n:,})" if x else "none"
            out.append(f"ours: {one(xa, na, ha)}; {name}: {one(xb, nb, hb)}")
    return out


def compare(ours: dict, tool: dict, name: str = "tool") -> list:
    """The measured differences between two summaries, [] when the jobs are the same."""
    out = []
    for part in (_data, _sync, _setup, _sockopts, _uring, _rates):
        out += part(ours, tool, name)
    fa, fb = _flags(ours), _flags(tool)
    if fa != fb:
        out.append(f"open flags: ours {'|'.join(sorted(fa)) or 'none of ' + '/'.join(OPEN_FLAGS)}, "
                   f"{name} {'|'.join(sorted(fb)) or 'none of them'}")
    return out
