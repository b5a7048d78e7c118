"""scripts/peakresults/trace/trace*.py: syscall traces of a pair's two sides, on traces recorded
on a 2-vCPU VM (tests/fixtures/traces: strace -f -qq -yy -T -s 1 excerpts, and the summaries
`peakresults trace run` wrote) and hand-edited variants of them."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from peakresults.trace import trace  # noqa: E402
from peakresults.trace.trace_compare import compare  # noqa: E402
from peakresults.trace.trace_parse import Tracer, parse_call, split_args  # noqa: E402
from peakresults.trace.trace_summary import merge, summarize as summary_of  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures", "traces")


def raw(name: str) -> str:
    with open(os.path.join(FIX, name + ".strace")) as f:
        return f.read()


def summarize(text: str) -> dict:
    t = Tracer()
    for line in text.splitlines():
        t.feed(line)
    return summary_of(t, ["x"], 0)


def summary(name: str) -> dict:
    with open(os.path.join(FIX, name + ".summary.json")) as f:
        return json.load(f)


class Parse(unittest.TestCase):
    def test_split_and_padding(self):
        self.assertEqual(split_args('3</a,b>, "x,y"..., [1, 2], {a=1, b=2}'),
                         ['3</a,b>', '"x,y"...', '[1, 2]', '{a=1, b=2}'])
        name, args, ret, label = parse_call('pwrite64(6</d/f>, ""..., 1048576, 0)     = 1048576')
        self.assertEqual((name, args[2], ret, label), ("pwrite64", "1048576", 1048576, None))
        self.assertEqual(parse_call('openat(AT_FDCWD</w>, ""..., O_RDWR) = 7</d/f>')[3], "/d/f")

    def test_unfinished_joined(self):
        s = summarize("1 pwrite64(6</d/f>, \"\"..., 4096, 0 <unfinished ...>\n"
                      "2 futex(0x1, FUTEX_WAKE, 1) = 0\n"
                      "1 <... pwrite64 resumed>)           = 4096 <0.000100>\n")
        self.assertEqual([(g["call"], g["calls"], g["sizes"]) for g in s["data"]],
                         [("pwrite64", 1, {"4096": 1})])

    def test_disk_excerpt(self):
        s = summarize(raw("fio-seq_write"))
        run = [g for g in s["data"] if g["phase"] == "run"]
        self.assertEqual([(g["call"], g["direct"], g["sizes"]) for g in run],
                         [("pwrite64", True, {"1048576": 30})])
        # fio lays its file out with buffered writes and an fsync before the timed job
        self.assertIn("write buffered 1048576 x16", s["setup"][0])
        self.assertIn("fsync", s["setup"][0])
        self.assertEqual(s["sync"], {"fsync": 1})
        self.assertIn("O_CREAT|O_RDWR", " ".join(s["opens"]).replace("O_DIRECT|", ""))

    def test_iperf3_control_connection_left_out(self):
        s = summarize(raw("iperf3-udp"))
        self.assertGreaterEqual(s["control"]["sockets"], 1)
        self.assertEqual({g["target"] for g in s["data"]}, {"udp"})
        self.assertEqual(s["sockopts"]["SOL_SOCKET SO_SNDBUF"], {"4194304": 2})


class Compare(unittest.TestCase):
    def test_identical_jobs(self):
        for name in ("fio-seq_write", "diskbench-seq_write", "iperf3-udp", "netbench-udp"):
            s = summarize(raw(name))
            self.assertEqual(compare(s, s, "tool"), [], name)
            # a longer run of the same job: counts per byte, not absolute counts
            self.assertEqual(compare(merge(s, s), s, "tool"), [], name)
        for name in ("fio-seq_write", "iperf3-udp"):
            self.assertEqual(compare(summary(name), summary(name), "tool"), [])

    def test_missing_fsync(self):
        fio = raw("fio-seq_write")
        lines = fio.splitlines()
        last = max(i for i, ln in enumerate(lines) if " fsync(" in ln)
        edited = "\n".join(ln for i, ln in enumerate(lines) if i != last)  # the end_fsync
        d = compare(summarize(edited), summarize(fio), "fio")
        self.assertTrue(any(x.startswith("fio: a sync after every 30 writes (1 fsync / 30")
                            and x.endswith("ours: none") for x in d), d)

    def test_block_size(self):
        fio = raw("fio-seq_write")
        small = "\n".join(ln.replace('"..., 1048576, ', '"..., 131072, ') if "pwrite64(" in ln else ln
                          for ln in fio.splitlines())
        d = compare(summarize(fio), summarize(small), "fio")
        self.assertIn("write block size: ours 1 MiB pwrite64, fio 128 KiB pwrite64", d)

    def test_buffered_vs_direct(self):
        fio = raw("fio-seq_write")
        d = compare(summarize(fio), summarize(fio.replace("O_RDWR|O_CREAT|O_DIRECT", "O_RDWR|O_CREAT")), "fio")
        self.assertIn("file writes: ours O_DIRECT, fio buffered", d)

    def test_send_size(self):
        ip = raw("iperf3-udp")
        big = "\n".join(ln.replace('"..., 1472)', '"..., 8192)') if " write(" in ln and "UDP" in ln else ln
                        for ln in ip.splitlines())
        d = compare(summarize(big), summarize(ip), "iperf3")
        self.assertIn("send size: ours 8 KiB write, iperf3 1,472 B write", d)

    def test_receive_room_is_not_size(self):
        # a receive offered 65,507 bytes that returns one 1,472-byte datagram a call (sockperf's
        # 64 KiB buffer) carries what a 1,472-byte receive does: the same job; a send of 8 KiB
        # stays another job (test_send_size)
        ip = raw("iperf3-udp")
        room = "\n".join(ln.replace('"..., 1472)', '"..., 65507)') if " read(" in ln and "UDP" in ln else ln
                         for ln in ip.splitlines())
        self.assertNotEqual(room, ip)
        d = compare(summarize(room), summarize(ip), "iperf3")
        self.assertFalse(any("receive size" in x for x in d), d)
        # ... but a receive that returns less than it asked only sometimes keeps its size
        half = "\n".join(ln.replace('"..., 1472)  = 1472', '"..., 2944)  = 2944') if " read(" in ln and "UDP" in ln
                         else ln for ln in ip.splitlines())
        self.assertNotEqual(half, ip)
        d = compare(summarize(half), summarize(ip), "iperf3")
        self.assertTrue(any("receive size" in x for x in d), d)

    def test_socket_option(self):
        ip = raw("iperf3-udp")
        no = "\n".join(ln for ln in ip.splitlines() if "SO_SNDBUF, [" not in ln or "setsockopt" not in ln)
        d = compare(summarize(ip), summarize(no), "iperf3")
        self.assertIn("SO_SNDBUF: ours 4194304, iperf3 not set", d)

    def test_recorded_pairs(self):
        d = compare(summary("diskbench-seq_write"), summary("fio-seq_write"), "fio")
        # both sync at the end of their writing (ours 99 of 115 writes in its last burst,
        # fio 393 of 393): not a cadence, whatever the rounds' lengths; the call differs
        self.assertFalse(any("a sync after every" in x for x in d), d)
        self.assertIn("sync call: ours fdatasync, fio fsync", d)
        d = compare(summary("netbench-udp"), summary("iperf3-udp"), "iperf3")
        self.assertIn("receive: ours recvmmsg, 1.45 messages a call; iperf3 read, 1 a call", d)
        self.assertFalse(any("send size" in x for x in d), d)


class Cadence(unittest.TestCase):
    """The timed part starts after the first cache drop; syncs that follow no write are
    not a sync cadence; a warm-up's short burst before its sync weighs by its writes."""
    F = "3</d/f>"

    def job(self, *calls):
        lines = [f"1 fallocate({self.F}, 0, 0, 16777216) = 0 <0.000010>"]
        for c in calls:
            lines += c
        return "\n".join(lines) + "\n"

    def op(self, name, n, size=1048576, t="0.001"):
        if name in ("write", "fsync", "fdatasync"):
            if name == "write":
                return [f'1 write({self.F}, ""..., {size}) = {size} <{t}>'] * n
            return [f"1 {name}({self.F}) = 0 <0.050000>"] * n
        return [f'1 {name}({self.F}, ""..., {size}, {i * size}) = {size} <{t}>' for i in range(n)]

    def drop(self):
        return [f"1 fadvise64({self.F}, 0, 0, POSIX_FADV_DONTNEED) = 0 <0.000010>"]

    def test_timed_writes_before_larger_reads(self):
        # fio's layout, its seq_write job, then a seq_read job that moves more bytes
        s = summarize(self.job(self.op("write", 4), self.op("fsync", 1), self.drop(),
                               self.op("pwrite64", 3), self.op("fsync", 1), self.drop(),
                               self.op("pread64", 8)))
        phase = {(g["call"], g["phase"]) for g in s["data"]}
        self.assertEqual(phase, {("write", "setup"), ("pwrite64", "run"), ("pread64", "run")})
        self.assertEqual(s["sync"], {"fsync": 1})

    def test_idle_syncs_and_warm_up_burst(self):
        # diskbench: a warm-up of 1 write and its sync, a cache drop's sync (nothing
        # written since), then the timed repetition's 9 writes and its sync
        ours = summarize(self.job(self.op("pwrite64", 4, 4194304), self.op("fdatasync", 1), self.drop(),
                                  self.op("pwrite64", 1), self.op("fsync", 1), self.op("fsync", 1),
                                  self.drop(), self.op("pwrite64", 9), self.op("fsync", 1)))
        self.assertEqual(ours["sync"], {"fsync": 2})
        self.assertEqual(ours["sync_idle"], 1)
        self.assertEqual(ours["sync_intervals"], {"1": 1, "9": 1})
        fio = summarize(self.job(self.op("write", 4), self.op("fsync", 1), self.drop(),
                                 self.op("pwrite64", 10), self.op("fsync", 1)))
        self.assertEqual(compare(ours, fio, "fio"), [])
        # a sync after every write is another job
        every = summarize(self.job(self.op("write", 4), self.op("fsync", 1), self.drop(),
                                   *[self.op("pwrite64", 1) + self.op("fsync", 1) for _ in range(10)]))
        d = compare(ours, every, "fio")
        self.assertTrue(any(x.startswith("ours: a sync after every") and "fio: a sync after every 1 writes" in x
                            for x in d), d)

    def test_end_syncs_of_rounds_of_other_lengths(self):
        # both sides sync once at the end of their writing; fio's round wrote 3.6 times as
        # many blocks as ours (a longer round): the round's length, not another cadence
        ours = summarize(self.job(self.op("write", 4), self.op("fsync", 1), self.drop(),
                                  self.op("pwrite64", 2), self.op("fsync", 1),
                                  self.op("pwrite64", 10), self.op("fsync", 1)))
        self.assertEqual(ours["sync_intervals"], {"2": 1, "10": 1})
        fio = summarize(self.job(self.op("write", 4), self.op("fsync", 1), self.drop(),
                                 self.op("pwrite64", 36), self.op("fsync", 1)))
        self.assertEqual(compare(ours, fio, "fio"), [])
        # ... but a side syncing halfway through its writing has a cadence of its own
        half = summarize(self.job(self.op("write", 4), self.op("fsync", 1), self.drop(),
                                  self.op("pwrite64", 18), self.op("fsync", 1),
                                  self.op("pwrite64", 18), self.op("fsync", 1)))
        d = compare(half, fio, "fio")
        self.assertTrue(any(x.startswith("ours: a sync after every 18 writes") for x in d), d)


class Rings(unittest.TestCase):
    def test_probe_ring_not_a_job_ring(self):
        # diskbench checks io_uring with a 2-entry ring it never enters, then runs on 32
        F = "5<anon_inode:[io_uring]>"
        def job(probe):
            lines = ["1 io_uring_setup(2, {flags=0, sq_thread_cpu=0}) = 5<anon_inode:[io_uring]> <0.00001>",
                     "1 close(5<anon_inode:[io_uring]>) = 0 <0.00001>"] if probe else []
            lines += ["1 io_uring_setup(32, {flags=0, sq_thread_cpu=0}) = 5<anon_inode:[io_uring]> <0.00001>"]
            lines += [f"1 io_uring_enter({F}, 32, 1, IORING_ENTER_GETEVENTS, NULL, 8) = 32 <0.0001>"] * 4
            return summarize("\n".join(lines) + "\n")
        ours, fio = job(True), job(False)
        self.assertEqual([(r["entries"], r["used"]) for r in ours["uring"]["setup"]], [(2, False), (32, True)])
        self.assertFalse([x for x in compare(ours, fio, "fio") if "ring entries" in x])
        # a job ring of another size is still told
        fio["uring"]["setup"][0]["entries"] = 64
        self.assertIn("io_uring ring entries: ours 32, fio 64", compare(ours, fio, "fio"))


class PairDir(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        with open(os.path.join(self.d, "job.json"), "w") as f:
            json.dump({"tool": "fio"}, f)

    def tearDown(self):
        shutil.rmtree(self.d)

    def put(self, name, doc):
        with open(os.path.join(self.d, name), "w") as f:
            json.dump(doc, f)

    def test_status(self):
        self.assertEqual(trace.trace_status(self.d), "not traced: no trace-ours.txt")
        self.assertIsNone(trace.pair_cause(self.d))
        s = summarize(raw("fio-seq_write"))
        self.put("trace-ours.txt", s)
        self.put("trace-tool.txt", s)
        self.assertEqual(trace.trace_status(self.d), "same")
        self.assertIsNone(trace.pair_cause(self.d))
        self.put("trace-tool.txt", summary("fio-seq_write"))
        self.put("trace-ours.txt", summary("diskbench-seq_write"))
        self.assertEqual(trace.trace_status(self.d), "differs")
        self.assertIn("sync call: ours fdatasync, fio fsync", trace.pair_cause(self.d))
        self.put("trace-tool.txt", {"format": "peakbench-trace/1", "error": "strace not installed"})
        self.assertEqual(trace.trace_status(self.d), "not traced: trace-tool.txt: strace not installed")

    def test_parts_merged(self):
        s = summarize(raw("fio-seq_write"))
        self.put("trace-ours-seq.txt", s)
        self.put("trace-ours-rand.txt", summarize(raw("diskbench-seq_write")))
        self.put("trace-tool.txt", s)
        self.assertEqual(trace.trace_status(self.d), "differs")


class Cli(unittest.TestCase):
    def cli(self, *args, env=None):
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "peakresults"), "trace", *args],
                              capture_output=True, text=True, env=env)

    def test_no_strace(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.txt")
            r = self.cli("run", out, "--", "true", env={"PATH": d})
            self.assertEqual(r.returncode, 3)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1)
            self.assertIn("strace", r.stderr)
            self.assertEqual(trace.load(out), "t.txt: strace not installed")

    @unittest.skipUnless(shutil.which("strace"), "strace not installed")
    def test_exit_status_and_summary(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.txt")
            r = self.cli("run", out, "--", "sh", "-c", f"head -c 65536 /dev/zero > {d}/f; exit 7")
            self.assertEqual(r.returncode, 7, r.stderr)
            doc = trace.load(out)
            if isinstance(doc, str):
                self.skipTest(doc)  # ptrace not permitted here
            self.assertEqual(doc["exit"], 7)
            self.assertGreater(doc["syscalls"].get("execve", 0), 0)
            self.assertTrue(any(g["dir"] == "write" and g["target"] == "file" for g in doc["data"]))

    def test_usage(self):
        self.assertEqual(self.cli("run", "x").returncode, 2)


if __name__ == "__main__":
    unittest.main()
