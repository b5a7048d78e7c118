#!/usr/bin/env bash
# mpi_p2p with two ranks on this one host (no namespaces; OpenMPI picks its shared-memory
# transport): the pair is intra_node, its 8 B latency is under a microsecond or its row
# names the measured cause (cause=...); its bandwidth above 8 KiB carries the copy bound
# (bound=copy) and is not above it; with btl self,tcp (no shared memory) the row names
# cause=btl_without_shared_memory; then mpi_coll on the same two ranks.
# usage: mpi_one_node.sh CLUSTERBENCH SCHEMA_CHECK
CB=$1
CHECK=$2
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
[ -x "$CB" ] || { echo "SKIP: clusterbench not built (no MPI at configure time)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; tail -n 20 "$tmp/run.err" >&2; exit 1; }
timeout 90 mpirun --oversubscribe --bind-to none -np 2 "$CB" --test mpi_p2p --sizes 8,1MiB \
	--max-iters 500 --reps 2 --window 8 --format json --output "$tmp/p2p.json" \
	>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench --test mpi_p2p exited $?"
"$CHECK" json "$tmp/p2p.json" || fail "the one-node JSON does not validate"
python3 - "$tmp/p2p.json" <<'PY' || fail "one node"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
lat = next(r for r in rows if r["test"] == "mpi_p2p_latency" and r["block_bytes"] == 8)
flags = lat["flags"].split(";")
print(f'8 B shared-memory latency p50 {lat["p50"]:.3f} us: {lat["flags"]}')
assert "intra_node" in flags, flags
assert "tcp_half_rtt_us" not in lat["flags"], "no TCP reference on one node"
assert lat["p50"] < 1.0 or any(f.startswith("cause=") for f in flags), "1 us or more and no cause"
for r in rows:
    if r["test"] in ("mpi_p2p_bw", "mpi_p2p_bibw") and r["block_bytes"] > 8192:
        assert "bound=copy" in r["flags"] and r["theoretical"] > 0, r["flags"]
        assert "above_copy" not in r["flags"], f'{r["test"]}: {r["mean"]:.0f} MB/s above {r["theoretical"]:.0f}'
PY
# Without a shared-memory BTL (TCP over lo) the 8 B latency is tens of us: the row names that.
timeout 90 mpirun --oversubscribe --bind-to none --mca btl self,tcp -np 2 "$CB" --test mpi_p2p \
	--sizes 8 --max-iters 200 --reps 1 --format json --output "$tmp/tcp.json" \
	>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench --test mpi_p2p over btl tcp exited $?"
python3 - "$tmp/tcp.json" <<'PY' || fail "no cause for the TCP pair"
import json, sys
lat = next(r for r in json.load(open(sys.argv[1]))["results"] if r["test"] == "mpi_p2p_latency")
print(f'8 B over btl self,tcp on one node: p50 {lat["p50"]:.2f} us: {lat["flags"]}')
assert lat["p50"] >= 1.0 and "cause=btl_without_shared_memory" in lat["flags"].split(";"), lat
PY
timeout 90 mpirun --oversubscribe --bind-to none -np 2 "$CB" --test mpi_coll --sizes 8 \
	--max-iters 200 --reps 1 --format json --output "$tmp/coll.json" \
	>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench --test mpi_coll exited $?"
"$CHECK" json "$tmp/coll.json" || fail "the one-node collectives do not validate"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert len(r) == 5, len(r)' \
	"$tmp/coll.json" || fail "want 5 collective rows"
echo "PASS: one node: shared-memory latency under 1 us or its cause, copy bound held"
