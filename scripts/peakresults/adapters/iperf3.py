"""iperf3 for netbench's throughput tests, over loopback (a server started on 127.0.0.1 and
stopped by its PID).

Mapping (--json; bits_per_second / 10^9 = Gbit/s, counted at the receiver as netbench does):
  -l 64K -P T                   end.sum_received -> network tcp_throughput tcp (T threads, 65536 B)
  -u -b 0 -l 1472 -w 4M -P T    end.sum_received -> network udp_throughput udp (T threads, 1472 B)
                                end.sum.lost_percent -> network udp_throughput udp loss (%)
-O 1 (not in tiny mode): the first second is left out of the sums, as netbench leaves out
its warm-up repetition. --cpu N [--server-cpu M]: -A N[,M], the client (and the server) where
netbench's --cpus and --server-cpus put its own."""
import os

from .common import NotToolOutput, load_json, row

NAME = TOOL = PROGRAM = "iperf3"
SUITES = ("network",)
# netbench's UDP sockets' buffers (network/net_udp.c SOCKBUF_BYTES, both ends): with the
# default 208 KiB, iperf3's receiver dropped 4.4% of the datagrams where netbench's dropped
# none (seventh session)
UDP_OPTS = ["-u", "-b", "0", "-l", "1472", "-w", "4M"]
# A paired round's seconds on both sides (netbench --time, iperf3 -t after its -O 1), whole
# seconds. 1 s, was 2: on the Zen 5 record (../shared/machines/amd-zen5-turin-bhyve) the
# round-to-round ratios spread 0.54-1.36 (TCP, placement-matched) and 1.06-1.57 (UDP) at
# 2 s: where the host put the two vCPUs, minute to minute. A second of a loopback stream is
# 1-2 GB in 64 KiB writes (UDP: about 250,000 datagrams), no counting noise beside that.
# A side took 5-6 s (iperf3: its start, -O 1, 2 s) and 2-3 s (ours). `adapters pair
# iperf3-tcp --runtimes 1,2` measures it (docs/methodology.md): on the Zen 3 guest
# (2026-11-29, 4 rounds) TCP's spread was 0.022 at 1 s, 0.239 at 2 s (5.5 s a round, 7.6).
ROUND_S = {"full": 1, "quick": 1, "tiny": 1}
# adapters pair --runtimes: a length here is a whole number (iperf3's -t, as this
# adapter passes it).
ROUND_WHOLE = True


def run(r, a) -> int:
    def skip_all(reason):
        r.skip("tcp_throughput", reason)
        r.skip("udp_throughput", reason)
    if not r.have("iperf3"):
        skip_all("iperf3 not installed (Debian: apt install iperf3)")
        return r.finish()
    secs = int(a.seconds or (3 if a.mode == "full" else 1))
    threads = [1] if a.mode == "tiny" else a.thread_list()
    port = 20000 + os.getpid() % 10000
    log = os.path.join(r.raw, "iperf3-server.log")
    if not r.start_server(["iperf3", "-s", "-B", "127.0.0.1", "-p", port], log, ready="listening"):
        with open(log, errors="replace") as f:
            last = (f.read().splitlines() or [""])[-1]
        r.say(f"iperf3 server on 127.0.0.1:{port} did not start: {last}")
        skip_all("failed: the iperf3 server did not start")
        r.finish()
        return 1
    rc = 0
    for t in threads:
        for proto in ("tcp", "udp"):
            if not a.want(f"{proto}_throughput"):
                continue
            out = os.path.join(r.raw or ".", f"iperf3-{proto}-P{t}.json")
            opts = ["-l", "64K"] if proto == "tcp" else list(UDP_OPTS)
            if a.mode != "tiny":
                opts += ["-O", "1"]
            if a.cpu:
                opts += ["-A", a.cpu + (f",{a.server_cpu}" if a.server_cpu else "")]
            argv = ["iperf3", "-c", "127.0.0.1", "-p", port] + opts + ["-t", secs, "-P", t, "--json"]
            if r.run(secs + 31, out, argv):
                continue
            r.say(f"iperf3 {proto} -P {t} failed: {_error_of(out)}")
            r.skip(f"{proto}_throughput", f"failed: iperf3 -P {t} exited non-zero")
            rc = 1
    r.stop_servers()
    return r.finish() or rc


def _error_of(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return next((ln.strip() for ln in f if '"error":' in ln), "")
    except OSError:
        return ""


def parse(path: str, ctx: dict) -> tuple:
    """iperf3 --json -> network rows: TCP (-l L -P T) is netbench tcp_throughput tcp, UDP
    (-u -l L -P T) udp_throughput udp (throughput at the receiver, and loss in %)."""
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


def baseline_extra(o, disk_dir: str) -> list:
    return []


def pair_jobs(e) -> list:
    """The paired TCP and UDP throughput jobs (plan_pairs.PairEnv E)."""
    from .pairing import PairJob, pair_cpus
    if "network" not in e.want or not e.have("iperf3"):
        return []
    secs, tmax, key, one = e.round_value(ROUND_S), e.tmax, e.key, e.one
    # iperf3 3.12 runs every stream in one thread and sends UDP without GSO: the like-for-like
    # rows are netbench at one thread, and --no-gso for UDP (both unpaced, as iperf3 -b 0);
    # our best configuration is beside them.
    # Client and server on fixed CPUs, the same for both tools (netbench --cpus and
    # --server-cpus, iperf3 -A C,S): left to the scheduler, where a loopback receiver wakes
    # changed iperf3's TCP stream between 9 and 24 Gbit/s from round to round
    # (docs/benchmarks.md, sixth session). Our best configuration is left unpinned.
    # TCP between two CPUs may run as fast as where the host put them (one probe, seventh
    # session: iperf3 14.2-15.0 Gbit/s with the vCPUs 52 ns apart, 12.8 in the one run during
    # which they moved 300 ns apart): placement-matched rounds. UDP keeps plain rounds
    # (within 0.97-1.04 in the sixth session's full runs). One run a side for both.
    cpu0, scpu = map(str, pair_cpus())
    pin = ["--cpus", cpu0, "--server-cpus", scpu]
    matched = cpu0 != scpu
    # iperf3 3.12's receiver waits in select() before every read (the trace: 0.55 pselect6 a
    # data call against netbench's 0.002 in the full run of the tenth session) and reads one
    # datagram a call (netbench's recvmmsg took 2.45): --poll-recv is that receiver.
    tcp = ["netbench", "loopback", "--test", "tcp_throughput", "--buffer", "64KiB", "--time", secs,
           "--threads", "1", "--poll-recv"] + pin + one("netbench")
    tcp_best = ["netbench", "loopback", "--test", "tcp_throughput", "--buffer", "64KiB", "--time", secs,
                "--threads", tmax] + one("netbench")
    # iperf3 3.12 sends one datagram per send(): --no-gso --send-batch 1 is that job
    udp = ["netbench", "loopback", "--test", "udp_throughput", "--datagram", "1472B", "--time", secs,
           "--threads", "1", "--no-gso", "--send-batch", "1", "--poll-recv"] + pin + one("netbench")
    udp_best = ["netbench", "loopback", "--test", "udp_throughput", "--datagram", "1472B", "--time", secs,
                "--threads", "1"] + one("netbench")
    tkey = key("network", "tcp_throughput", "tcp", 1, 65536, "throughput", "Gbit/s")
    ukey = key("network", "udp_throughput", "udp", 1, 1472, "throughput", "Gbit/s")
    tfig = dict({"key": tkey, "ours_job": " ".join(map(str, tcp)), "cause": ""},
                **({"best_key": dict(tkey, threads=tmax), "best_job": " ".join(map(str, tcp_best)),
                    "best_cause": f"iperf3 3.12 runs every stream in one thread; netbench's best runs "
                                  f"{tmax} threads"} if tmax > 1 else {}))
    ufig = {"key": ukey, "ours_job": " ".join(map(str, udp)), "cause": "",
            "best_key": ukey, "best_job": " ".join(map(str, udp_best)),
            "best_cause": "netbench's best sends with UDP GSO (UDP_SEGMENT: one send call for many "
                          "datagrams); iperf3 3.12 sends one datagram per call"}
    jobs = []
    for jid, test, fig, part, argv, best, extra in (
            ("iperf3-tcp", "tcp_throughput", tfig, "tcp", tcp, [("tcp", tcp_best)] if tmax > 1 else [], "-l 64K"),
            ("iperf3-udp", "udp_throughput", ufig, "udp", udp, [("udp", udp_best)], " ".join(UDP_OPTS))):
        jobs.append(PairJob(jid, "iperf3", "network",
                            e.script("iperf3", "--threads", "1", "--tests", test, "--seconds", secs,
                                     "--cpu", cpu0, "--server-cpu", scpu),
                            f"iperf3 -c 127.0.0.1 -P 1 -t {secs} -O 1 -A {cpu0},{scpu} {extra}",
                            [fig], [(part, argv)], best, est=int(secs) + 4, ours_est=int(secs) + 1,
                            matched=matched and jid == "iperf3-tcp"))
    return jobs
