"""iperf3 --json -> network rows: TCP (-l L -P T) is netbench tcp_throughput tcp, UDP
(-u -l L -P T) udp_throughput udp (throughput at the receiver, and loss in %);
bits_per_second / 10^9 = Gbit/s, counted at the receiver as netbench does."""

from . import NotToolOutput, load_json, row

TOOL = "iperf3"


def parse(path: str, ctx: dict) -> tuple:
    doc = load_json(path, ("start", "end"))
    if doc.get("error"):
        raise NotToolOutput(doc["error"])
    t = doc["start"]["test_start"]
    ver = doc["start"].get("version", "")
    proto = t["protocol"].lower()
    thr, blk = int(t["num_streams"]), int(t["blksize"])
    bufsize = int(doc["start"].get("sock_bufsize") or 0)  # -w, 0 when not given
    job = (f"iperf3 {'-u -b 0 ' if proto == 'udp' else ''}-l {blk} -P {thr} -t {t['duration']}"
           + (f" -w {bufsize}" if bufsize else ""))
    config = f"threads=1;streams={thr};gso=0" if proto == "udp" else f"threads=1;streams={thr}"
    end = doc["end"]
    key = ("network", f"{proto}_throughput", proto, thr, blk)
    if proto == "tcp":
        return ver, [row(TOOL, ver, key + ("throughput", "Gbit/s"),
                         end["sum_received"]["bits_per_second"] / 1e9, job=job, config=config)]
    recv = (end.get("sum_received") or end["sum"])["bits_per_second"]
    return ver, [row(TOOL, ver, key + ("throughput", "Gbit/s"), recv / 1e9, job=job, config=config),
                 row(TOOL, ver, key + ("loss", "%"), end["sum"]["lost_percent"], job=job, config=config)]
