"""What every reference-tool adapter shares: its command line, the rows' record, running the
tool under a time limit (servers on 127.0.0.1 stopped by PID, files removed, SIGINT and
SIGTERM stopping the run cleanly), skipped entries and OUT/raw/baseline-<tool>.json.

  python3 scripts/peakresults/adapters TOOL [--mode full|quick|tiny] [--threads LIST]
      [--raw DIR] [--dir DIR] [--plan] [paired round: --tests LIST --seconds S
      --min-seconds S --n N --mem shmhuge|malloc --buffer-dir DIR --ramp-ms MS --same-data
      --cpu N --server-cpu N --json FILE --ctx K=V]
runs the tool (when installed) on the job peakbench runs, keeps its raw output in --raw DIR
and writes DIR/baseline-TOOL.json (or --json FILE): rows keyed by the peakbench row each is
the reference for, a skipped entry with the reason for each test not run or failed
(docs/results-schema.md, "Reference tools' rows"). --plan prints the tool's command lines
and runs nothing.
  python3 scripts/peakresults/adapters TOOL --parse FILE... [--out FILE] [--ctx K=V]
      [--isa ISA] [--set FIELD=VALUE]
converts captured outputs into rows, one JSON a line (or the document with --out).
Exit status: 0 (a missing tool is a skipped row, not an error), 1 when the tool failed or
a file is not its output, 2 on a usage error (one line), 128+N when stopped by signal N."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from ..core import schema

BASELINE_SCHEMA = schema.BASELINE_SCHEMA
BASELINE_COLUMNS = schema.BASELINE_COLUMNS


class NotToolOutput(Exception):
    """The file is not an output of this tool (or holds no result)."""


class UsageError(Exception):
    """A bad option: one line on stderr, exit 2."""


class Stopped(Exception):
    """SIGINT or SIGTERM arrived: the run stops, cleans up and exits 128 + the signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def load_json(path: str, needs: tuple) -> dict:
    """A tool's JSON output as a dict holding every key in NEEDS, else NotToolOutput."""
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise NotToolOutput(f"not JSON: {e}")
    if not isinstance(doc, dict) or any(k not in doc for k in needs):
        raise NotToolOutput("no " + " and ".join(f"'{k}'" for k in needs))
    return doc


def row(tool, version, key, mean, job="", config="", flags="", **stats) -> dict:
    """A baseline row: KEY is (suite, test, variant, threads, block_bytes, metric, unit) of
    the peakbench row it is the reference for; STATS the figures the tool gives (n, stddev,
    min, median, max, p50, p90, p99, p999), None when it gives none."""
    r = {c: None for c in BASELINE_COLUMNS}
    r.update(zip(schema.KEY, key))
    r.update(tool=tool, tool_version=version, job=job, config=config, flags=flags,
             mean=mean, n=stats.pop("n", 1))
    for k, v in stats.items():
        if k not in r:
            raise KeyError(k)
        r[k] = v
    return r


def write_json(path: str, doc: dict) -> None:
    """DOC to PATH, whole or not at all (written beside it, then renamed)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def write_doc(path: str, tool: str, version: str, rows: list, skipped: list, **extra) -> None:
    """A reference tool's document (docs/results-schema.md), EXTRA's keys after its own."""
    write_json(path, dict({"schema": BASELINE_SCHEMA, "tool": tool, "tool_version": version,
                           "rows": rows, "skipped": skipped}, **extra))


def last_line(path: str) -> str:
    """The last non-blank line of a tool's stderr file ("" when unreadable): its error."""
    try:
        with open(path, errors="replace") as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""


def isa_of_cpu(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The widest kernel ISA membench and cpubench pick here (their variants name it)."""
    try:
        with open(cpuinfo) as f:
            flags = next((ln.split(":", 1)[1].split() for ln in f if ln.startswith("flags")), [])
    except OSError:
        flags = []
    for isa, flag in (("avx512", "avx512f"), ("avx2", "avx2"), ("sse2", "sse2")):
        if flag in flags:
            return isa
    return "scalar"


def cpuinfo_flags_line() -> str:
    """The first "flags" line of PEAKBENCH_CPUINFO or /proc/cpuinfo ("" when unreadable)."""
    try:
        with open(os.environ.get("PEAKBENCH_CPUINFO") or "/proc/cpuinfo", errors="replace") as f:
            return next((ln.rstrip("\n") for ln in f if ln.startswith("flags")), "")
    except OSError:
        return ""


def unavailable_reason(program: str) -> str:
    """Why PROGRAM is missing, when a PATH folder holds PROGRAM.unavailable saying so
    (cmake/qemu-aarch64.sh tools writes one for a tool with no arm64 build), else ""."""
    for d in os.environ.get("PATH", "").split(os.pathsep):
        try:
            with open(os.path.join(d or ".", program + ".unavailable"), errors="replace") as f:
                return f.read().strip()
        except OSError:
            continue
    return ""


def nproc() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# --option: (check, what a bad value is) for the options that take a value
_VALUES = {
    "mode": (lambda v: v in ("full", "quick", "tiny"), "is not full, quick or tiny"),
    "threads": (lambda v: re.fullmatch(r"[1-9][0-9]*(,[1-9][0-9]*)*", v), "is not a list like 1,2,4,8"),
    "raw": (None, ""), "dir": (None, ""), "tests": (None, ""), "json": (None, ""), "buffer_dir": (None, ""),
    "seconds": (lambda v: re.fullmatch(r"[1-9][0-9]*", v), "is not a whole number of seconds"),
    "min_seconds": (lambda v: re.fullmatch(r"[0-9]*\.?[0-9]+", v) and not re.fullmatch(r"[0.]+", v),
                    "is not a positive number of seconds"),
    "n": (lambda v: re.fullmatch(r"[1-9][0-9]*", v), "is not a matrix order"),
    "mem": (lambda v: v in ("shmhuge", "malloc"), "is not shmhuge or malloc"),
    "ramp_ms": (lambda v: re.fullmatch(r"[0-9]+", v), "is not a whole number of milliseconds"),
    "cpu": (lambda v: re.fullmatch(r"[0-9]+", v), "is not a CPU number"),
    "server_cpu": (lambda v: re.fullmatch(r"[0-9]+", v), "is not a CPU number"),
    "ctx": (None, ""), "out": (None, ""), "isa": (None, ""), "set": (None, ""),
}
_MULTI = ("ctx", "set")
_FLAGS = ("plan", "same_data")


class Args:
    """The adapter's options: mode, threads, raw, dir, plan, and a paired round's tests,
    seconds, min_seconds, n, mem, buffer_dir, ramp_ms, same_data, cpu, server_cpu, json, ctx;
    parse: the files of --parse (with out, isa, set)."""

    def __init__(self, argv: list):
        for k in _VALUES:
            setattr(self, k, [] if k in _MULTI else None)
        for k in _FLAGS:
            setattr(self, k, False)
        self.mode, self.threads, self.parse = "full", "1,2,4,8", None
        i = 0
        while i < len(argv):
            a = argv[i]
            k = a[2:].replace("-", "_") if a.startswith("--") else ""
            if a == "--parse":
                self.parse = argv[i + 1:]
                if not self.parse:
                    raise UsageError("--parse needs at least one file")
                break
            if k in _FLAGS:
                setattr(self, k, True)
                i += 1
                continue
            if k not in _VALUES:
                raise UsageError(f"unknown option '{a}'")
            if i + 1 >= len(argv) or argv[i + 1] == "":
                raise UsageError(f"{a} needs a value")
            v = argv[i + 1]
            check, bad = _VALUES[k]
            if check and not check(v):
                raise UsageError(f"{a}: '{v}' {bad}")
            if k in _MULTI:
                getattr(self, k).append(v)
            else:
                setattr(self, k, v)
            i += 2
        if self.parse is not None:
            self._parse_options(argv[i + 1:])

    def _parse_options(self, rest: list) -> None:
        """--parse FILE... [--out FILE] [--ctx K=V] [--isa ISA] [--set F=V], intermixed."""
        files, i = [], 0
        while i < len(rest):
            a = rest[i]
            if a in ("--out", "--ctx", "--isa", "--set"):
                if i + 1 >= len(rest):
                    raise UsageError(f"{a} needs a value")
                k = a[2:]
                if k in _MULTI:
                    getattr(self, k).append(rest[i + 1])
                else:
                    setattr(self, k, rest[i + 1])
                i += 2
            elif a.startswith("--"):
                raise UsageError(f"unknown option '{a}'")
            else:
                files.append(a)
                i += 1
        self.parse = files
        if not files:
            raise UsageError("--parse needs at least one file")

    def ctx_dict(self) -> dict:
        return dict(kv.split("=", 1) for kv in self.ctx if "=" in kv)

    def want(self, test: str) -> bool:
        """Is TEST among --tests (every test without --tests)?"""
        return not self.tests or test in self.tests.split(",")

    def thread_list(self) -> list:
        return [int(t) for t in self.threads.split(",")]

    def threads_upto_cpus(self) -> list:
        """The counts of --threads the machine runs without oversubscription ([1] if none)."""
        n = nproc()
        return [t for t in self.thread_list() if t <= n] or [1]

    def max_threads(self) -> int:
        """The largest count of --threads, capped at the CPUs (what linpack and hpcc use)."""
        return max([1] + self.threads_upto_cpus())


def _on_signal(signum, _frame):
    raise Stopped(signum)


class Run:
    """One run of an adapter: the tool's outputs (outs), its skipped entries, the servers
    and files to remove at the end. In --plan mode the commands are printed, not run."""

    def __init__(self, adapter, a: Args):
        self.adapter, self.a, self.plan = adapter, a, a.plan
        self.outs, self.skips, self.servers, self.cleanups = [], [], [], []
        self.rc = 0  # the last tool run's exit status
        self.raw = a.raw or ""
        if not self.plan:
            if not self.raw:
                self.raw = tempfile.mkdtemp(prefix="peakbench-baseline.", dir=os.environ.get("TMPDIR") or "/tmp")
            os.makedirs(self.raw, exist_ok=True)

    def say(self, msg: str) -> None:
        print(f"{self.adapter.NAME}: {msg}", file=sys.stderr, flush=True)

    def have(self, program: str) -> bool:
        """Is the program there? In --plan mode it need not be."""
        return self.plan or shutil.which(program) is not None

    def skip(self, test: str, reason: str) -> None:
        """A test not run ("... not installed", "... not available here") or failed
        ("failed: ..."): an entry of the JSON's skipped."""
        if not self.plan:
            self.skips.append({"test": test, "reason": reason})

    def log_command(self, text: str) -> None:
        with open(os.path.join(self.raw, "commands.txt"), "a") as f:
            f.write(text + "\n")

    def run(self, limit: float, out: str, argv: list, shown: str = "", **popen) -> bool:
        """ARGV with a time limit (then SIGTERM to its process group, SIGKILL 10 s later, as
        timeout --kill-after=10), stdout to OUT (kept for finish), stderr to OUT.err. The
        tool runs in a process group of its own, out of Ctrl-C's reach: this process stops
        it. --plan: print the command (or SHOWN) instead and run nothing."""
        if self.plan:
            print(shown or " ".join(map(str, argv)), flush=True)
            return True
        self.log_command(shown or " ".join(map(str, argv)))
        with open(out, "w") as fo, open(out + ".err", "w") as fe:
            p = subprocess.Popen([str(x) for x in argv], stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                 start_new_session=True, **popen)
            try:
                rc = _wait(p, limit)
            except BaseException:
                _stop_group(p)
                raise
        self.rc = rc
        if rc == 0:
            self.outs.append(out)
        return rc == 0

    def start_server(self, argv: list, log: str, ready: str = "", tries: int = 10) -> bool:
        """A server on 127.0.0.1 in the background, stopped by its PID at the end; READY: a
        word its log prints once it listens (polled every 0.2 s, TRIES times), else 0.5 s.
        False when it is gone by then."""
        if self.plan:
            print(" ".join(map(str, argv)), flush=True)
            return True
        with open(log, "w") as f:
            p = subprocess.Popen([str(x) for x in argv], stdout=f, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
        self.servers.append(p)
        if not ready:
            time.sleep(0.5)
        for _ in range(tries if ready else 0):
            try:
                with open(log, errors="replace") as f:
                    if ready in f.read():
                        break
            except OSError:
                pass
            if p.poll() is not None:
                break
            time.sleep(0.2)
        return p.poll() is None

    def stop_servers(self) -> None:
        for p in self.servers:
            if p.poll() is None:
                p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.servers = []

    def finish(self, **ctx) -> int:
        """The tool's outputs -> RAW/baseline-NAME.json (or --json FILE); 1 when an output
        is not the tool's."""
        if self.plan:
            return 0
        c = self.a.ctx_dict()
        c.update({k: str(v) for k, v in ctx.items()})
        rows, version, rc = parse_files(self.adapter, self.outs, c)
        write_doc(self.a.json or os.path.join(self.raw, f"baseline-{self.adapter.NAME}.json"),
                  self.adapter.TOOL, version, rows, self.skips)
        return rc

    def close(self) -> None:
        self.stop_servers()
        for f in reversed(self.cleanups):
            f()
        self.cleanups = []


def _wait(p, limit: float) -> int:
    try:
        return p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        return 124


def _stop_group(p) -> None:
    """The tool's process group, on a signal: SIGTERM, SIGKILL after 2 s."""
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=2)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    except OSError:
        pass


def parse_files(adapter, files: list, ctx: dict) -> tuple:
    """(rows, version, status) of the tool's outputs FILES."""
    rows, version, rc = [], "", 0
    for f in files:
        try:
            v, r = adapter.parse(f, ctx)
        except (NotToolOutput, OSError, ValueError, KeyError, TypeError) as e:
            print(f"peakresults adapters: {f} is not a {adapter.NAME} result ({e})", file=sys.stderr)
            rc = 1
            continue
        version = version or v
        rows += r
    return rows, version, rc


def parse_main(adapter, a: Args) -> int:
    """--parse FILE...: the rows as JSON lines, or the document with --out."""
    ctx = a.ctx_dict()
    if a.isa:
        ctx["isa"] = a.isa
    sets = {}
    for kv in a.set:
        k, _, v = kv.partition("=")
        if k not in schema.KEY:
            raise UsageError(f"--set: '{k}' is not a key field ({','.join(schema.KEY)})")
        sets[k] = int(v) if k in ("threads", "block_bytes") and v.isdigit() else (v or None)
    rows, version, rc = parse_files(adapter, a.parse, ctx)
    rows = [dict(x, **sets) for x in rows]
    if a.out:
        write_doc(a.out, adapter.TOOL, version, rows, [])
    else:
        for r in rows:
            print(json.dumps(r))
    return rc


def main(adapter, argv: list) -> int:
    """The adapter's command line (see the top), or one of the adapter's own COMMANDS."""
    commands = getattr(adapter, "COMMANDS", {})
    if argv and argv[0] in commands:
        return commands[argv[0]](argv[1:])
    try:
        a = Args(argv)
        if a.parse is not None:
            return parse_main(adapter, a)
    except UsageError as e:
        print(f"peakresults adapters {adapter.NAME}: {e} (usage: python3 scripts/peakresults/adapters "
              f"{adapter.NAME} [--mode full|quick|tiny] [--threads LIST] [--raw DIR] [--dir DIR] [--plan] "
              "| --parse FILE...)", file=sys.stderr)
        return 2
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    r = None
    try:
        r = Run(adapter, a)
        return adapter.run(r, a)
    except Stopped as e:
        print(f"{adapter.NAME}: stopped by {signal.Signals(e.signum).name}", file=sys.stderr)
        return 128 + e.signum
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if r is not None:
            r.close()
        for s, h in old.items():
            signal.signal(s, h)
