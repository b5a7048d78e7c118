"""What the tests of run_all.sh's plan share (test_plan.py, test_plan_pairs.py): a fake machine
(tests/fixtures/sysroot-full, two CPUs, no built binary, no tool) and the plan's steps on it."""
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from peakresults.plan import plan  # noqa: E402

SYSROOT = os.path.join(REPO, "tests", "fixtures", "sysroot-full")
# (no built binaries: options another change adds, such as --ci, are not passed)
NOBUILD = os.path.join(REPO, "tests", "fixtures", "no-such-build")
BASE = ["--out", "/tmp/peakbench-plan-test", "--ncpu", "2", "--sysroot", SYSROOT, "--build-dir", NOBUILD,
        "--have", "none"]


def steps_of(*args):
    o = plan.parse_options(list(args) + BASE)
    return o, plan.build_plan(o)


def names(steps):
    return [s.name for s in steps]
