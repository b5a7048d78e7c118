#!/usr/bin/env bash
# mpi_p2p with its defaults (OSU's iteration counts and window, no --max-iters) through a
# tbf-shaped link of 200 Mbit/s (node 2), the ranks held to fewer CPUs than there are ranks
# (taskset on mpirun: its daemons and ranks inherit the set):
# - every point is bounded by time: no row ran more than OSU's count a repetition, and the
#   shaped pair's 4 MiB bandwidth row ran a window of 1 (one message there lasts longer
#   than an eighth of --min-time; osu_bw's 64 would be 11 s an iteration). Two pairs of
#   the three (--pairs 0-1,0-2): node 1 with the shaped node 2 and with the unshaped node 3,
#   all three ranks in the job; the third pair, node 2 with node 3, is shaped as the first
#   and cost 5 s of 16 proving nothing more (issue 42);
# - the sharing is found: every row flagged ranks_share_cpus, the context says how many
#   ranks on how many CPUs, and stderr has the one line saying the waits yield;
# - progress comes as it goes: a point's line is on stderr while mpirun still runs, and
#   there is one line per point;
# - --point-budget with --ci: every point stops at --reps, flagged budget_stopped, its n
#   under --max-reps; --quiet prints no progress. On the unshaped pair (node 1 - node 3):
#   each repetition lasts at least --min-time, so three of them always spend the 0.3 s
#   budget, and a point costs 0.4 s, not the shaped link's 1-2 s;
# - mpi_coll, whose blocking collectives clusterbench cannot make yield, says why in one line
#   (even with --quiet); under --mca mpi_yield_when_idle 1 it says OpenMPI yields. The line
#   comes at the start and its rows are not read: one repetition of the shortest --min-time.
# usage: mpi_slow_link.sh CLUSTERBENCH [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
K=${2:-3}
SLOW=2
command -v taskset >/dev/null 2>&1 || skip "no taskset (util-linux)"
NCPU=$((K - 1))
CPUS=$(python3 -c "import os,sys; c=sorted(os.sched_getaffinity(0)); print(','.join(map(str, c[:int(sys.argv[1])])))" "$NCPU")
[ "$(echo "$CPUS" | tr ',' '\n' | wc -l)" -ge 1 ] || skip "no CPU to pin to"
NCPU=$(echo "$CPUS" | tr ',' '\n' | wc -l)
cluster_up "$K"
shape_node "$SLOW" 200mbit
echo "# none" >"$tmp/peaks.conf"
export PEAKBENCH_CONF=$tmp/peaks.conf
mpi() { # output err [mpirun args] -- clusterbench args...
	local out=$1 err=$2 margs=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		margs+=("$1")
		shift
	done
	shift
	# shellcheck disable=SC2086
	timeout 170 taskset -c "$CPUS" mpirun $MPIRUN_ARGS "${margs[@]}" -x PEAKBENCH_CONF \
		--hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" --names "$HOSTFILE" \
		--latency-duration 0.1 --format json --output "$out" "$@" >"$tmp/run.log" 2>"$err"
}
# 8 B (the latency's progress line) and 4 MiB (the shaped window): 64 KiB between them
# proved nothing more and cost a third of the run (issue 42).
mpi "$tmp/p2p.json" "$tmp/run.err" -- --test mpi_p2p --sizes 8,4MiB --pairs 0-1,0-2 &
job=$!
seen=0
while kill -0 "$job" 2>/dev/null; do
	if grep -q '^cluster mpi_p2p_latency mpi block=8B: ' "$tmp/run.err" 2>/dev/null; then
		seen=1
		break
	fi
	sleep 0.2
done
rc=0
wait "$job" || rc=$?
[ "$rc" = 0 ] || fail "clusterbench exited $rc"
[ "$seen" = 1 ] || fail "no progress line while the run went on"
python3 - "$tmp/p2p.json" "$tmp/run.err" "$NET.$SLOW" "$K" "$NCPU" <<'PY' || fail "the slow link's run"
import json, re, sys
doc = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read().splitlines()
slow, k, ncpu = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rows = doc["results"]
npairs = 2  # --pairs 0-1,0-2
assert len(rows) == npairs * 3 * 2 + 2, f"{len(rows)} rows"  # 3 tests a pair and msgrate, 2 sizes
assert any(r["test"] == "mpi_p2p_bw" and r["block_bytes"] == 4 << 20 and slow in (r["host"], r["peer"])
           for r in rows), "no shaped 4 MiB bandwidth row"
# OSU's counts (osu_util.h): the most a repetition runs.
most = {("mpi_p2p_latency", True): 10000, ("mpi_p2p_latency", False): 1000}
bad = []
for r in rows:
    flags = r["flags"].split(";")
    small = r["block_bytes"] <= 8192
    cap = most.get((r["test"], small), 100 if small else 20)
    iters = int(next(f for f in flags if f.startswith("iterations="))[11:])
    if iters > cap * r["n"]:
        bad.append(f'{r["test"]} {r["block_bytes"]}: {iters} iterations over {cap} x {r["n"]}')
    if "ranks_share_cpus" not in flags:
        bad.append(f'{r["test"]} {r["host"]}-{r["peer"]} not flagged ranks_share_cpus')
    if (r["test"] == "mpi_p2p_bw" and r["block_bytes"] == 4 << 20
            and slow in (r["host"], r["peer"]) and "window=1" not in flags):
        bad.append(f'shaped {r["host"]}-{r["peer"]} 4 MiB: {r["flags"]}')
share = doc["context"].get("cluster.ranks_share_cpus", "")
if not share.startswith(f"{k} ranks on {ncpu} CPU"):
    bad.append(f"cluster.ranks_share_cpus: '{share}'")
lines = [l for l in err if l.startswith("cluster ranks_share_cpus: ")]
if len(lines) != 1 or "yield" not in lines[0]:
    bad.append(f"the sharing line: {lines}")
points = [l for l in err if re.match(r"cluster mpi_p2p_\w+ mpi block=", l)]
if len(points) != len(rows):
    bad.append(f"{len(points)} progress lines for {len(rows)} points")
if bad:
    sys.exit("; ".join(bad))
print(f"{len(rows)} rows within OSU's counts, {len(points)} progress lines; {lines[0]}")
PY
# A budget: --ci that no three repetitions meet, stopped by --point-budget at --reps.
mpi "$tmp/budget.json" "$tmp/budget.err" -- --test mpi_p2p --sizes 4MiB --pairs 0-2 --ci 0.001 \
	--max-reps 30 --point-budget 0.3 --quiet || fail "the budget run exited $?"
python3 - "$tmp/budget.json" "$tmp/budget.err" <<'PY' || fail "--point-budget"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
err = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("cluster ")]
assert len(rows) == 4, f"{len(rows)} rows"
for r in rows:
    flags = r["flags"].split(";")
    assert "budget_stopped" in flags and 3 <= r["n"] < 30, (r["test"], r["n"], r["flags"])
assert not err, f"--quiet printed progress: {err[:2]}"
print("budget_stopped:", ", ".join(f'{r["test"]} n={r["n"]}' for r in rows))
PY
# mpi_coll: the collectives spin unless OpenMPI was started yielding; the line says which.
mpi "$tmp/coll.json" "$tmp/coll.err" -- --test mpi_coll --sizes 8 --reps 1 --min-time 0.01 \
	--quiet || fail "mpi_coll exited $?"
mpi "$tmp/coll-y.json" "$tmp/coll-y.err" --mca mpi_yield_when_idle 1 -- --test mpi_coll --sizes 8 \
	--reps 1 --min-time 0.01 ||
	fail "mpi_coll under mpi_yield_when_idle exited $?"
line=$(grep '^cluster ranks_share_cpus: ' "$tmp/coll.err") || fail "mpi_coll: no line on the sharing"
[ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || fail "mpi_coll: more than one line: $line"
case $line in
*"cannot make them yield"*"--mca mpi_yield_when_idle 1"*) ;;
*) fail "mpi_coll: the line does not say why the collectives spin: $line" ;;
esac
grep -q '^cluster ranks_share_cpus: .*OpenMPI yields when idle' "$tmp/coll-y.err" ||
	fail "mpi_coll under mpi_yield_when_idle: $(grep ranks_share "$tmp/coll-y.err")"
echo "$line"
echo "PASS: every point within OSU's counts and --min-time, the shaped link at window 1, ranks_share_cpus found, progress as it goes, --point-budget stops at --reps"
