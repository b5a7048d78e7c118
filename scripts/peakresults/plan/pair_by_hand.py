"""One paired job by hand (what disk/bench_vs_fio.sh and memory/bench_vs_likwid.sh did):

  python3 scripts/peakresults/adapters pair JOB [--rounds N] [--quick|--tiny]
      [--build-dir DIR] [--disk-dir DIR] [--out DIR] [--runtimes LIST]

JOB is a paired job of the plan (fio, likwid-flops, likwid-mem, hpcc, iperf3-tcp,
iperf3-udp, sockperf: each adapter's pair_jobs), derived from ours as run_all.sh derives it.
N rounds (default 9), ours and the tool alternating (odd rounds ours first), written as
run_all.sh writes them (OUT/raw/pairs/JOB/, default a new folder under TMPDIR, kept); then
each figure's median of the per-round ratios ours/tool with its min-max, each round's pair
and the medians of each side. A benchmark, not a test: run it alone, e.g.
  flock /tmp/peakbench-bench.lock python3 scripts/peakresults/adapters pair fio --rounds 9
No placement fingerprints (pairs.py counts every complete round) and no best configuration.

--runtimes LIST (e.g. 0.5,1,2; seconds, or hpcc's N): the job's ratio stability against its
round length (issue 42: each adapter's ROUND_S, hpcc's N, rests on it). Every round runs the
job once at each length, in an order turned by one each round, into OUT/raw/pairs/JOB@LENGTH/;
then per length: the median ratio with its interval, its verdict (pairs_settle), the spread of
the ratios (median absolute deviation over the median) and the seconds a round took. The length
to keep is the shortest whose verdict is the longest's and whose spread is not much wider:
  flock /tmp/peakbench-bench.lock python3 scripts/peakresults/adapters pair fio --runtimes 1,2,3 --rounds 9
fio's, iperf3's and sockperf's lengths are whole seconds and hpcc's N a whole number (their
adapters' ROUND_WHOLE): a fraction for them is a usage error.
Exit 0, 1 when a side failed in every round, 2 on a usage error."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .. import adapters
from ..pairs import pairs, pairs_settle
from . import plan, plan_pairs

ADAPTERS = os.path.dirname(os.path.abspath(adapters.__file__))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"peakresults adapters pair: {message}", file=sys.stderr)
        sys.exit(2)


def find_bin(build: str, name: str) -> str | None:
    """NAME's executable under BUILD (as run_all.sh's find_bin)."""
    for root, dirs, files in sorted(os.walk(build)):
        dirs[:] = sorted(d for d in dirs if d != "CMakeFiles")
        if name in files and os.access(os.path.join(root, name), os.X_OK):
            return os.path.join(root, name)
    return None


def side_argv(argv: list, build: str) -> list:
    """Our part's command with its binary from BUILD."""
    argv = [str(a) for a in argv]
    path = find_bin(build, argv[0])
    if not path:
        raise FileNotFoundError(f"{argv[0]} not built under {build}")
    return [path] + argv[1:]


def run_round(job, d: str, k: int, build: str) -> None:
    def ours():
        for part, argv in job.ours:
            name = f"r{k}-ours{'-' + part if part else ''}"
            with open(os.path.join(d, name + ".err"), "w") as err:
                subprocess.run(side_argv(argv, build) + ["--format", "json", "--output",
                                                                os.path.join(d, name + ".json")],
                               stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)

    def tool():
        argv = ["python3", ADAPTERS] + job.tool_argv[2:] + [
            "--raw", os.path.join(d, f"r{k}-tool.d"), "--json", os.path.join(d, f"r{k}-tool.json")]
        with open(os.path.join(d, f"r{k}-tool.err"), "w") as err:
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    for side in ((ours, tool) if k % 2 else (tool, ours)):
        side()


def fmt(v) -> str:
    return "-" if v is None else f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"


def report(d: str) -> int:
    recs = pairs.job_records(d, best=False)
    rc = 0
    for r in recs:
        print(f"{r['suite']} {r['test']} {r['variant']} {r['threads']} thr {r['block_bytes'] or ''} "
              f"{r['metric']} ({r['unit']}): ours/{r['tool']} median of per-round ratios {fmt(r['ratio_median'])} "
              f"(min-max {fmt(r['ratio_min'])}-{fmt(r['ratio_max'])}, {r['n_pairs']} pairs"
              f"{', ' + r['flags'] if r['flags'] else ''})")
        for x in r["rounds"]:
            print(f"    round {x['round']}: ours {fmt(x['ours'])} tool {fmt(x['tool'])} ratio {fmt(x['ratio'])}"
                  f"{'  ' + x['error'] if x['error'] else ''}")
        print(f"    medians: ours {fmt(r['ours_median'])} | {r['tool']} {fmt(r['tool_median'])}")
        rc = rc or (1 if not r["n_pairs"] else 0)
    return rc


def spread(xs: list) -> float | None:
    """The ratios' median absolute deviation over their median (None below two)."""
    m = pairs_settle.median(xs)
    if len(xs) < 2 or not m:
        return None
    return pairs_settle.median([abs(x - m) for x in xs]) / m


def report_runtimes(out: str, job_id: str, lengths: list, secs: dict, rounds: int) -> int:
    """One line per figure and length: median [interval], verdict, spread, seconds a round."""
    rc = 0
    by_len = {x: pairs.job_records(os.path.join(out, "raw", "pairs", f"{job_id}@{x}"), best=False) for x in lengths}
    for i, first in enumerate(by_len[lengths[0]]):
        print(f"{first['suite']} {first['test']} {first['variant']} {first['threads']} thr "
              f"{first['block_bytes'] or ''} {first['metric']}: ours/{first['tool']} by round length")
        for x in lengths:
            recs = by_len[x]
            r = recs[i] if i < len(recs) else None
            xs = r["ratios"] if r else []
            v = pairs_settle.settle(xs, len(xs))
            sp = spread(xs)
            print(f"    {x:>6}: {v.words()}; spread {fmt(sp)}; {secs[x] / rounds:.1f} s a round"
                  f" ({' '.join(fmt(y) for y in xs)})")
            rc = rc or (1 if not xs else 0)
    return rc


class LengthNotTaken(ValueError):
    """A --runtimes length the job's tool cannot run (a fraction where it takes whole
    seconds): a usage error."""


def build_job(a, out: str, runtime=None):
    """(the options, the job A.job of the plan (None when the plan has none), all the jobs'
    ids), with the round length RUNTIME when given."""
    opts = ["--out", out, "--build-dir", a.build_dir, "--no-build"] + (["--quick"] if a.quick else []) + \
        (["--tiny"] if a.tiny else []) + (["--disk-dir", a.disk_dir] if a.disk_dir else [])
    o = plan.parse_options(opts)
    disk_dir = o.disk_dir or os.path.join(o.out, "disk-tmp")
    e = plan_pairs.PairEnv(o, set(o.suites), disk_dir)
    by_adapter = {name: adapters.get(name).pair_jobs(e) for name in adapters.PAIR_ORDER}
    ids = [j.id for jobs in by_adapter.values() for j in jobs]
    owner = next((name for name, jobs in by_adapter.items() if a.job in {j.id for j in jobs}), None)
    if owner is None:
        return o, None, ids
    # The length measured goes to the job's own adapter only: another's may not take it
    # (hpcc's N is a whole number, a 0.5 s round is not).
    if runtime is not None and getattr(adapters.get(owner), "ROUND_WHOLE", False) and not runtime.isdigit():
        raise LengthNotTaken(f"--runtimes: '{runtime}': {a.job}'s round lengths are whole numbers "
                             f"({owner}'s ROUND_WHOLE: its tool takes no fraction)")
    o.pair_round = runtime
    job = next(j for j in adapters.get(owner).pair_jobs(e) if j.id == a.job)
    return o, job, ids


def main(argv: list) -> int:
    p = _Parser(prog="peakresults adapters pair")
    p.add_argument("job")
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--build-dir", default="build")
    p.add_argument("--disk-dir")
    p.add_argument("--out")
    p.add_argument("--runtimes")
    a = p.parse_args(argv)
    if a.rounds < 1:
        p.error(f"--rounds: {a.rounds} is not a count")
    lengths = [None]
    if a.runtimes is not None:
        lengths = a.runtimes.split(",")
        for x in lengths:
            try:
                ok = float(x) > 0
            except ValueError:
                ok = False
            if not ok:
                p.error(f"--runtimes: '{x}' is not a positive length (seconds, or hpcc's N)")
    out = os.path.abspath(a.out or tempfile.mkdtemp(prefix="peakbench-pair."))
    try:
        built = {x: build_job(a, out, x) for x in lengths}
    except LengthNotTaken as e:
        if not a.out:
            os.rmdir(out)
        p.error(str(e))
    o, job, ids = built[lengths[0]]
    if job is None:
        if not a.out:
            os.rmdir(out)
        p.error(f"no paired job '{a.job}' here (the jobs of the installed tools: {', '.join(ids) or 'none'})")
    disk_dir = o.disk_dir or os.path.join(o.out, "disk-tmp")
    dirs = {}
    for x, (_, j, _) in built.items():
        d = os.path.join(out, "raw", "pairs", job.id + (f"@{x}" if x else ""))
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "job.json"), "w") as f:
            json.dump(j.doc(a.rounds), f, indent=1)
        dirs[x] = d
    made_disk = not os.path.exists(disk_dir)
    bufdirs = {str(argv[i + 1]) for _, (_, j, _) in built.items() for _, argv in j.ours
               for i, x in enumerate(argv[:-1]) if x == "--buffer-dir"}
    print(f"{job.id}: {a.rounds} rounds, ours then {job.tool} in odd rounds; {job.tool_job}; results in "
          f"{os.path.dirname(dirs[lengths[0]])}" + (f"; round lengths {a.runtimes}" if a.runtimes else ""),
          file=sys.stderr)
    secs = {x: 0.0 for x in lengths}
    try:
        os.makedirs(disk_dir, exist_ok=True)
        for k in range(1, a.rounds + 1):
            turn = (k - 1) % len(lengths)
            for x in lengths[turn:] + lengths[:turn]:
                t0 = time.monotonic()
                run_round(built[x][1], dirs[x], k, os.path.abspath(a.build_dir))
                secs[x] += time.monotonic() - t0
    except FileNotFoundError as e:
        print(f"peakresults adapters pair: {e}", file=sys.stderr)
        return 1
    finally:
        for b in bufdirs:
            shutil.rmtree(b, ignore_errors=True)
        if made_disk:
            shutil.rmtree(disk_dir, ignore_errors=True)
    if a.runtimes:
        return report_runtimes(out, job.id, lengths, secs, a.rounds)
    return report(dirs[None])
