"""The DPDK section's comparison: the memif tester/dut pair beside the kernel's UDP path
(netbench loopback at the payload of each frame size), and the memory behind each EAL."""
import json
import os
import re

from .report_fmt import fmt, isnum

INTRO = """A frame of S bytes (FCS included) carries S - 46 bytes of UDP payload (Ethernet 14, IPv4 20,
UDP 8, FCS 4); the kernel ran at that payload. DPDK: tester -> dut over net_memif, one
lcore each; Mpps and L2 Gbit/s (frame bits with FCS) counted at the dut (`rx_dut`), loss
tester -> dut; latency the round trip (`latency_roundtrip`), under full load (rings full:
queueing) and at a light load (`--rate`, the `-rR` run: 1 flow). Kernel:
netbench loopback, one connection; `udp_throughput` Gbit/s of UDP payload at the receiver
(Mpps derived from it: Gbit/s / payload bits) and its loss; latency the `udp_latency`
round trip, one message at a time (no load). Means over the repetitions; n/a: not measured."""

STEP_NAMES = {"dpdkbench": "net_ring loopback", "memif": "memif pair (tester)",
              "memif-rate": "memif pair at --rate 0.1 (tester)"}


def eal_memory(out: str, args: bool = True) -> list[str]:
    """Hugepages matter: 64 B net_ring goes from about 27 to about 40 Mpps on the
    development VM; each step recorded its EAL arguments in its context (args: shown, as
    the appendix does; report.md says only which memory)."""
    raw, lines = os.path.join(out, "raw"), []
    if not os.path.isdir(raw):
        return lines
    for name in sorted(os.listdir(raw)):
        if not (name.startswith("dpdk-") and name.endswith(".json")) or name.endswith(".pass2.json"):
            continue
        try:
            with open(os.path.join(raw, name), encoding="utf-8") as f:
                eal = (json.load(f).get("context") or {}).get("dpdk_eal_args")
        except (OSError, ValueError, AttributeError):
            continue
        if not eal:
            continue
        step = STEP_NAMES.get(name[5:-5], name[5:-5])
        kind = "ordinary memory" if " --no-huge " in f" {eal} " else "hugepages"
        lines.append(f"- {step}: {kind}" + (f" (`{eal}`)" if args else ""))
    return lines


def _na(x):
    return fmt(x) if isnum(x) else "n/a"


def _ratio(a, b):
    return f"{a / b:.2f}x" if isnum(a) and isnum(b) and b > 0 else "n/a"


def table(dpdk: list[dict], net: list[dict]) -> list[str]:
    seen, order = {}, []
    r50, r99, rname = {}, {}, ""
    for r in dpdk:
        v = r.get("variant") or ""
        if not v.startswith("memif-"):
            continue
        l2 = v.endswith("-l2")
        if l2:
            v = v[:-3]
        if v.endswith("-l1"):
            continue
        m = re.search(r"-r([0-9.e+]+)$", v)
        b = r.get("block_bytes")
        if m:  # the light-load run: its round trip goes next to the saturated one
            if r["test"] == "latency_roundtrip" and r.get("n"):
                r50[b], r99[b], rname = r.get("p50"), r.get("p99"), m.group(1)
            continue
        k = (b, v)
        if k not in seen:
            seen[k] = {}
            order.append(k)
        e = seen[k]
        mean = r.get("mean") if r.get("n") else None
        if r["test"] == "rx_dut" and r["unit"] == "Mpps":
            e["mpps"] = mean
        elif r["test"] == "rx_dut" and l2:
            e["gbps"] = mean
        elif r["test"] == "loss_dut":
            e["loss"] = mean
        elif r["test"] == "latency_roundtrip" and r.get("n"):
            e["p50"], e["p99"] = r.get("p50"), r.get("p99")
    kern, pri = {}, {}
    for r in net:
        if not r.get("n") or r.get("mean") is None:
            continue
        v = r.get("variant")
        if v != "udp-vs-dpdk" and not (v == "udp" and r.get("threads") == 1):
            continue
        b, p = r.get("block_bytes"), 2 if v == "udp-vs-dpdk" else 1
        for what, test, metric in (("g", "udp_throughput", "throughput"), ("l", "udp_throughput", "loss"),
                                   ("p", "udp_latency", "latency")):
            if r["test"] == test and r["metric"] == metric and p >= pri.get((what, b), 0):
                pri[what, b] = p
                kern[what, b] = (r["mean"], r.get("p50"), r.get("p99"))
    if not order:
        return ["No memif tester/dut rows in dpdk.csv (see the steps above)."]
    light = f"{rname} Mpps" if rname else "light load"
    out = [f"| Frame | UDP payload | DPDK run | DPDK Mpps | DPDK Gbit/s (L2) | DPDK RTT p50 / p99, full load (us) | "
           f"DPDK RTT p50 / p99 at {light} (us) | DPDK loss | Kernel Mpps | Kernel Gbit/s (payload) | "
           f"Kernel RTT p50 / p99 (us) | Kernel loss | Mpps DPDK / kernel | RTT p50 kernel / DPDK at {light} |",
           "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for k in sorted(order, key=lambda k: (int(k[0] or 0), order.index(k))):
        e, s = seen[k], int(k[0] or 0)
        pl = s - 46
        kg = kern.get(("g", pl), (None,))[0]
        kmpps = kg * 1000 / (pl * 8) if isnum(kg) and pl > 0 else None
        kp = kern.get(("p", pl), (None, None, None))
        kl = kern.get(("l", pl))
        loss = e.get("loss")
        out.append(f"| {s} B | {pl} B | {k[1]} | {_na(e.get('mpps'))} | {_na(e.get('gbps'))} | "
                   f"{_na(e.get('p50'))} / {_na(e.get('p99'))} | {_na(r50.get(s))} / {_na(r99.get(s))} | "
                   f"{fmt(loss) + ' %' if isnum(loss) else 'n/a'} | {_na(kmpps)} | {_na(kg)} | "
                   f"{_na(kp[1])} / {_na(kp[2])} | {fmt(kl[0]) + ' %' if kl else 'n/a'} | "
                   f"{_ratio(e.get('mpps'), kmpps)} | {_ratio(kp[1], r50.get(s))} |")
    return out


def section(out: str, dpdk: list[dict], net: list[dict]) -> list[str]:
    return (["", "### DPDK (memif, user space) vs kernel UDP (netbench loopback)", "", INTRO, ""]
            + eal_memory(out, args=False) + ["", "(Each step's EAL arguments: the appendix.)", ""] + table(dpdk, net))
