"""The reference tools' adapters (scripts/peakresults/adapters) on recorded plans, without
running a tool: each paired job's tool side derived from ours as recorded, the command lines
each adapter prints for each step (--plan) as the shell scripts before them printed them
(tests/fixtures/adapters/plans.json), a missing tool as skipped entries with the reason,
and one-line usage errors."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults import adapters  # noqa: E402
from peakresults.adapters import hpcc as hpcc_adapter  # noqa: E402
from peakresults.adapters import common, pairing  # noqa: E402
from peakresults.plan import plan  # noqa: E402

SYS = os.path.join(REPO, "tests", "fixtures", "sysroot-full")
ADAPTERS = os.path.join(REPO, "scripts", "peakresults", "adapters")
with open(os.path.join(REPO, "tests", "fixtures", "adapters", "plans.json")) as _f:
    RECORDED = json.load(_f)["jobs"]
ENV = dict(os.environ, PEAKBENCH_CPUINFO=os.path.join(SYS, "proc", "cpuinfo"),
           PEAKBENCH_MEMINFO=os.path.join(SYS, "proc", "meminfo"))
UID = str(os.getuid())


def mask(text: str) -> str:
    text = re.sub(r"-p [0-9]+", "-p PORT", text)
    text = re.sub(r"peakbench-fio\.[0-9]+", "peakbench-fio.PID", text)
    return text.replace(f"peakbench-buffers.{UID}.", "peakbench-buffers.UID.")


def two_cpus():
    """The adapter's process on two CPUs, as the recording (its thread counts are capped there)."""
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])


def adapter(*argv, env=None, path=None):
    e = dict(env or ENV)
    if path is not None:
        e["PATH"] = path
    return subprocess.run([sys.executable, ADAPTERS] + list(argv), capture_output=True, text=True, env=e,
                          preexec_fn=two_cpus)


def strip_files(argv: list) -> list:
    """A tool step's adapter options without --raw and --json (where a round's files go)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in ("--raw", "--json"):
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


class RecordedPlans(unittest.TestCase):
    def setUp(self):
        if len(os.sched_getaffinity(0)) < 2:
            self.skipTest("one CPU: the recorded plans have two")
        self.saved = pairing.pair_cpus, hpcc_adapter.vector_isa
        pairing.pair_cpus = lambda: (0, 1)
        hpcc_adapter.vector_isa = lambda: ("sse2", "measured")

    def tearDown(self):
        pairing.pair_cpus, hpcc_adapter.vector_isa = self.saved

    def test_pair_jobs_derived_as_recorded(self):
        # each paired job's tool side, derived from our job (pages, CPUs, sizes, seconds)
        # (the full protocol at the --min-time it had when recorded: fio ramps up as long)
        for mode in ("full", "quick", "tiny"):
            o = plan.parse_options((["--min-time", "0.2"] if mode == "full" else [f"--{mode}"]) + [
                "--have", ",".join(adapters.NAMES), "--ncpu", "2", "--sysroot", SYS,
                "--out", "/tmp/peakbench-plan-test", "--no-build"])
            plan.build_plan(o)
            rec = {j["step"]: j["argv"] for j in RECORDED if j["mode"] == mode}
            self.assertEqual(len(o.pair_jobs), 8)  # with oneDNN INT8 (the sysroot has avx512_vnni)
            for job in o.pair_jobs:
                self.assertEqual(job.tool_argv[:2], ["python3", "scripts/peakresults/adapters"])
                got = [a.replace(f"peakbench-buffers.{UID}.", "peakbench-buffers.UID.") for a in job.tool_argv[2:]]
                self.assertEqual(got, rec[f"{job.id} r1 {job.tool}"], job.id)
            # the unpaired steps: each adapter's own options past --mode and --threads
            for s in plan.baseline_steps(o, set(o.suites), os.path.join(o.out, "disk-tmp")):
                self.assertEqual(strip_files(s.argv[2:]), rec[s.name], s.name)

    def test_commands_as_the_scripts_printed(self):
        # the tool command lines (and why each option, on stderr) are the old scripts'
        for j in RECORDED:
            r = adapter(*[a.replace("peakbench-buffers.UID.", f"peakbench-buffers.{UID}.") for a in j["argv"]],
                        "--plan")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual([mask(ln) for ln in r.stdout.splitlines()], j["commands"], j["argv"])
            said = [re.sub(r"^[a-z0-9]+: ", "", mask(ln)) for ln in r.stderr.splitlines()]
            self.assertEqual(said, j["said"], j["argv"])


class Adapters(unittest.TestCase):
    def test_each_adapter_declares_itself(self):
        for name in adapters.NAMES:
            ad = adapters.get(name)
            self.assertEqual(ad.NAME, name)
            for attr in ("TOOL", "PROGRAM", "SUITES", "run", "parse", "pair_jobs", "baseline_extra"):
                self.assertTrue(hasattr(ad, attr), f"{name}.{attr}")
        with self.assertRaises(KeyError):
            adapters.get("qperf")

    def test_missing_tool_is_skipped_with_reason(self):
        # no tool on PATH: exit 0, no row, each test skipped ("<tool> not installed ...")
        with tempfile.TemporaryDirectory() as d:
            empty = os.path.join(d, "bin")
            os.mkdir(empty)
            for name in adapters.NAMES:
                raw = os.path.join(d, name)
                r = adapter(name, "--mode", "tiny", "--raw", raw, path=empty)
                self.assertEqual(r.returncode, 0, r.stderr)
                with open(os.path.join(raw, f"baseline-{name}.json")) as f:
                    doc = json.load(f)
                self.assertEqual((doc["schema"], doc["rows"], doc["tool"]),
                                 (common.BASELINE_SCHEMA, [], adapters.get(name).TOOL))
                self.assertTrue(doc["skipped"])
                for s in doc["skipped"]:
                    self.assertIn("not installed", s["reason"])
                self.assertFalse([f for f in os.listdir(raw) if f != f"baseline-{name}.json"], name)

    def test_usage_errors(self):
        for argv, said in ((["fio", "--mode", "huge"], "--mode: 'huge' is not full, quick or tiny"),
                           (["likwid", "--min-seconds", "0"], "--min-seconds: '0' is not a positive number"),
                           (["likwid", "--min-seconds", "fast"], "is not a positive number"),
                           (["fio", "--ramp-ms", "0.2"], "--ramp-ms: '0.2' is not a whole number of milliseconds"),
                           (["sockperf", "--cpu", "x"], "--cpu: 'x' is not a CPU number"),
                           (["iperf3", "--server-cpu", "x"], "--server-cpu: 'x' is not a CPU number"),
                           (["fio", "--buffer-dir"], "--buffer-dir needs a value"),
                           (["fio", "--frob"], "unknown option '--frob'"),
                           (["fio", "--parse"], "--parse needs at least one file"),
                           (["qperf"], "the first argument is a tool"),
                           (["pair", "nosuch", "--tiny"], "no paired job 'nosuch' here"),
                           (["pair", "fio", "--rounds", "0"], "--rounds: 0 is not a count")):
            r = adapter(*argv)
            self.assertEqual(r.returncode, 2, argv)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn(said, r.stderr)

    def test_options(self):
        a = common.Args(["--mode", "quick", "--threads", "1,2,64", "--tests", "seq_read", "--ctx", "a=1",
                         "--ctx", "b=2", "--same-data"])
        self.assertEqual((a.mode, a.thread_list(), a.same_data, a.ctx_dict()),
                         ("quick", [1, 2, 64], True, {"a": "1", "b": "2"}))
        self.assertTrue(a.want("seq_read"))
        self.assertFalse(a.want("seq_write"))
        self.assertNotIn(64, a.threads_upto_cpus())
        a = common.Args(["--parse", "x.json", "--ctx", "msg=32", "y.json", "--set", "threads=3"])
        self.assertEqual((a.parse, a.ctx, a.set), (["x.json", "y.json"], ["msg=32"], ["threads=3"]))


if __name__ == "__main__":
    unittest.main()
