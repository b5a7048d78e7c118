"""sockperf ping-pong -> network tcp_latency/udp_latency rows (round trip in us, as
netbench reports it). Without --full-rtt sockperf prints half the round trip
("avg-latency"): the figures are doubled and flagged half_rtt_doubled."""
import re

from . import NotToolOutput, row

TOOL = "sockperf"


def parse(path: str, ctx: dict) -> tuple:
    with open(path, errors="replace") as f:
        text = re.sub(r"\x1b\[[0-9;]*m", "", f.read())
    m = re.search(r"avg-(rtt|latency)=([0-9.]+) \(std-dev=([0-9.]+)", text)
    if not m:
        raise NotToolOutput("no avg-rtt or avg-latency")
    scale = 2.0 if m.group(1) == "latency" else 1.0
    # The protocol from the output's "# TCP"/"# UDP"; the message size is not printed:
    # the script's -m (ctx "msg", default 16 as scripts/baseline/sockperf.sh runs it).
    proto = ctx.get("proto") or ("tcp" if "# TCP" in text else "udp")
    msg = int(ctx.get("msg", 16))
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
