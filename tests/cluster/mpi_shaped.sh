#!/usr/bin/env bash
# mpi_p2p on K namespaces, node 2's link shaped by tbf to 200 Mbit/s both ways:
# - the 4 MiB bandwidth of every pair through node 2 is within 10% of 200 Mbit/s (25 MB/s;
#   TCP/IP headers take ~4.4% of it at MTU 1500), a kernel-enforced rate;
# - those pairs' 4 MiB bandwidth rows, and only they, are flagged outlier=bandwidth: the
#   slow link is named in the p2p matrix and nowhere else (no other row of the run has an
#   outlier flag);
# - a veth is virtual (no device: its speed 10000 is a constant, it carries 17 Gbit/s), so
#   without peaks.conf no row has a link bound nor above_link; with net.gbps set under the
#   shaped rate (0.1 Gbit/s), the shaped pair's 64 KiB bandwidth is above_link.
# Iterations are capped and the window at most 4 messages (at 4 MiB through the shaped link
# it stays 1: one message is 0.17 s, more than an eighth of --min-time).
# Latency is not what is shaped: its rule is out of reach (--outlier-lat 1000; 3 timed 8 B
# round trips of spinning ranks on a loaded 2-CPU host read 4 ms, a scheduler tick), and
# the ranks yield when idle.
# usage: mpi_shaped.sh CLUSTERBENCH [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
K=${2:-3}
SLOW=2
cluster_up "$K"
shape_node "$SLOW" 200mbit
run_p2p() { # output sizes, extra flags...
	local out=$1 sizes=$2
	shift 2
	# shellcheck disable=SC2086
	timeout 150 mpirun $MPIRUN_ARGS --mca mpi_yield_when_idle 1 -x PEAKBENCH_CONF --hostfile "$HOSTFILE" -np "$K" --map-by node \
		"$CB" --names "$HOSTFILE" --test mpi_p2p --sizes "$sizes" --max-iters 3 --reps 1 \
		--window 4 --latency-duration 0.1 --outlier-bw 0.5 --outlier-lat 1000 --format json \
		--output "$out" "$@" >"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench exited $?"
}
echo "# none" >"$tmp/peaks.conf"
export PEAKBENCH_CONF=$tmp/peaks.conf
run_p2p "$tmp/p2p.json" 8,4MiB
python3 - "$tmp/p2p.json" "$NET.$SLOW" "$K" <<'PY' || fail "the shaped link"
import json, sys
d = json.load(open(sys.argv[1]))
slow, k = sys.argv[2], int(sys.argv[3])
rows = d["results"]
bw = [r for r in rows if r["test"] == "mpi_p2p_bw" and r["block_bytes"] == 4 << 20]
assert len(bw) == k * (k - 1) // 2, f"{len(bw)} 4 MiB bandwidth rows"
bad = []
for r in bw:
    shaped = slow in (r["host"], r["peer"])
    flagged = "outlier=bandwidth" in r["flags"].split(";")
    print(f'{r["host"]} - {r["peer"]}: {r["median"]:.2f} MB/s flags={r["flags"]}')
    if shaped and not (abs(r["median"] / 25.0 - 1) <= 0.10 and flagged):
        bad.append(f'{r["host"]}-{r["peer"]}: {r["median"]:.2f} MB/s of 25, flagged={flagged}')
    if not shaped and flagged:
        bad.append(f'{r["host"]}-{r["peer"]} unshaped but flagged')
others = [r for r in rows if r not in bw and "outlier" in r["flags"]]
if others:
    bad.append("outlier flags beyond the p2p matrix: " + ", ".join(f'{r["test"]} {r["block_bytes"]}' for r in others))
above = [r for r in rows if "above_link" in r["flags"] or "bound=link" in r["flags"]]
if above:
    bad.append(f"a link bound from a veth: {[(r['test'], r['host'], r['peer'], r['flags']) for r in above]}")
if bad:
    sys.exit("; ".join(bad))
PY
echo "net.gbps = 0.1" >"$tmp/peaks.conf"
run_p2p "$tmp/p2p-low.json" 64KiB --pairs 0-1
python3 - "$tmp/p2p-low.json" <<'PY' || fail "above_link"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"]
        if r["test"] == "mpi_p2p_bw" and r["block_bytes"] == 64 << 10]
assert len(rows) == 1, rows
flags = rows[0]["flags"].split(";")
print(f'{rows[0]["median"]:.2f} MB/s against net.gbps 0.1 (12.5 MB/s): {rows[0]["flags"]}')
assert "above_link" in flags and "bound=net.gbps" in flags, flags
assert abs(rows[0]["theoretical"] - 12.5) < 1e-9, rows[0]["theoretical"]
PY
echo "PASS: node $SLOW's pairs at 200 Mbit/s +-10% and flagged in the p2p matrix only; above_link past net.gbps"
