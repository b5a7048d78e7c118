#!/usr/bin/env bash
# clusterbench's output against the schema (tests/schema_check.c): host and peer on every
# row, one context block per node under context.nodes (docs/results-schema.md, "Hosts").
# First schema_check itself on small documents, each bad one broken in one way (no MPI);
# then a 2-namespace net_matrix at tiny sizes in JSON and CSV (root, netns, MPI).
# usage: schema.sh CLUSTERBENCH SCHEMA_CHECK
CHECK=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
row() { # host peer
	printf '{"suite":"cluster","test":"net_matrix","variant":"tcp","threads":1,"block_bytes":131072,'
	printf '"metric":"throughput","unit":"Gbit/s","n":1,"mean":1,"stddev":null,"min":1,"median":1,'
	printf '"max":1,"ci95_low":null,"ci95_high":null,"p50":null,"p90":null,"p99":null,"p999":null,'
	printf '"theoretical":null,"efficiency":null,"baseline_tool":"","baseline":null,"flags":"",'
	printf '%s"samples":[1]}' "$1"
}
doc() { # name nodes rows
	printf '{"context":{"cluster.test":"net_matrix"%s},"results":[%s]}\n' "$2" "$3" >"$work/$1.json"
}
NODES=',"nodes":[{"host":"a","cpu.model":"X","cpu.logical":2},{"host":"b","cpu.model":"X","cpu.logical":2}]'
doc good "$NODES" "$(row '"host":"a","peer":"b",'),$(row '"host":"all","peer":"",')"
doc no_nodes "" "$(row '"host":"a","peer":"b",')"
doc unknown_host "$NODES" "$(row '"host":"c","peer":"b",')"
doc unknown_peer "$NODES" "$(row '"host":"a","peer":"c",')"
doc peer_alone "$NODES" "$(row '"peer":"b",')"
doc no_hosts "$NODES" "$(row '')"
doc twice ',"nodes":[{"host":"a"},{"host":"a"}]' "$(row '"host":"a","peer":"",')"
doc nested ',"nodes":[{"host":"a","cpu":{"model":"X"}}]' "$(row '"host":"a","peer":"",')"
doc nameless ',"nodes":[{"cpu.model":"X"}]' "$(row '"host":"all","peer":"",')"
"$CHECK" json "$work/good.json" || die "a valid cluster document is refused"
for bad in no_nodes unknown_host unknown_peer peer_alone no_hosts twice nested nameless; do
	! "$CHECK" json "$work/$bad.json" 2>/dev/null || die "schema_check accepts $bad"
done
hdr=$(head -n 1 "$(dirname "$0")/../fixtures/results/tiny/old/cpu.csv")
line='cluster,net_matrix,tcp,1,131072,throughput,Gbit/s,1,1,,1,1,1,,,,,,,,,,,'
printf '%s,host,peer\n%s,a,b\n' "$hdr" "$line" >"$work/good.csv"
printf '%s,host,peer\n%s,,b\n' "$hdr" "$line" >"$work/empty_host.csv"
printf '%s,host\n%s,a\n' "$hdr" "$line" >"$work/host_only.csv"
"$CHECK" csv "$work/good.csv" || die "a valid cluster CSV is refused"
for bad in empty_host host_only; do
	! "$CHECK" csv "$work/$bad.csv" 2>/dev/null || die "schema_check accepts $bad.csv"
done
echo "ok: schema_check takes host/peer and node contexts, and refuses each broken one"

# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
cluster_up 2
for fmt in json csv; do
	# shellcheck disable=SC2086
	timeout 120 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np 2 --map-by node "$CB" \
		--names "$HOSTFILE" --schedule serial --min-time 0.1 --reps 2 --latency-duration 0.1 \
		--outlier-bw 0 --outlier-lat 1000 --format "$fmt" --output "$tmp/m.$fmt" \
		>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench --format $fmt exited $?"
	"$CHECK" "$fmt" "$tmp/m.$fmt" || fail "clusterbench's $fmt does not validate"
done
python3 - "$tmp/m.json" "$tmp/m.csv" "$NET" <<'PY' || fail "hosts or node contexts"
import csv, json, sys
d = json.load(open(sys.argv[1]))
net = sys.argv[3]
hosts = [n["host"] for n in d["context"]["nodes"]]
assert hosts == [f"{net}.1", f"{net}.2"], hosts
for n in d["context"]["nodes"]:
    for k in ("cpu.model", "os.kernel", "cpu.isa", "cpu.logical"):
        assert k in n, f"node {n['host']} lacks {k}"
assert {(r["host"], r["peer"]) for r in d["results"]} == {(hosts[0], hosts[1]), (hosts[1], hosts[0])}
assert d["context"]["cluster.nodes"] == 2
rows = list(csv.DictReader(open(sys.argv[2])))
assert rows and all(r["host"] in hosts and r["peer"] in hosts for r in rows), rows[:1]
PY
echo "PASS: clusterbench's JSON and CSV validate, host/peer and node contexts included"
