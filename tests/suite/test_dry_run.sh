#!/bin/sh
# run_all.sh --dry-run prints the plan with an estimated time and runs nothing; --only,
# --quick, --threads, --reps and --peer shape the plan.
set -u
repo=$1
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

plan=$("$repo/run_all.sh" --dry-run --out "$out/r") || fail "--dry-run exited $?"
echo "$plan"
echo "$plan" | head -n 1 | grep -Eq '^peakbench plan: [0-9]+ steps, estimated [0-9hms]+ \(threads 1,2,4,8, reps 3\)$' ||
	fail "first line is not the plan summary"
for s in peakinfo cpubench linpack membench diskbench netbench dpdkbench finish; do
	echo "$plan" | grep -q " $s " || fail "full plan lacks $s"
done
# The tools' unpaired steps (--tiny only), each its adapter by name, listed installed or not.
tiny=$("$repo/run_all.sh" --dry-run --tiny --out "$out/r") || fail "--dry-run --tiny exited $?"
for b in hpcc likwid fio iozone iperf3 sockperf; do
	echo "$tiny" | grep -q "python3 scripts/peakresults/adapters $b --mode tiny" || fail "tiny plan lacks baseline $b"
done
echo "$plan" | grep -q -- '--file-size 1GiB' || fail "the full plan does not use a 1 GiB file"
# The full protocol: --reps (3) repetitions of 0.1 s first, one more of a subset at the end.
echo "$plan" | grep -q 'cpubench pass 2 .* --reps 1 ' || fail "full plan lacks the second pass"
echo "$plan" | grep -q 'membench --test all .* --reps 3 --quiet --min-time 0.1 ' ||
	fail "full plan's first pass is not --reps 3 of 0.1 s"
echo "$plan" | grep -q "scripts/peakresults finish $out/r\$" || fail "full plan does not end with finish"
[ ! -e "$out/r" ] || fail "--dry-run created the results folder"
ok "full plan"

# DPDK: the memif tester/dut pair and the kernel's UDP path at the same frame sizes
# (payload = frame - 46); the loopback's EAL memory follows PEAKBENCH_DPDK_HUGE.
echo "$plan" | grep -q 'scripts/dpdk_memif_pair.sh dpdkbench --sizes 64,1500,9000 --flows 1,8 --direction bi' ||
	fail "full plan lacks the memif pair"
echo "$plan" | grep -q 'netbench loopback --test udp_throughput,udp_latency --datagram 18B,1454B,8954B --msg-size 18B,1454B,8954B' ||
	fail "full plan lacks the kernel UDP step at the DPDK sizes"
plan=$(PEAKBENCH_DPDK_HUGE=no "$repo/run_all.sh" --dry-run --only dpdk) || fail "exit $?"
echo "$plan" | grep -q 'dpdkbench -l 0 --no-huge --no-shconf -m 512 ' || fail "PEAKBENCH_DPDK_HUGE=no: loopback not on --no-huge"
plan=$(PEAKBENCH_DPDK_HUGE=yes "$repo/run_all.sh" --dry-run --only dpdk) || fail "exit $?"
echo "$plan" | grep -q 'dpdkbench -l 0 -m 512 --in-memory ' || fail "PEAKBENCH_DPDK_HUGE=yes: loopback not on hugepages"
plan=$("$repo/run_all.sh" --dry-run --tiny --only dpdk) || fail "exit $?"
echo "$plan" | grep -q 'dpdk_memif_pair.sh dpdkbench --sizes 64 --flows 1 --direction bi --time 0.1' || fail "tiny memif pair"
echo "$plan" | grep -q 'dpdk_memif_pair.sh dpdkbench --sizes 64 --flows 1 --direction bi --rate 0.1 --time 0.1' ||
	fail "tiny memif pair at --rate 0.1"
echo "$plan" | grep -q -- '--datagram 18B --msg-size 18B' || fail "tiny kernel UDP step"
ok "dpdk steps: loopback memory, memif pair, kernel UDP"

plan=$("$repo/run_all.sh" --dry-run --quick --only cpu,network --reps 2 --peer 192.0.2.1 --no-baselines) ||
	fail "--dry-run --quick exited $?"
echo "$plan" | grep -q 'threads 1,2, reps 2, quick' || fail "quick plan summary"
echo "$plan" | grep -Eq ' (membench|diskbench|dpdkbench|scripts/peakresults/adapters)' && fail "--only cpu,network ran other suites"
echo "$plan" | grep -q 'netbench client --host 192.0.2.1' || fail "--peer adds the two-node step"
echo "$plan" | grep -q 'cpubench .*--reps 2' || fail "--reps reaches the binaries"
ok "quick plan with --only, --reps, --peer, --no-baselines"

plan=$("$repo/run_all.sh" --dry-run --threads 1,3 --min-time 0.5 --only memory) || fail "exit $?"
echo "$plan" | grep -q 'membench .*--threads 1,3 .*--min-time 0.5' || fail "--threads/--min-time reach membench"
ok "--threads and --min-time"

printf 'node1\n' >"$out/hosts"
plan=$("$repo/run_all.sh" --dry-run --tiny --only network --no-baselines --hostfile "$out/hosts" --mpirun '-x A=1') || fail "exit $?"
echo "$plan" | grep -q "scripts/cluster_run.sh --hostfile $out/hosts --mpirun '-x A=1' --mode tiny --out " ||
	fail "--hostfile/--mpirun do not make the cluster step"
ok "--hostfile and --mpirun"
