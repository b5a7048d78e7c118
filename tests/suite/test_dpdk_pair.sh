#!/bin/sh
# run_all.sh's DPDK part at tiny sizes, in ordinary memory (PEAKBENCH_DPDK_HUGE=no, as on CI),
# read from the shared tiny run (tests/suite/tiny_run.sh, ctest fixture suite_tiny; its own
# --only dpdk run cost 9 s): the net_ring loopback, the memif tester/dut pair and the kernel
# UDP step all end ok; the pair's rows land in dpdk.csv/.json, the kernel's (variant
# udp-vs-dpdk, payload = frame - 46) in network.csv/.json; report.md shows the DPDK vs kernel
# table; the run leaves its TMPDIR empty. Skipped (77) without dpdkbench, with fewer than 2
# CPUs, or when EAL cannot start. Usage: test_dpdk_pair.sh REPO BUILD_DIR TINY_DIR SCHEMA_CHECK
set -u
repo=$1 build=$2 tiny=$3 check=$4
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
r="$tiny/r"
[ -s "$r/status.tsv" ] || fail "no status.tsv in the shared run $tiny (suite_tiny_run)"
bin=$(find "$build" -name dpdkbench -type f -perm -u+x -not -path '*/CMakeFiles/*' 2>/dev/null | head -n 1)
if [ -z "$bin" ]; then
	echo "SKIP: dpdkbench is not built (libdpdk not found)"
	exit 77
fi
if [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ]; then
	echo "SKIP: the memif pair needs 2 CPUs"
	exit 77
fi
# shellcheck source=tests/dpdk/lib.sh
. "$repo/tests/dpdk/lib.sh"
probe "$bin"

for step in dpdkbench 'memif pair' 'memif latency' 'kernel udp'; do
	st=$(awk -F'\t' -v s="$step" '$1 == s { print $3 ": " $5 }' "$r/status.tsv")
	[ "$st" = "ok: " ] || fail "step '$step' is '$st', not ok (logs: $(cat "$r"/logs/*.err 2>/dev/null | tail -n 5))"
done
[ "$(cat "$tiny/rc" 2>/dev/null)" = 0 ] || fail "run_all.sh exited $(cat "$tiny/rc" 2>/dev/null)"
[ -f "$tiny/tmp-left" ] || fail "the shared run did not say what it left in its TMPDIR"
[ ! -s "$tiny/tmp-left" ] || fail "left behind in TMPDIR: $(cat "$tiny/tmp-left")"
ok "loopback, memif pair, memif latency and kernel udp steps ok; nothing left in TMPDIR"

schema "$check" csv "$r/dpdk.csv"
schema "$check" csv "$r/network.csv"
for t in rx_dut rx_tester loss_dut loss_tester tx_tester latency_roundtrip; do
	awk -F, -v t="$t" '$1 == "dpdk" && $2 == t && $3 == "memif-flows1-q1-bi" && $5 == 64 && $8 > 0 { f = 1 }
		END { exit !f }' "$r/dpdk.csv" || fail "dpdk.csv lacks the pair's $t row at 64 B"
done
grep -q '^dpdk,rx_loopback,ring-' "$r/dpdk.csv" || fail "dpdk.csv lost the loopback rows"
awk -F, '$1 == "dpdk" && $2 == "latency_roundtrip" && $3 == "memif-flows1-q1-bi-r0.1" && $5 == 64 && $8 > 0 { f = 1 }
	END { exit !f }' "$r/dpdk.csv" || fail "dpdk.csv lacks the light-load (--rate 0.1) round trip at 64 B"
ok "dpdk.csv holds the pair's rows next to the loopback's"
for t in udp_throughput udp_latency; do
	awk -F, -v t="$t" '$1 == "network" && $2 == t && $3 == "udp-vs-dpdk" && $4 == 1 && $5 == 18 && $8 > 0 { f = 1 }
		END { exit !f }' "$r/network.csv" || fail "network.csv lacks $t udp-vs-dpdk at 18 B"
done
# The frame is block_bytes + 46 (the report's comparison says so); flags hold warnings only.
! grep -q 'frame_bytes=' "$r/network.csv" || fail "frame_bytes= in flags: the frame is block_bytes + 46"
ok "network.csv holds the kernel's UDP rows at 18 B (64 B frames)"
if command -v jq >/dev/null 2>&1; then
	schema "$check" json "$r/dpdk.json"
	[ "$(jq '[.results[] | select(.variant | startswith("memif-"))] | length' "$r/dpdk.json")" -gt 0 ] ||
		fail "dpdk.json lacks the pair's rows"
	jq -r '.context.dpdk_eal_args' "$r/raw/dpdk-memif.json" | grep -q -- '--no-huge' ||
		fail "the pair's context does not show --no-huge"
	ok "dpdk.json holds the pair's rows; its EAL ran with --no-huge"
fi

grep -qx '### DPDK (memif, user space) vs kernel UDP (netbench loopback)' "$r/report.md" ||
	fail "report.md lacks the comparison table"
row=$(grep '^| 64 B | 18 B | memif-flows1-q1-bi |' "$r/report.md") || fail "the comparison has no 64 B row"
echo "$row"
# DPDK Mpps, Gbit/s, RTT loaded and light, loss, kernel Mpps, Gbit/s, RTT, loss, both
# ratios: all measured.
echo "$row" | awk -F'|' '{ for (i = 5; i <= 16; i++) if ($i ~ /n\/a/) exit 1 }' ||
	fail "the 64 B comparison row has a figure missing"
grep -q '^| Frame | UDP payload | DPDK run | DPDK Mpps |' "$r/report.md" || fail "comparison header"
grep -q '^- memif pair (tester): ordinary memory' "$r/report.md" || fail "report.md does not say which memory the pair used"
ok "report.md compares DPDK over memif with the kernel at 64 B"
