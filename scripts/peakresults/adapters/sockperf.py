"""sockperf for netbench's latency tests: ping-pong with 16-byte messages over loopback, TCP
and UDP, against a sockperf server started on 127.0.0.1 and stopped by its PID.

Mapping (round trip in us, as netbench reports it):
  ping-pong --tcp -m 16 --full-rtt  avg-rtt, percentiles -> network tcp_latency tcp latency
  ping-pong       -m 16 --full-rtt  avg-rtt, percentiles -> network udp_latency udp latency
An output without --full-rtt prints half the round trip ("avg-latency"): the parser doubles
it and flags the row half_rtt_doubled. n = observations, stddev = sockperf's std-dev of the
observations; p50/p90/p99/p99.9 are sockperf's percentiles. --cpu N and --server-cpu N:
the client and the server under taskset -c, where netbench's --cpus and --server-cpus run."""
import os
import re

from .common import NotToolOutput, last_line, row

NAME = TOOL = PROGRAM = "sockperf"
SUITES = ("network",)
MSG = 16
# A paired round's seconds on both sides (netbench --time, sockperf -t), whole seconds. 1 s,
# was 2: a second of 16-B ping-pong at 14-19 us is 50,000-70,000 round trips, and on the
# Zen 5 record (../shared/machines/amd-zen5-turin-bhyve) the round-to-round ratios spread
# 0.75-1.13 at 2 s: the host, not the count. A side took 5 s (sockperf: its server, start
# and 2 s) and 2 s (ours). `adapters pair sockperf --runtimes 1,2` measures it: on the Zen 3
# guest (2026-11-29, 4 rounds) the spread was 0.010 at 1 s, 0.030 at 2 s (5.1 s a round, 7.1).
ROUND_S = {"full": 1, "quick": 1, "tiny": 1}
# adapters pair --runtimes: a length here is a whole number (sockperf's -t, as this
# adapter passes it).
ROUND_WHOLE = True


def run(r, a) -> int:
    if not r.have("sockperf"):
        for p in ("tcp", "udp"):
            r.skip(f"{p}_latency", "sockperf not installed (Debian: apt install sockperf)")
        return r.finish()
    secs = int(a.seconds or (3 if a.mode == "full" else 1))
    port = 30000 + os.getpid() % 10000
    rc = 0
    for proto in ("tcp", "udp"):
        if not a.want(f"{proto}_latency"):
            continue
        popt = ["--tcp"] if proto == "tcp" else []
        spin = ["taskset", "-c", a.server_cpu] if a.server_cpu else []
        pin = ["taskset", "-c", a.cpu] if a.cpu else []
        r.start_server(spin + ["sockperf", "server", "-i", "127.0.0.1", "-p", port] + popt,
                       os.path.join(r.raw, f"sockperf-server-{proto}.log"))
        out = os.path.join(r.raw, f"sockperf-{proto}.txt")
        argv = pin + ["sockperf", "ping-pong", "-i", "127.0.0.1", "-p", port] + popt + ["-m", MSG, "-t", secs,
                                                                                          "--full-rtt"]
        if not r.run(secs + 30, out, argv):
            r.say(f"sockperf ping-pong ({proto}) failed: {last_line(out + '.err')}")
            r.skip(f"{proto}_latency", "failed: sockperf exited non-zero")
            rc = 1
        r.stop_servers()
        port += 1
    return r.finish(msg=MSG) or rc




def parse(path: str, ctx: dict) -> tuple:
    """sockperf ping-pong -> network tcp_latency/udp_latency rows (round trip in us)."""
    with open(path, errors="replace") as f:
        text = re.sub(r"\x1b\[[0-9;]*m", "", f.read())
    m = re.search(r"avg-(rtt|latency)=([0-9.]+) \(std-dev=([0-9.]+)", text)
    if not m:
        raise NotToolOutput("no avg-rtt or avg-latency")
    scale = 2.0 if m.group(1) == "latency" else 1.0
    # The protocol from the output's "# TCP"/"# UDP"; the message size is not printed: the
    # run's -m (ctx "msg", default 16 as run() gives it).
    proto = ctx.get("proto") or ("tcp" if "# TCP" in text else "udp")
    msg = int(ctx.get("msg", MSG))
    v = re.search(r"version #\s*(\S+)", text)
    ver = "sockperf " + v.group(1) if v else "sockperf"
    pc = {k: float(v) * scale for k, v in re.findall(r"---> percentile ([0-9.]+) =\s+([0-9.]+)", text)}
    obs = re.search(r"Total ([0-9]+) observations", text)
    mx = re.search(r"---> <MAX> observation =\s+([0-9.]+)", text)
    mn = re.search(r"---> <MIN> observation =\s+([0-9.]+)", text)
    flags = "half_rtt_doubled" if scale == 2 else ""
    job = f"sockperf ping-pong {'--tcp ' if proto == 'tcp' else ''}-m {msg}" + (" --full-rtt" if scale == 1 else "")
    return ver, [row(TOOL, ver, ("network", f"{proto}_latency", proto, 1, msg, "latency", "us"),
                     float(m.group(2)) * scale, job=job, config=f"msg_bytes={msg};ping_pong=1",
                     flags=flags, n=int(obs.group(1)) if obs else 1, stddev=float(m.group(3)) * scale,
                     min=float(mn.group(1)) * scale if mn else None,
                     max=float(mx.group(1)) * scale if mx else None, median=pc.get("50.000"),
                     p50=pc.get("50.000"), p90=pc.get("90.000"), p99=pc.get("99.000"), p999=pc.get("99.900"))]


def baseline_extra(o, disk_dir: str) -> list:
    return []


def pair_jobs(e) -> list:
    """The paired TCP ping-pong (plan_pairs.PairEnv E)."""
    from .pairing import PairJob, pair_cpus
    if "network" not in e.want or not e.have("sockperf"):
        return []
    secs = e.round_value(ROUND_S)
    # Client and server on one CPU for both tools: a ping-pong across two vCPUs waits for
    # the host to wake the other vCPU each way, which gave 65-84 us round trips alone and
    # 164-245 us under 1.2% steal, in rounds that swung 0.47-1.26; on one CPU it is a context
    # switch, 14-16 us for either tool (docs/benchmarks.md, sixth session).
    # sockperf's client and server are two processes, so each switch between them on that
    # CPU also changes the address space; netbench loopback serves from a thread of its own
    # process unless --server-process. The same job is two processes (the intel-server
    # record's 0.83 was thread against process: docs/benchmarks/network.md); the
    # one-process figure is our best configuration beside it.
    cpu0 = scpu = str(pair_cpus()[0])
    base = ["netbench", "loopback", "--test", "tcp_latency", "--msg-size", "16B", "--time", secs,
            "--threads", "1", "--cpus", cpu0, "--server-cpus", scpu]
    argv = base + ["--server-process"] + e.one("netbench")
    best = base + e.one("netbench")
    key = e.key("network", "tcp_latency", "tcp", 1, 16, "latency", "us")
    return [PairJob("sockperf", "sockperf", "network", e.script("sockperf", "--tests", "tcp_latency", "--seconds",
                                                                secs, "--cpu", cpu0, "--server-cpu", scpu),
                    f"taskset -c {cpu0} sockperf ping-pong --tcp -m 16 -t {secs} --full-rtt "
                    f"(server: taskset -c {scpu})",
                    [{"key": key, "ours_job": " ".join(map(str, argv)), "cause": "",
                      "best_key": key, "best_job": " ".join(map(str, best)),
                      "best_cause": "netbench's best serves from a thread of its own process: a "
                                    "switch between client and server keeps the address space"}],
                    [("", argv)], [("", best)], est=int(secs) + 3, ours_est=int(secs) + 1)]
