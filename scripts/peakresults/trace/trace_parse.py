"""strace -f -yy -s 1 output into the compact summary trace.py writes (peakbench-trace/1):
what a run asked of the kernel per byte it moved, not the raw trace.

Data calls are grouped by direction (read, write), target (file, tcp, udp, unix), call,
O_DIRECT (files) and phase: "setup" for a file's calls before the first call of its
largest group (fio's layout writes, diskbench's preallocation), "run" after it. Sizes are
the sizes asked for (the count argument, the first iovec's length), which the program
chose, except a socket receive's: the kernel copies what is queued whatever room the call
offers, so its size is the most any of its calls returned when that is less (sockperf
offers 65,507 bytes to a 16-byte reply; trace_summary). Bytes are the bytes the calls
returned. Left out, and counted under "excluded":
pipes, terminals, /proc, /sys, /dev, libraries and files that carry under 1% of the
file bytes (a tool's JSON output); sockets that carry under 1% of the socket bytes are
the tools' control plane (iperf3's first connection: a 37-byte cookie, 1-byte states and
JSON of a few hundred bytes; netbench's 12-byte control messages) and are counted under
"control"."""
import re

READS = {"read", "pread64", "readv", "preadv", "preadv2", "recv", "recvfrom", "recvmsg", "recvmmsg"}
WRITES = {"write", "pwrite64", "writev", "pwritev", "pwritev2", "send", "sendto", "sendmsg", "sendmmsg"}
SYNCS = {"fsync", "fdatasync", "sync_file_range"}
FILE_OPS = {"fallocate", "ftruncate", "fadvise64"}
OFFSET_ARG = {"pread64": 3, "pwrite64": 3, "preadv": 3, "pwritev": 3, "preadv2": 3, "pwritev2": 3}
IGNORED_PREFIXES = ("/proc/", "/sys/", "/dev/", "/usr/", "/lib", "/etc/", "/bin/", "/sbin/")
PROGRAM_FILES = (".so", ".py", ".pyc", ".sh", ".pth")  # read by the interpreters that run a tool
MINOR_SOCKET = 0.01  # a socket under this share of the socket bytes is control plane
MINOR_FILE = 0.05  # a file under this share of all data bytes (a tool's output, its scripts) is left out
FLAGS_SHOWN = ("O_DIRECT", "O_DSYNC", "O_SYNC", "O_CREAT", "O_TRUNC", "O_EXCL", "O_APPEND", "O_NOATIME",
               "O_RDONLY", "O_WRONLY", "O_RDWR")
MAX_RUNS = 4000  # per file: the sequence of calls kept to find its setup
MAX_SIZES = 8

_LINE = re.compile(r"^(\d+)\s+(.*)$")
_RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
_FD = re.compile(r"^(-?\d+)<((?:TCP|UDP|TCPv6|UDPv6|UNIX|NETLINK|UNIX-STREAM|UNIX-DGRAM)[^\]]*\]|[^>]*)>")
_RET = re.compile(r"^(-?\d+|0x[0-9a-f]+)(?:<((?:TCP|UDP|TCPv6|UDPv6|UNIX)[^\]]*\]|[^>]*)>)?")
_TIME = re.compile(r"\s<(\d+\.\d+)>$")  # strace -T: the time spent in the call
_END = re.compile(r"\)\s+= ")
_INT = re.compile(r"\[?(-?\d+)\]?$")


def _annotation_end(s: str, i: int) -> int:
    """The index of the ">" closing the fd annotation that opens at s[i] ("<")."""
    if re.match(r"<(TCP|UDP|UNIX|NETLINK)", s[i:]):
        j = s.find("]>", i)
        return j + 1 if j >= 0 else len(s) - 1
    m = re.compile(r">(?=,|\)|$)").search(s, i)
    return m.start() if m else len(s) - 1


def split_args(s: str) -> list:
    """Top-level comma-separated arguments of a call's argument text (strings, brackets and
    the fd annotations of strace -y, which may hold commas, kept whole)."""
    out, depth, cur, q, esc, i = [], 0, [], False, False, 0
    while i < len(s):
        ch = s[i]
        i += 1
        if q:
            cur.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                q = False
            continue
        if ch == "<" and re.fullmatch(r"-?\d+|AT_FDCWD", "".join(cur).strip()):
            end = _annotation_end(s, i - 1)
            cur.append(s[i - 1:end + 1])
            i = end + 1
            continue
        if ch == '"':
            q = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if cur or out:
        out.append("".join(cur).strip())
    return out


def parse_call(text: str):
    """(name, args, ret, ret_annotation) of a complete call "name(args) = ret", or None."""
    m = re.match(r"^(\w+)\((.*)$", text)
    if not m:
        return None
    name, rest = m.group(1), m.group(2)
    ends = list(_END.finditer(rest))  # strace pads before "=" to align the results
    if not ends:
        return None
    i = ends[-1].start()
    rm = _RET.match(rest[ends[-1].end():])
    ret = None if not rm else int(rm.group(1), 16 if rm.group(1).startswith("0x") else 10)
    return name, split_args(rest[:i]), ret, (rm.group(2) if rm else None)


def target_of(label: str) -> str:
    for proto, t in (("TCP", "tcp"), ("UDP", "udp"), ("UNIX", "unix")):
        if label.startswith(proto):
            return t
    if label.startswith(("pipe:", "anon_inode:", "socket:", "NETLINK")) or not label.startswith("/"):
        return "other"
    if label.startswith("/dev/shm/"):
        return "file"
    return "other" if label.startswith(IGNORED_PREFIXES) or label.endswith(PROGRAM_FILES) else "file"


def _int(s: str):
    m = _INT.search(s or "")
    return int(m.group(1)) if m else None


def _iov_len(s: str):
    m = re.search(r"iov_len=(\d+)", s or "")
    return int(m.group(1)) if m else None


def _flags(s: str) -> set:
    return {f for f in re.findall(r"O_[A-Z]+", s or "")}


class Tracer:
    """Feed strace lines (feed), then summary(argv, exit)."""

    def __init__(self):
        self.pending, self.tgid = {}, {}
        self.syscalls, self.by_tid = {}, {}
        self.targets = {}  # label -> per-target record
        self.sock_of = {}  # (tgid, fd) -> socket object id
        self.socks = {}  # socket object id -> {"label", "opts"}
        self.direct, self.openflags = {}, {}
        self.nextoff = {}
        self.uring = {"setup": [], "enter": {}, "submitted": 0}
        self.ncalls, self.secs = 0, 0.0

    def feed(self, line: str) -> None:
        m = _LINE.match(line.rstrip("\n"))
        if not m:
            return
        tid, text = int(m.group(1)), m.group(2)
        if text.startswith(("---", "+++")):
            return
        if text.endswith(" <unfinished ...>"):
            self.pending[tid] = text[:-len(" <unfinished ...>")]
            return
        r = _RESUMED.match(text)
        if r:
            head = self.pending.pop(tid, None)
            if head is None:
                return
            text = head + r.group(2)
        secs = 0.0
        tm = _TIME.search(text)
        if tm:
            secs, text = float(tm.group(1)), text[:tm.start()]
        call = parse_call(text)
        if call is None:
            return
        self.secs = secs
        self._call(tid, *call)

    def _tg(self, tid: int) -> int:
        return self.tgid.get(tid, tid)

    def _record(self, label: str) -> dict:
        t = self.targets.get(label)
        if t is None:
            t = self.targets[label] = {"kind": target_of(label), "bytes": 0, "groups": {}, "runs": [],
                                       "ndata": 0, "syncs": [], "writes": 0, "first": {}}
        return t

    def _run(self, t: dict, ev: str) -> None:
        runs = t["runs"]
        if runs and runs[-1][0] == ev:
            runs[-1][1] += 1
        elif len(runs) < MAX_RUNS:
            runs.append([ev, 1, t["ndata"]])

    def _sock(self, tid: int, fd: int, label: str) -> dict:
        key = (self._tg(tid), fd)
        sid = self.sock_of.get(key)
        if sid is None:
            sid = self.sock_of[key] = len(self.socks)
            self.socks[sid] = {"label": label, "opts": {}}
        s = self.socks[sid]
        if "->" in label or "label" not in s:
            s["label"] = label
        return s

    def _call(self, tid: int, name: str, args: list, ret, ret_label) -> None:
        self.ncalls += 1
        self.syscalls[name] = self.syscalls.get(name, 0) + 1
        per = self.by_tid.setdefault(tid, {})
        per[name] = per.get(name, 0) + 1
        if name in ("clone", "clone3", "fork", "vfork"):
            if isinstance(ret, int) and ret > 0:
                self.tgid[ret] = self._tg(tid) if "CLONE_THREAD" in " ".join(args) else ret
            return
        if name in ("socket", "accept", "accept4") and ret_label and isinstance(ret, int) and ret >= 0:
            self.sock_of.pop((self._tg(tid), ret), None)
            self._sock(tid, ret, ret_label)
            return
        if name in ("open", "openat", "creat") and ret_label and isinstance(ret, int) and ret >= 0:
            fl = _flags(args[2] if name == "openat" and len(args) > 2 else args[1] if len(args) > 1 else "")
            self.direct[ret_label] = "O_DIRECT" in fl
            self.openflags.setdefault(ret_label, {})
            key = "|".join(f for f in FLAGS_SHOWN if f in fl)
            self.openflags[ret_label][key] = self.openflags[ret_label].get(key, 0) + 1
            self.sock_of.pop((self._tg(tid), ret), None)
            return
        if name == "io_uring_setup" and isinstance(ret, int) and ret >= 0:
            fl = re.search(r"flags=([A-Z_|0-9x]+)", " ".join(args))
            # "used" once an io_uring_enter names its fd: a ring set up and never entered
            # (diskbench's check that the kernel allows io_uring) is no job's ring
            self.uring["setup"].append({"entries": _int(args[0]) if args else None,
                                        "flags": fl.group(1) if fl else "0", "fd": ret, "used": False})
            return
        if not args:
            return
        fm = _FD.match(args[0])
        if not fm:
            return
        fd, label = int(fm.group(1)), fm.group(2)
        if name == "close":
            self.sock_of.pop((self._tg(tid), fd), None)
            return
        kind = target_of(label)
        if name == "io_uring_enter":
            for ring in reversed(self.uring["setup"]):
                if ring.get("fd") == fd:
                    ring["used"] = True
                    break
            key = f"to_submit={args[1] if len(args) > 1 else '?'} min_complete={args[2] if len(args) > 2 else '?'}"
            self.uring["enter"][key] = self.uring["enter"].get(key, 0) + 1
            self.uring["submitted"] += ret if isinstance(ret, int) and ret > 0 else 0
            return
        if name == "fcntl" and len(args) > 2 and args[1] == "F_SETFL" and ret == 0 and kind == "file":
            self.direct[label] = "O_DIRECT" in _flags(args[2])
            self._run(self._record(label), "fcntl O_DIRECT" if self.direct[label] else "fcntl buffered")
            return
        if name == "setsockopt" and len(args) > 3 and kind in ("tcp", "udp", "unix"):
            s = self._sock(tid, fd, label)
            s["opts"][f"{args[1]} {args[2]}"] = str(_int(args[3]) if _int(args[3]) is not None else args[3])
            return
        if name in SYNCS or name in FILE_OPS:
            if kind == "file":
                t = self._record(label)
                detail = ""
                if name == "fadvise64" and args:
                    detail = " " + args[-1].replace("POSIX_FADV_", "")
                elif name in ("fallocate", "ftruncate"):
                    detail = f" {args[-1]}"
                self._run(t, name + detail)
                if name in SYNCS and ret == 0:
                    t["syncs"].append((t["writes"], t["ndata"], name, self.secs))
            return
        if name in READS or name in WRITES:
            self._data(tid, name, args, ret, fd, label, kind)

    def _data(self, tid, name, args, ret, fd, label, kind) -> None:
        if not isinstance(ret, int) or ret < 0:
            return
        d = "read" if name in READS else "write"
        msgs = 1
        if name in ("recvmmsg", "sendmmsg"):
            size, msgs = _iov_len(args[1] if len(args) > 1 else ""), ret
            moved = (size or 0) * ret
        elif name in ("readv", "writev", "recvmsg", "sendmsg"):
            size, moved = _iov_len(" ".join(args[1:2])) or ret, ret
        elif name in ("preadv", "pwritev", "preadv2", "pwritev2"):
            size, moved = ret, ret
        else:
            size, moved = (_int(args[2]) if len(args) > 2 else None) or ret, ret
        direct = self.direct.get(label, False) if kind == "file" else None
        t = self._record(label)
        if kind in ("tcp", "udp", "unix"):
            sock = self._sock(tid, fd, label)
            t = self._record(f"sock#{id(sock)}")
            t["kind"], t["sock"] = kind, sock
        key = (d, kind, name, direct, size)
        g = t["groups"].get(key)
        if g is None:
            g = t["groups"][key] = {"calls": 0, "bytes": 0, "seq": 0, "msgs": 0, "secs": 0.0, "tids": set()}
            t["first"][key] = t["ndata"]
        g["calls"] += 1
        g["bytes"] += moved
        if msgs == 1:  # (recvmmsg's returned value is a count of messages)
            g["most"] = max(g.get("most", 0), moved)
        g["msgs"] += msgs
        g["secs"] += self.secs
        g["tids"].add(tid)
        if kind == "file":
            off = _int(args[OFFSET_ARG[name]]) if name in OFFSET_ARG and len(args) > OFFSET_ARG[name] else None
            prev = self.nextoff.get((tid, label))
            if off is None or off == prev:
                g["seq"] += 1
            self.nextoff[(tid, label)] = (off if off is not None else 0) + moved
            self._run(t, f"{name} {'O_DIRECT' if direct else 'buffered'} {size}")
            if d == "write":
                t["writes"] += 1
        t["ndata"] += 1
        t["bytes"] += moved
