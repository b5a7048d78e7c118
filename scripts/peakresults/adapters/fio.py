"""fio for diskbench: the same file size, block size, engine, queue depth, thread count and
O_DIRECT as diskbench, one fio run (--output-format=json), jobs in sequence.

Mapping (job name TEST.ENGINE.THREADS.BLOCK; bw_bytes / 10^6 = MB/s, clat_ns / 1000 = us):
  seq_write  psync 1 MiB, end_fsync, --overwrite=1 (fio lays the file out first, then
             overwrites it)       -> disk seq_write psync       throughput MB/s
  seq_write_new psync 1 MiB, end_fsync, one pass over a file of its own that fio creates
             (and preallocates: unwritten extents) and is removed after
                                  -> disk seq_write_new psync   throughput MB/s
  seq_read   psync 1 MiB              -> disk seq_read  psync       throughput MB/s
  rand_read  psync 4 KiB, depth 1     -> disk rand_read psync       iops, throughput
  rand_read  io_uring 4 KiB, depth 32 -> disk rand_read uring-qd32  iops, throughput
  every job also gives a latency row (completion latency mean, p50/p90/p99/p99.9, us).
Threads are fio jobs (numjobs) on disjoint regions of one file (offset_increment), as
diskbench's threads are; the figures are the group's sums (group_reporting).
Buffer pages: diskbench's default --buffer-pages auto puts its I/O buffers on 2 MiB hugetlb
pages when the pool (vm.nr_hugepages) has room, and on a VM disk the pages change large
transfers' speed (docs/disk.md). So fio gets --mem=shmhuge when at least 40 + threads huge
pages are free and unreserved, else its default --mem=malloc; rows say which (config).
A paired job with --buffer-dir DIR (diskbench's --buffer-dir, disk/disk_buffer_dir.h) does
its I/O from diskbench's very pages: every read job maps DIR/read.buf and every write job
DIR/write.buf (--mem=mmapshared:FILE); rows say buffer_pages=shared."""
import os
import subprocess
import tempfile

from .common import last_line, load_json, row

NAME = TOOL = PROGRAM = "fio"
SUITES = ("disk",)
SIZE_MIB = {"full": 1024, "quick": 256, "tiny": 16}
RUNTIME_S = {"full": 3, "quick": 1, "tiny": 1}
# A paired round's runtime of each test, on both sides (diskbench --runtime, fio --runtime),
# in whole seconds (the adapter's --seconds). 1 s, was 2: on the Zen 5 record
# (../shared/machines/amd-zen5-turin-bhyve, 2 s a test) the round-to-round ratios spread
# 0.72-0.87 (seq_read 1 MiB), 0.78-1.03 (seq_write), 0.90-1.47 (rand_read psync) and
# 0.86-1.26 (io_uring qd32): the host between rounds. The same run's sweep repetitions of
# 0.3 s spread 6.9%, 5.7%, 12% and 2.3% (CV), so a 1 s run's own noise (those scaled by
# sqrt(0.3)) is 3.8%, 3.1%, 6.7% and 1.3%, well inside those spreads. A round was 29 s
# there (12 s timed, the rest the 1 GiB file's layout and fio's start), about 20 s at 1 s.
# `adapters pair fio --runtimes 1,2` measures it (docs/methodology.md). Measured on the Zen 3
# guest (2026-11-29, 4 rounds each, docs/benchmarks/suite.md): the ratios' spread 0.012,
# 0.020, 0.056, 0.047 at 1 s against 0.033, 0.072, 0.067, 0.137 at 2 s; 17.6 s a round
# against 25.7.
ROUND_S = {"full": 1, "quick": 1, "tiny": 1}
# adapters pair --runtimes: a length here is a whole number (fio's --runtime, as this
# adapter passes it).
ROUND_WHOLE = True
TESTS = ("seq_write", "seq_write_new", "seq_read", "rand_read")


def hugetlb_free() -> int:
    """Free, unreserved 2 MiB huge pages (PEAKBENCH_MEMINFO or /proc/meminfo; 0 otherwise)."""
    vals = {}
    try:
        with open(os.environ.get("PEAKBENCH_MEMINFO") or "/proc/meminfo") as f:
            for ln in f:
                p = ln.split()
                if len(p) >= 2:
                    vals[p[0]] = p[1]
    except OSError:
        return 0
    if vals.get("Hugepagesize:") != "2048":
        return 0
    return int(vals.get("HugePages_Free:", 0)) - int(vals.get("HugePages_Rsvd:", 0))


def has_uring() -> bool:
    try:
        out = subprocess.run(["fio", "--enghelp"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "io_uring" in out.split()


def job_args(a, file: str, mem: str, uring: bool) -> list:
    """fio's argument list for --mode's sizes, --threads and a paired round's options."""
    # a paired round's --seconds: ours's --runtime (the unpaired sweep: RUNTIME_S)
    size_mib, runtime = SIZE_MIB[a.mode], int(a.seconds) if a.seconds else RUNTIME_S[a.mode]
    threads = [1] if a.mode == "tiny" else a.thread_list()
    args = ["--output-format=json", f"--filename={file}", "--direct=1", "--time_based", f"--runtime={runtime}",
            "--group_reporting", "--randrepeat=0", "--norandommap", f"--mem={mem}"]
    if a.same_data:
        args.append("--scramble_buffers=0")
    if a.cpu:
        args.append(f"--cpus_allowed={a.cpu}")
    rmem = [f"--mem=mmapshared:{a.buffer_dir}/read.buf"] if a.buffer_dir else []
    wmem = [f"--mem=mmapshared:{a.buffer_dir}/write.buf"] if a.buffer_dir else []
    timed = [f"--ramp_time={a.ramp_ms}ms"] if a.ramp_ms and a.ramp_ms != "0" else []
    new_jobs = []
    for t in threads:
        per = max(size_mib // t, 1)
        common = [f"--numjobs={t}", f"--size={per}M", f"--offset_increment={per}M", "--stonewall"]
        if a.want("seq_write"):
            args += [f"--name=seq_write.psync.{t}.1048576", "--rw=write", "--bs=1M", "--ioengine=psync",
                     "--end_fsync=1", "--overwrite=1"] + wmem + common + timed
        # The first write into new blocks: a file of its own per thread count, which fio sets
        # up (preallocated, unwritten) before its first job (fio #1891); one pass. These jobs
        # run last and leave their files to the cleanup: fio's --unlink=1 removed the file
        # the other jobs share as well.
        if a.want("seq_write_new"):
            new_jobs += [f"--name=seq_write_new.psync.{t}.1048576", f"--filename={file}.new{t}", "--rw=write",
                         "--bs=1M", "--ioengine=psync", "--end_fsync=1", "--time_based=0"] + wmem + common
        if a.want("seq_read"):
            args += [f"--name=seq_read.psync.{t}.1048576", "--rw=read", "--bs=1M", "--ioengine=psync"] \
                + rmem + common + timed
        if not a.want("rand_read"):
            continue
        args += [f"--name=rand_read.psync.{t}.4096", "--rw=randread", "--bs=4k", "--ioengine=psync"] \
            + rmem + common + timed
        if uring:
            args += [f"--name=rand_read.io_uring.{t}.4096", "--rw=randread", "--bs=4k", "--ioengine=io_uring",
                     "--iodepth=32"] + rmem + common + timed
    return args + new_jobs


def run(r, a) -> int:
    def skip_all(reason):
        for t in TESTS:
            r.skip(t, reason)
    if not r.have("fio"):
        skip_all("fio not installed (Debian: apt install fio)")
        return r.finish()
    d = a.dir or ""
    if not d and r.plan:
        d = "/tmp/peakbench-fio-plan"
    elif not d:
        d = tempfile.mkdtemp(prefix="peakbench-fio.", dir=os.environ.get("TMPDIR") or "/var/tmp")
        r.cleanups.append(lambda: _rmdir(d))
    if not r.plan:
        os.makedirs(d, exist_ok=True)
    file = os.path.join(d, f"peakbench-fio.{os.getpid()}.dat")
    r.cleanups.append(lambda: _remove_files(file))

    # Hugetlb buffers when diskbench's auto would have them (see the top).
    threads = [1] if a.mode == "tiny" else a.thread_list()
    need = max([40] + [40 + t for t in threads])
    hfree = hugetlb_free()
    if hfree >= need:
        mem = "shmhuge"
        r.say(f"fio's buffers on hugetlb pages (--mem=shmhuge: {hfree} huge pages free, {need} needed), "
              "as diskbench's --buffer-pages auto would choose")
    else:
        mem = "malloc"
        r.say(f"fio's buffers from malloc (--mem=malloc, fio's default: {hfree} huge pages free, "
              f"{need} needed for hugetlb)")
    if a.mem:  # a paired job names the pages diskbench was given
        mem = a.mem
        r.say(f"--mem={mem}, as the paired diskbench job's buffers")
    # The shared buffer files: diskbench made them in its round before (fio would create a
    # missing one empty, and fault on it). fio keeps a file that existed before it ran.
    if a.buffer_dir:
        for f in ("read.buf", "write.buf"):
            try:
                sz = os.stat(os.path.join(a.buffer_dir, f)).st_size
            except OSError:
                sz = 0
            if not r.plan and sz < 1048576:
                r.say(f"--buffer-dir {a.buffer_dir}: no {f} of 1 MiB or more (diskbench --buffer-dir makes it)")
                skip_all(f"no shared buffer file {a.buffer_dir}/{f} (diskbench --buffer-dir makes it)")
                r.finish()
                return 1
        r.say(f"reads into {a.buffer_dir}/read.buf, writes from {a.buffer_dir}/write.buf (--mem=mmapshared), "
              "the paired diskbench job's pages")
    # A paired job whose diskbench writes one repeated block (--data-period = block): fio
    # writes its buffer unchanged, not scrambled before every write (fio's default).
    if a.same_data:
        r.say("--scramble_buffers=0, as the paired diskbench job's --data-period 1MiB")
    # A paired job: fio's jobs on the CPU the paired diskbench runs on (its --cpus). On a VM
    # whose disk interrupts all go to one vCPU, where the thread waiting for them runs
    # changes a 4 KiB read's latency (a cross-CPU wake-up or none).
    if a.cpu:
        r.say(f"--cpus_allowed={a.cpu}, the CPU of the paired diskbench job's thread")
    # A paired job: diskbench warms each point up (up to --min-time of I/O, default 0.2 s)
    # before its timed repetitions, so the timed fio jobs ramp up as long (--ramp_time).
    if a.ramp_ms and a.ramp_ms != "0":
        r.say(f"--ramp_time={a.ramp_ms}ms, as the paired diskbench job's warm-up")
    uring = r.plan or has_uring()
    args = job_args(a, file, mem, uring)
    if not uring:
        r.skip("rand_read", "fio here has no io_uring engine")

    out = os.path.join(r.raw, "fio.json")
    ok = r.run(900, out, ["fio"] + args)
    if not ok and mem == "shmhuge":
        # The pool can shrink between the check and fio's shmget (DPDK takes pages too).
        r.say(f"fio with --mem=shmhuge failed ({last_line(out + '.err')}): again with --mem=malloc")
        args = ["--mem=malloc" if x == "--mem=shmhuge" else x for x in args]
        _remove_files(file)
        ok = r.run(900, out, ["fio"] + args)
    if not ok and uring and "io_uring" in last_line(out + ".err"):
        # fio has the engine but the system refuses it (qemu-user emulates no io_uring, a
        # kernel may disable it): the other jobs again, as where fio has no engine
        why = last_line(out + ".err")
        r.say(f"fio's io_uring engine failed ({why}): again without the io_uring jobs")
        r.skip("rand_read", f"fio's io_uring engine failed here: {why}")
        args = job_args(a, file, "malloc" if "--mem=malloc" in args else mem, False)
        _remove_files(file)
        ok = r.run(900, out, ["fio"] + args)
    if not ok:
        r.say(f"fio failed: {last_line(out + '.err')}")
        skip_all("failed: fio exited non-zero (see fio.json.err)")
        r.finish()
        return 1
    if r.finish():
        r.say(f"cannot read {out}")
        return 1
    return 0




def _remove_files(file: str) -> None:
    d, base = os.path.split(file)
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        if n == base or n.startswith(base + ".new"):
            try:
                os.remove(os.path.join(d, n))
            except OSError:
                pass


def _rmdir(d: str) -> None:
    try:
        os.rmdir(d)
    except OSError:
        pass


def _job(j: dict, gopt: dict) -> str:
    o = dict(gopt)
    o.update(j.get("job options") or {})
    keys = ("rw", "bs", "ioengine", "iodepth", "numjobs", "size", "direct", "mem", "end_fsync",
            "overwrite", "runtime")
    return "fio " + " ".join(f"--{k}={o[k]}" for k in keys if k in o)


def parse(path: str, ctx: dict) -> tuple:
    """fio --output-format=json -> disk rows (job names TEST.ENGINE.THREADS.BLOCK; io_uring
    at depth D is diskbench's variant uring-qdD)."""
    doc = load_json(path, ("fio version", "jobs"))
    ver = doc["fio version"]
    gopt = doc.get("global options") or {}
    rows = []
    for j in doc["jobs"]:
        if j.get("error", 0) != 0:
            continue
        parts = j["jobname"].split(".")
        if len(parts) != 4:
            continue
        test, eng, thr, bs = parts[0], parts[1], int(parts[2]), int(parts[3])
        opts = dict(gopt)
        opts.update(j.get("job options") or {})
        variant = f"uring-qd{opts.get('iodepth', '32')}" if eng == "io_uring" else eng
        io = j["write"] if "write" in test else j["read"]
        mem = opts.get("mem", "malloc")
        config = f"mem={mem};direct={opts.get('direct', '0')};runtime_ms={io.get('runtime')}"
        if "huge" in mem:
            config += ";buffer_pages=hugetlb"
        elif mem.startswith("mmapshared:"):  # diskbench's --buffer-dir files: the same pages
            config += ";buffer_pages=shared"
        job = _job(j, gopt)

        def add(metric, unit, v, **st):
            rows.append(row(TOOL, ver, ("disk", test, variant, thr, bs, metric, unit), v,
                            job=job, config=config, **st))
        if test.startswith("rand"):
            add("iops", "IOPS", io["iops"])
        add("throughput", "MB/s", io["bw_bytes"] / 1e6)
        pc = (io.get("clat_ns") or {}).get("percentile") or {}

        def p(k):
            return pc[k] / 1000 if k in pc else None
        add("latency", "us", io["clat_ns"]["mean"] / 1000,
            stddev=io["clat_ns"].get("stddev", 0) / 1000 or None,
            min=io["clat_ns"].get("min", 0) / 1000 or None, max=io["clat_ns"].get("max", 0) / 1000 or None,
            p50=p("50.000000"), p90=p("90.000000"), p99=p("99.000000"), p999=p("99.900000"))
    return ver, rows


def baseline_extra(o, disk_dir: str) -> list:
    """The unpaired step's options past --mode, --threads and --raw."""
    return ["--dir", disk_dir]


def pair_jobs(e) -> list:
    """The paired disk job (plan_pairs.PairEnv E): diskbench and fio on the same file size,
    blocks, engines, pages and CPU."""
    from .pairing import PairJob, hugetlb_room, pair_cpus, shared_buffer_dir, thp_available
    o, mode, key, one = e.o, e.mode, e.key, e.one
    if "disk" not in e.want or not e.have("fio"):
        return []
    huge = hugetlb_room(o, 41)
    shared = "" if huge else shared_buffer_dir(o)
    fsize = {"full": "1GiB", "quick": "256MiB", "tiny": "16MiB"}[mode]
    # one run of each test a side (fio's time_based jobs; diskbench --runtime, --reps 1)
    runtime = e.round_value(ROUND_S)
    # A 1 MiB transfer's speed on a VM disk follows its buffer's DMA segments: on 4 KiB
    # pages, as many as the pages' physical order makes (docs/benchmarks.md, fifth session:
    # 9-67 in one process, 244-257 in another, a 2x). The same job is the same pages: huge
    # pages from the hugetlb pool on both sides when it has room, else diskbench's
    # --buffer-dir files on tmpfs, which fio maps too (--mem=mmapshared), so both tools do
    # their I/O from the very same physical pages. Without /dev/shm: scattered 4 KiB pages,
    # the layout fio's malloc buffer mostly has, with the cause.
    pages = ["--buffer-pages", "hugetlb"] if huge else ["--buffer-dir", shared] if shared else \
        ["--buffer-pages", "scattered"]
    # Both on one CPU (diskbench --cpus, fio --cpus_allowed): each left to the scheduler, the
    # I/O thread lands near the disk's interrupts or not (a VM's virtio queue interrupts
    # often all go to one vCPU), measured 10-11k against 14-17k 4 KiB reads a second on this
    # VM, for either tool (docs/benchmarks.md, sixth session).
    cpu0 = str(pair_cpus()[0])
    # two parts, so that each test runs only the blocks and engines it is paired on
    base = ["diskbench", "--dir", e.disk_dir, "--file-size", fsize, "--runtime", runtime,
            "--threads", "1", "--cpus", cpu0] + pages + one("diskbench", False)
    # --data-period 1MiB with fio's --scramble_buffers=0: both write one unchanging megabyte,
    # the same data (docs/benchmarks/disk.md: distinct vs repeated data is worth about 10% on
    # a VM disk, and fio's default scrambles its buffer per write). --sync fsync: the call
    # fio's --end_fsync=1 makes (docs/disk.md).
    seq = base[:1] + ["--test", "seq_write,seq_read", "--block", "1MiB", "--engine", "psync",
                      "--data-period", "1MiB", "--sync", "fsync"] + base[1:]
    rand = base[:1] + ["--test", "rand_read", "--block", "4KiB", "--engine", "all"] + base[1:]
    sjob, rjob = " ".join(map(str, seq)), " ".join(map(str, rand))
    # diskbench's warm-up before each point's repetitions: up to --min-time of I/O (its
    # default 0.2 s); fio ramps up as long before it counts
    ramp_ms = round(float(o.min_time or "0.2") * 1000)
    rkey = key("disk", "seq_read", "psync", 1, 1 << 20, "throughput", "MB/s")
    # Our best beside, where the kernel gives huge pages the pairing did not use (THP): a
    # 1 MiB transfer in one DMA segment.
    with_best = not huge and thp_available(o)
    best_seq = seq[:seq.index(pages[0])] + ["--buffer-pages", "auto"] + seq[seq.index(pages[0]) + 2:]
    small_cause = "" if huge or shared else (
        "both on 4 KiB pages, whose physical order sets the DMA segments of a 1 MiB transfer: "
        "diskbench's scattered buffer has 256 every time, fio's malloc buffer as many as the kernel's "
        "free lists gave (measured 244-257, once 32)")
    figs = [dict({"key": rkey, "ours_job": sjob, "cause": small_cause},
                 **({} if not with_best else {
                     "best_key": rkey, "best_job": " ".join(map(str, best_seq)),
                     "best_cause": "diskbench's best takes the transparent huge pages the kernel gives "
                                   "(--buffer-pages auto): a 1 MiB transfer is one DMA segment, on fio's "
                                   "4 KiB pages up to 256"})),
            {"key": key("disk", "seq_write", "psync", 1, 1 << 20, "throughput", "MB/s"), "ours_job": sjob,
             "cause": small_cause},
            {"key": key("disk", "rand_read", "psync", 1, 4096, "iops", "IOPS"), "ours_job": rjob, "cause": ""},
            {"key": key("disk", "rand_read", "uring-qd32", 1, 4096, "iops", "IOPS"), "ours_job": rjob, "cause": ""}]
    mem = ["--mem", "shmhuge"] if huge else ["--buffer-dir", shared] if shared else ["--mem", "malloc"]
    fio_mem = "shmhuge" if huge else f"mmapshared:{shared}/{{read,write}}.buf" if shared else "malloc"
    return [PairJob("fio", "fio", "disk", e.script("fio", "--threads", "1", "--dir", e.disk_dir, "--tests",
                                                   "seq_write,seq_read,rand_read", *mem, "--same-data",
                                                   "--ramp-ms", str(ramp_ms), "--cpu", cpu0,
                                                   "--seconds", runtime),
                    f"fio --direct=1 --numjobs=1 --cpus_allowed={cpu0} --size={fsize} --runtime={runtime} "
                    f"--mem={fio_mem} --scramble_buffers=0 --ramp_time={ramp_ms}ms "
                    f"(seq 1M psync, rand 4k psync and io_uring qd32)",
                    figs, [("seq", seq), ("rand", rand)], [("seq", best_seq)] if with_best else [],
                    # a side's seconds on the Zen 5 record at 2 s: fio 13-14 (four tests, their
                    # layout and ramp), each part of ours 7-8 (two tests)
                    est=int(float(runtime) * 4 + 5), ours_est=int(float(runtime) * 2 + 3.5))]
