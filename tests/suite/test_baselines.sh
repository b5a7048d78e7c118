#!/bin/sh
# Every baseline parser on real outputs of its tool captured here (tests/fixtures/baseline;
# IOZone: the two layouts of the PA1 document, and one synthetic two-line header): the CSV
# validates against the schema and carries the tool's figures, converted to our units.
set -u
repo=$1 check=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
fx="$repo/tests/fixtures/baseline"
bl="$repo/scripts/baseline"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
command -v jq >/dev/null 2>&1 || { echo "jq not installed: the fio and iperf3 parsers need it: skipped"; exit 77; }

# expect FILE TEST VARIANT THREADS METRIC VALUE [COLUMN=9]: the row holds VALUE.
expect() {
	got=$(cell "$1" "$2" "$3" "$4" "$5" "${7:-9}")
	near "$got" "$6" || fail "$(basename "$1"): $2 $3 $4 $5: got '$got', expected $6"
}

"$bl/likwid.sh" --parse "$fx"/likwid_*.txt >"$out/likwid.csv" || fail "likwid.sh --parse"
schema "$check" csv "$out/likwid.csv"
expect "$out/likwid.csv" flops peakflops_avx512_fma 1 flops 21.50222
expect "$out/likwid.csv" flops peakflops 2 flops 1.63227
expect "$out/likwid.csv" stream stream_mem_avx512 2 throughput 3429.65
grep -q 'ours=cpu:flops:avx512_dp_fma:flops' "$out/likwid.csv" || fail "likwid: avx512 mapping"
ok "likwid-bench"

"$bl/hpcc.sh" --parse "$fx/hpcc_hpccoutf.txt" >"$out/hpcc.csv" || fail "hpcc.sh --parse"
schema "$check" csv "$out/hpcc.csv"
expect "$out/hpcc.csv" linpack hpcc-hpl 1 flops 11.1771
expect "$out/hpcc.csv" stream hpcc-triad 1 throughput 9139.549
expect "$out/hpcc.csv" stream hpcc-copy 1 throughput 9208.311
grep -q 'N=2000;NB=192' "$out/hpcc.csv" || fail "hpcc: N and NB in the flags"
ok "hpcc"

"$bl/fio.sh" --parse "$fx/fio.json" >"$out/fio.csv" || fail "fio.sh --parse"
schema "$check" csv "$out/fio.csv"
expect "$out/fio.csv" seq_read fio-psync 1 throughput 481.947692
expect "$out/fio.csv" seq_write fio-psync 1 throughput 1243.490226
expect "$out/fio.csv" rand_read fio-psync 1 iops 12230.309073
expect "$out/fio.csv" rand_read fio-uring-qd32 1 iops 46006.993007
expect "$out/fio.csv" seq_read fio-psync 2 throughput 1375.078706
expect "$out/fio.csv" rand_read fio-psync 1 latency 280.576 18
[ "$(grep -c ',fio,' "$out/fio.csv")" -eq 12 ] || fail "fio: 12 rows expected"
ok "fio"

"$bl/iperf3.sh" --parse "$fx"/iperf3_*.json >"$out/iperf3.csv" || fail "iperf3.sh --parse"
schema "$check" csv "$out/iperf3.csv"
expect "$out/iperf3.csv" tcp_throughput iperf3-tcp 1 throughput 10.62593457
expect "$out/iperf3.csv" tcp_throughput iperf3-tcp 2 throughput 12.55923209
expect "$out/iperf3.csv" udp_throughput iperf3-udp 1 throughput 0.2381340947
expect "$out/iperf3.csv" udp_throughput iperf3-udp 1 loss 83.00965981
ok "iperf3"

"$bl/sockperf.sh" --parse "$fx/sockperf_tcp_halfrtt.txt" >"$out/sp1.csv" || fail "sockperf.sh --parse (half rtt)"
"$bl/sockperf.sh" --parse "$fx/sockperf_tcp_rtt.txt" "$fx/sockperf_udp_rtt.txt" >"$out/sp2.csv" ||
	fail "sockperf.sh --parse (full rtt)"
schema "$check" csv "$out/sp1.csv"
schema "$check" csv "$out/sp2.csv"
expect "$out/sp1.csv" tcp_latency sockperf-tcp 1 latency 22.418
grep -q half_rtt_doubled "$out/sp1.csv" || fail "sockperf: half round trip not flagged"
expect "$out/sp2.csv" tcp_latency sockperf-tcp 1 latency 45.219
expect "$out/sp2.csv" udp_latency sockperf-udp 1 latency 12.021
ok "sockperf"

"$bl/iozone.sh" --parse "$fx/iozone_a_pa1.txt" >"$out/ioa.csv" 2>"$out/ioa.err" || fail "iozone.sh --parse -a"
schema "$check" csv "$out/ioa.csv"
# 45 rows x 4 mapped columns, less the PA1 row with a value missing (128 KB / 128).
[ "$(tail -n +2 "$out/ioa.csv" | wc -l)" -eq 176 ] || fail "iozone -a: 176 rows expected"
grep -q 'row "128 128" has 12 values for 13 columns' "$out/ioa.err" || fail "iozone: short row not reported"
awk -F, '$5 == 4096 && $2 == "seq_write" && $24 ~ /file_kb=64;/ { found = 1; if ($9 + 0 < 689.26 || $9 + 0 > 689.27) exit 1 } END { exit !found }' \
	"$out/ioa.csv" || fail "iozone -a: 64 KB / 4 KB write = 673098 kB/s = 689.26 MB/s"
grep -q ';cached' "$out/ioa.csv" || fail "iozone without -I must be flagged cached"
"$bl/iozone.sh" --parse "$fx/iozone_s_pa1.txt" >"$out/ios.csv" || fail "iozone.sh --parse -s"
schema "$check" csv "$out/ios.csv"
expect "$out/ios.csv" rand_read iozone-random_read 1 throughput 3581.90592
"$bl/iozone.sh" --parse "$fx/iozone_synthetic_twoline.txt" >"$out/io2.csv" || fail "iozone two-line header"
expect "$out/io2.csv" rand_write iozone-random_write 1 throughput 40.96
grep -q 'direct=1;fsync' "$out/io2.csv" || fail "iozone -I -e must say direct and fsync"
ok "iozone"

# A file that is not the tool's output is an error, not an empty success.
"$bl/likwid.sh" --parse "$fx/fio.json" >/dev/null 2>&1 && fail "likwid.sh accepted fio output"
"$bl/hpcc.sh" --parse "$fx/fio.json" >/dev/null 2>&1 && fail "hpcc.sh accepted fio output"
"$bl/sockperf.sh" --parse "$fx/fio.json" >/dev/null 2>&1 && fail "sockperf.sh accepted fio output"
"$bl/iozone.sh" --parse "$fx/fio.json" >/dev/null 2>&1 && fail "iozone.sh accepted fio output"
"$bl/fio.sh" --parse "$fx/hpcc_hpccoutf.txt" >/dev/null 2>&1 && fail "fio.sh accepted hpcc output"
"$bl/iperf3.sh" --parse "$fx/fio.json" >/dev/null 2>&1 && fail "iperf3.sh accepted fio output"
ok "wrong inputs rejected"
