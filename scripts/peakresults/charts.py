"""The charts: one data file per figure in OUT/charts/data/<fig>.dat (whitespace-separated,
a header naming the columns, "?" for a missing point), one PNG per figure drawn by
scripts/gnuplot/<script>.gp. Without gnuplot the data files are still written and the
charts are skipped with the reason."""
import os
import re
import shutil
import subprocess

GP_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gnuplot")


def blk(b) -> str:
    if b is None or b == "":
        return ""
    b = int(b)
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size and b % size == 0:
            return f"{b // size}{unit}"
    return f"{b}B"


def num(x) -> str:
    if x is None:
        return "?"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


class Charts:
    def __init__(self, out: str, draw: bool):
        self.dir = os.path.join(out, "charts")
        self.data = os.path.join(self.dir, "data")
        self.draw_on = draw and shutil.which("gnuplot") is not None
        self.drawn: list[str] = []
        self.failed: list[str] = []
        self.note = ""
        if draw and not self.draw_on:
            self.note = "gnuplot not installed: no charts (Debian: apt install gnuplot-nox)"
        elif not draw:
            self.note = "charts skipped (--no-charts)"
        os.makedirs(self.data, exist_ok=True)

    def write(self, fig: str, lines: list[str]) -> str:
        path = os.path.join(self.data, fig + ".dat")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def draw(self, fig: str, script: str, **params) -> None:
        if not self.draw_on:
            return
        e = f"out='{self.dir}/{fig}.png'; data='{self.data}/{fig}.dat'"
        for k, v in params.items():
            e += f"; {k}='{v}'" if isinstance(v, str) else f"; {k}={v}"
        r = subprocess.run(["gnuplot", "-e", e, os.path.join(GP_DIR, script)],
                           capture_output=True, text=True)
        if r.returncode == 0:
            self.drawn.append(fig)
        else:
            err = [ln for ln in r.stderr.splitlines() if "warning" not in ln]
            self.failed.append(f"{fig}: gnuplot failed: {err[-1] if err else r.returncode}")

    def have(self, fig: str) -> bool:
        return os.path.isfile(os.path.join(self.dir, fig + ".png"))


def wide(rows, suite, test_re, metric, vre, series, stats, peaks, prefer_fma):
    """A metric against threads: (header, lines, number of series) or None."""
    sel = [r for r in rows if r["suite"] == suite and re.search(test_re, r["test"] or "")
           and r["metric"] == metric and re.search(vre, r["variant"] or "")
           and r.get("threads") not in (None, "") and r.get("n")]
    have = {r["variant"] for r in sel}
    sid, names, spk, val, th, xs = {}, [], [], {}, {}, set()
    st = stats.split(",")
    for r in sel:
        v = r["variant"]
        if prefer_fma and v.endswith("_addmul") and v[:-7] + "_fma" in have:
            continue
        if series == "variant":
            s = v
        elif series == "block":
            s = blk(r.get("block_bytes"))
        elif series == "test":
            s = r["test"] + (v[v.index("@"):] if "@" in v else "")
        elif series == "test_block":
            s = f"{r['test']} {blk(r.get('block_bytes'))}"
        else:
            s = f"{v} {blk(r.get('block_bytes'))}"
        for k, which in enumerate(st):
            name = f"{s} {which}" if len(st) > 1 else s
            if name not in sid:
                sid[name] = len(names)
                names.append(name)
                spk.append(peaks and k == 0)
            x = int(r["threads"])
            xs.add(x)
            val[sid[name], x] = r.get("p99") if which == "p99" else r.get("mean")
            if r.get("theoretical") is not None:
                th[sid[name], x] = r["theoretical"]
    if not names:
        return None
    hdr = "threads" + "".join(f' "{n}"' + (f' "peak {n}"' if peaks else "") for n in names)
    lines = [hdr]
    for x in sorted(xs):
        line = str(x)
        for s in range(len(names)):
            line += " " + num(val.get((s, x)))
            if peaks:
                line += " " + (num(th.get((s, x))) if spk[s] else "?")
        lines.append(line)
    return lines, len(names)


def threads_fig(c: Charts, fig, rows, suite, test_re, metric, vre, series, stats, peaks, fma,
                ttl, ylab, logy=0):
    w = wide(rows, suite, test_re, metric, vre, series, stats, peaks, fma)
    if not w:
        return
    c.write(fig, w[0])
    c.draw(fig, "vs_threads.gp", nser=w[1], peaks=int(peaks), ttl=ttl, ylab=ylab, logy=logy)


def suite_figs(c: Charts, s: dict) -> None:
    cpu, mem = s.get("cpu", []), s.get("memory", [])
    disk, net = s.get("disk", []), s.get("network", [])
    threads_fig(c, "cpu_flops_dp", cpu, "cpu", "^flops$", "flops", "_dp_", "variant", "mean", 1, 1,
                "CPU double precision: GFLOPS vs threads (dashed: theoretical)", "GFLOPS", 1)
    threads_fig(c, "cpu_flops_sp", cpu, "cpu", "^flops$", "flops", "_sp_", "variant", "mean", 1, 1,
                "CPU single precision: GFLOPS vs threads (dashed: theoretical)", "GFLOPS", 1)
    threads_fig(c, "cpu_iops_i32", cpu, "cpu", "^iops$", "iops_int", "_i32_add", "variant", "mean", 1, 0,
                "CPU 32-bit integer add: GIOPS vs threads (dashed: theoretical)", "GIOPS", 1)
    threads_fig(c, "cpu_iops_i64", cpu, "cpu", "^iops$", "iops_int", "_i64_add", "variant", "mean", 1, 0,
                "CPU 64-bit integer add: GIOPS vs threads (dashed: theoretical)", "GIOPS", 1)
    threads_fig(c, "cpu_linpack", cpu, "cpu", "^linpack$", "flops", "^dgesv$", "variant", "mean", 1, 0,
                "Linpack (LAPACKE dgesv): GFLOPS vs threads (dashed: theoretical)", "GFLOPS", 0)
    for t in ("seq_rw", "rand_rw", "seq_read", "rand_read", "seq_write", "rand_write"):
        threads_fig(c, f"memory_{t}", mem, "memory", f"^{t}$", "throughput", "", "block", "mean", 1, 0,
                    f"Memory {t}: throughput vs threads, per block size", "MB/s", 1)
    threads_fig(c, "memory_stream", mem, "memory", "^stream$", "throughput", "", "variant", "mean", 1, 0,
                "STREAM kernels: throughput vs threads", "MB/s", 0)
    for t in ("seq_rw", "seq_read", "seq_write", "rand_read", "rand_write"):
        threads_fig(c, f"disk_{t}", disk, "disk", f"^{t}$", "throughput", "", "variant_block", "mean", 1, 0,
                    f"Disk {t}: throughput vs threads, per engine and block", "MB/s", 1)
    threads_fig(c, "disk_iops", disk, "disk", "^rand_", "iops", "", "test_block", "mean", 0, 0,
                "Disk random I/O: IOPS vs threads (all engines)", "IOPS", 1)
    threads_fig(c, "disk_latency", disk, "disk", "^rand_read$", "latency", "", "variant_block", "mean,p99", 0, 0,
                "Disk random read: latency per I/O vs threads (mean and p99)", "us", 1)
    threads_fig(c, "network_throughput", net, "network", "_throughput$", "throughput", "^(tcp|udp)(@.*)?$",
                "test", "mean", 1, 0,
                "Network: throughput at the receiver vs threads (@host: two nodes; dashed: theoretical)",
                "Gbit/s", 0)
    threads_fig(c, "network_latency", net, "network", "_latency$", "latency", "^(tcp|udp)(@.*)?$",
                "test", "mean,p99", 0, 0,
                "Network: round-trip latency vs threads (mean and p99; @host: two nodes)", "us", 1)
    threads_fig(c, "network_loss", net, "network", "_throughput$", "loss", "^udp(@.*)?$", "test", "mean", 0, 0,
                "UDP loss at the receiver vs threads", "%", 0)
