#!/bin/bash
# The instance type's published network limits as netbench's peak (issue 35 §3): two hosts
# (network namespaces joined by a veth pair this test creates, deleted at the end) under
# cloud.instance_type = m5.large: the TCP throughput rows' theoretical is the published
# burst (10 Gbit/s, flag theoretical=published) and of_baseline=R their mean over the
# baseline (0.75 Gbit/s); on loopback the peak stays the memory copy and no row carries
# of_baseline. No figure is judged: the rows' own means are compared to their flags.
# Usage: cloud_limits.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }

two_hosts nbc 215

printf 'cloud.instance_type = m5.large\n' >"$tmp/peaks.conf"
export PEAKBENCH_CONF=$tmp/peaks.conf
start_server twohost ip netns exec "$B" -- --bind "$IPB" --quiet
run_client twohost ip netns exec "$A" -- --host "$IPB" --port "$PORT" --threads 1 \
	--test tcp_throughput --no-metadata
start_server loop -- --bind 127.0.0.1 --quiet
run_client loop -- --host 127.0.0.1 --port "$PORT" --threads 1 --test tcp_throughput --no-metadata

python3 - "$tmp/twohost.csv" "$tmp/loop.csv" <<'PY' || fail "see above"
import csv, sys
bad = []
def rows(path):
    return [r for r in csv.DictReader(open(path)) if r["test"] == "tcp_throughput" and r["metric"] == "throughput"]
two, loop = rows(sys.argv[1]), rows(sys.argv[2])
if not two or not loop:
    bad.append("no tcp_throughput rows")
for r in two:
    flags = dict(i.split("=", 1) for i in r["flags"].split(";") if "=" in i)
    if float(r["theoretical"] or "nan") != 10:
        bad.append(f"two hosts: theoretical {r['theoretical']!r}, expected the published burst 10")
    if flags.get("theoretical") != "published":
        bad.append(f"two hosts: flag theoretical={flags.get('theoretical')}, expected published")
    ratio = float(flags.get("of_baseline", "nan"))
    if not abs(ratio - float(r["mean"]) / 0.75) <= 0.0006:
        bad.append(f"two hosts: of_baseline={flags.get('of_baseline')}, mean/0.75 = {float(r['mean']) / 0.75:.3f}")
for r in loop:
    if "of_baseline" in r["flags"] or "theoretical=published" in r["flags"]:
        bad.append(f"loopback row holds a published limit: {r['flags']}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
grep tcp_throughput "$tmp/twohost.csv" | head -n 1
echo "ok: cloud_limits"
