#!/usr/bin/env bash
# hpcc across K namespace nodes at a tiny size (scripts/cluster_hpcc.sh): every node's
# peakinfo, hpcc's b_eff and HPL over the veth links, then OSU and IMB stand-ins (they print
# the real tools' formats: neither tool is in Debian) through scripts/cluster_osu.sh, and
# the report's MPI part with our mpi_p2p rows (clusterbench --test mpi_p2p when it has it,
# else the fixture rows) beside hpcc's b_eff in one table line. HPL's efficiency against
# the sum of the nodes' FP64 peaks must not be above 1 (physics), nor unknown. The nodes
# share this machine's CPUs, so each node's peak is the whole machine's: the efficiency
# is low and says nothing of a real cluster; the bound must still hold.
# usage: hpcc.sh CLUSTERBENCH REPO [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
REPO=$2
K=${3:-2}
BUILD=$(cd "$(dirname "$CB")/.." && pwd)
command -v hpcc >/dev/null 2>&1 || skip "hpcc not installed (Debian: apt install hpcc)"
[ -x "$BUILD/peakinfo/peakinfo" ] || skip "peakinfo not built in $BUILD"
cluster_up "$K"
OUT=$tmp/run
mkdir -p "$OUT/raw"
"$REPO/scripts/cluster_hpcc.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" --mode tiny \
	--out "$OUT/raw" --build-dir "$BUILD" --threads 1 >"$tmp/hpcc.log" 2>"$tmp/hpcc.err" ||
	fail "cluster_hpcc.sh exited $?"
PATH="$REPO/tests/fixtures/cluster/bin:$PATH" "$REPO/scripts/cluster_osu.sh" --hostfile "$HOSTFILE" \
	--mpirun "$MPIRUN_ARGS" --out "$OUT/raw" >"$tmp/osu.log" 2>"$tmp/osu.err" || fail "cluster_osu.sh exited $?"
if "$CB" --help 2>/dev/null | grep -q mpi_p2p; then
	# Its rows are only shown beside b_eff's: one repetition of the shortest --min-time.
	# shellcheck disable=SC2086
	timeout 150 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
		--names "$HOSTFILE" --test mpi_p2p --sizes 8,2MiB --reps 1 --max-iters 200 --min-time 0.01 \
		--latency-duration 0.1 --format json --output "$OUT/raw/cluster-mpi_p2p.json" \
		>"$tmp/p2p.log" 2>"$tmp/p2p.err" || fail "clusterbench --test mpi_p2p exited $?"
else
	echo "clusterbench has no --test mpi_p2p yet: our side from tests/fixtures/cluster"
	python3 - "$REPO" "$OUT/raw/cluster-mpi_p2p.json" <<'PY' || fail "fixture rows"
import json, sys
sys.path.insert(0, sys.argv[1] + "/tests/results")
import test_cluster_mpi as t
json.dump({"context": {"nodes": []}, "results": t.fixture_rows("cluster-mpi_p2p.csv")}, open(sys.argv[2], "w"))
PY
fi
PYTHONPATH="$REPO/scripts" python3 -m peakresults.report.report_cluster "$OUT" >"$tmp/section.md" ||
	fail "report_cluster failed"
python3 - "$OUT/raw/cluster-hpcc.json" "$OUT/raw/cluster-osu.json" "$tmp/section.md" "$K" <<'PY' || fail "hpcc check"
import json, sys
hp, osu = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
md, k = open(sys.argv[3]).read(), int(sys.argv[4])
rows = {(r["test"], r["block_bytes"], r["metric"]): r for r in hp["rows"]}
bad = []
for key in (("mpi_p2p_latency", 8, "latency"), ("mpi_p2p_bw", 2097152, "throughput"),
            ("hpcc_ring_natural", 8, "latency"), ("hpcc_ring_random", 2000000, "throughput")):
    if key not in rows or not rows[key]["mean"] > 0:
        bad.append(f"no b_eff row {key}: skipped {hp.get('skipped')}")
hpl = rows.get(("hpl", None, "flops"))
if hpl is None:
    bad.append(f"no HPL row: skipped {hp.get('skipped')}")
else:
    print(f"HPL {hpl['mean']:.3g} GFLOPS of {hpl['theoretical']} ({hpl['config']}): efficiency {hpl['efficiency']}")
    if hpl["efficiency"] is None or not 0 < hpl["efficiency"] <= 1:
        bad.append(f"HPL efficiency {hpl['efficiency']} not in (0, 1]")
    if f"P=1;Q={k}" not in hpl["config"] and k in (2, 3):
        bad.append(f"HPL grid {hpl['config']}, want 1 x {k}")
    if len(hp["nodes"]) != k or not all(n["fp64_gflops"] for n in hp["nodes"]):
        bad.append(f"node peaks {hp['nodes']}")
if {r["tool"] for r in osu["rows"]} != {"osu", "imb"}:
    bad.append(f"OSU/IMB rows: {sorted({r['tool'] for r in osu['rows']})}")
side = [ln for ln in md.splitlines() if ln.startswith("| latency | 8B |") and "| hpcc |" in ln]
if len(side) != 1 or "| - |" in side[0]:
    bad.append(f"b_eff and ours not side by side: {side}")
else:
    print(side[0])
if "HPL across the nodes" not in md:
    bad.append("no HPL line in the report")
if bad:
    sys.exit("; ".join(bad))
PY
echo "PASS: hpcc's b_eff beside ours, HPL across $K nodes within the sum of their peaks"
