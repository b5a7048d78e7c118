#!/bin/bash
# --bytes with --time: the throughput tests move --bytes (their rows' bytes= flag says how
# many), the latency tests run --time (the context's netbench.latency_seconds); --time
# alone bounds both. Usage: bytes_and_time.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"
# run NAME ARGS...: a loopback run of a throughput and a latency test, its JSON in NAME.json
run() {
	local name=$1
	shift
	timeout 60 "$NB" loopback --quiet --test tcp_throughput,udp_latency --threads 1 --reps 1 --ci 0 \
		--warmup 5 --format json --output "$tmp/$name.json" "$@" || fail "$name: netbench exited $?"
}
# said NAME: the throughput row's bytes= flag (none: time-bound) and the latency seconds
said() {
	python3 - "$tmp/$1.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
tp = [r for r in d["results"] if r["metric"] == "throughput"]
m = re.search(r"(?:^|;)bytes=(\d+)", tp[0]["flags"]) if tp else None
print(m.group(1) if m else "none", f'{d["context"]["netbench.latency_seconds"]:g}')
PY
}
run both --bytes 256KiB --time 0.05
[ "$(said both)" = "262144 0.05" ] || fail "--bytes 256KiB --time 0.05: $(said both), want 262144 0.05"
echo "ok: --bytes and --time: 256 KiB a throughput run, 0.05 s a latency run"
run time --time 0.05
[ "$(said time)" = "none 0.05" ] || fail "--time 0.05: $(said time), want none 0.05"
echo "ok: --time alone bounds both"
