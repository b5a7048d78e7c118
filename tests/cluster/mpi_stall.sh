#!/usr/bin/env bash
# An MPI test that makes no progress (the rank of node 2 stopped with SIGSTOP once the test
# has printed its first point): a rank still running sees no iteration for --timeout
# seconds and ends the job, exit 1, with one line naming where it stood ("no progress for
# 4 s (--timeout) in mpi_p2p pair 1/3 A - B, mpi_p2p_bw 64KiB, repetition 2"), the points
# finished before it still on disk (mpi_coll), nothing left running. For mpi_p2p and
# mpi_coll in turn. --timeout 4: a healthy rank beside other tests on 2 CPUs (this test
# holds only the lock cluster_nodes) iterates well within it. mpi_coll runs two sizes (4 B,
# then 8 B, where it stalls): the barrier's row and allreduce's first on disk before the
# stop, as with every size, without the 1 B and 2 B points' second before it.
# usage: mpi_stall.sh CLUSTERBENCH [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
K=${2:-3}
VICTIM=2
cluster_up "$K"
stall() { # test first-progress-pattern [clusterbench args]
	local test=$1 want=$2 json=$tmp/$1.json err=$tmp/$1.err
	shift 2
	# shellcheck disable=SC2086
	timeout 150 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
		--names "$HOSTFILE" --test "$test" --timeout 4 --latency-duration 0.1 \
		--format json --output "$json" "$@" >"$tmp/run.log" 2>"$err" &
	local job=$! stopped="" rc=0 p
	for _ in $(seq 1 600); do
		grep -q "$want" "$err" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "$want" "$err" || fail "$test: no progress line before the stop"
	for p in $(ip netns pids "$(ns_of_node "$VICTIM")"); do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = clusterbench ]; then
			kill -STOP "$p" && stopped=$p
		fi
	done
	[ -n "$stopped" ] || fail "$test: no clusterbench rank in node $VICTIM's namespace"
	wait "$job" || rc=$?
	kill -9 "$stopped" 2>/dev/null
	[ "$rc" = 1 ] || fail "$test: mpirun exited $rc, want 1"
	local line
	line=$(grep -m1 '^clusterbench: ' "$err") || fail "$test: no clusterbench line"
	case $line in
	*": no progress for 4 s (--timeout) in $test"*) ;;
	*) fail "$test: the line does not say where it stood: $line" ;;
	esac
	echo "$test: $line"
}
stall mpi_p2p '^cluster mpi_p2p_latency mpi block=1B: '
stall mpi_coll '^cluster mpi_coll_allreduce mpi all block=4B: ' --sizes 4,8
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert any(x['test'] == 'mpi_coll_barrier' for x in r), r" \
	"$tmp/mpi_coll.json" || fail "mpi_coll: the finished points not on disk"
for i in $(seq 1 "$K"); do
	[ -z "$(ip netns pids "$(ns_of_node "$i")")" ] || sleep 2
	[ -z "$(ip netns pids "$(ns_of_node "$i")")" ] || fail "a process left in node $i"
done
echo "PASS: a stalled MPI test ends with exit 1 and one line naming where it stood"
