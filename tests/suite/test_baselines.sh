#!/bin/sh
# The reference tools' adapters from the command line (scripts/peakresults/adapters; their
# parsers' values: tests/results/test_tools.py, their jobs on recorded plans:
# test_adapters.py): --parse prints the rows of recorded outputs (tests/fixtures/baseline)
# as JSON lines and rejects another tool's output; --plan prints the same job as
# peakbench's, derived from the mode, the CPU and the hugetlb pool, and runs nothing.
set -u
repo=$1
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
fx="$repo/tests/fixtures/baseline"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
ad() { python3 "$repo/scripts/peakresults/adapters" "$@"; }

rows() { # SCRIPT EXPECTED FILE...
	s=$1 n=$2
	shift 2
	ad "$s" --parse "$@" >"$out/$s.jsonl" || fail "adapter $s --parse exited $?"
	[ "$(wc -l <"$out/$s.jsonl")" -eq "$n" ] || fail "adapter $s --parse: $(wc -l <"$out/$s.jsonl") rows, $n expected"
	if grep -q 'ours=' "$out/$s.jsonl"; then fail "adapter $s: ours= in a row"; fi
}
rows likwid 3 "$fx"/likwid_*.txt
rows hpcc 5 "$fx/hpcc_hpccoutf.txt"
rows fio 12 "$fx/fio.json"
rows iperf3 4 "$fx"/iperf3_*.json
rows sockperf 3 "$fx"/sockperf_*.txt
rows iozone 176 "$fx/iozone_a_pa1.txt"
ok "--parse: rows of every tool"

ad likwid --parse "$fx/fio.json" >/dev/null 2>&1 && fail "likwid accepted fio output"
ad hpcc --parse "$fx/fio.json" >/dev/null 2>&1 && fail "hpcc accepted fio output"
ad sockperf --parse "$fx/fio.json" >/dev/null 2>&1 && fail "sockperf accepted fio output"
ad iozone --parse "$fx/fio.json" >/dev/null 2>&1 && fail "iozone accepted fio output"
ad fio --parse "$fx/hpcc_hpccoutf.txt" >/dev/null 2>&1 && fail "fio accepted hpcc output"
ad iperf3 --parse "$fx/fio.json" >/dev/null 2>&1 && fail "iperf3 accepted fio output"
ok "wrong inputs rejected"

# fio: the buffers' pages follow diskbench's --buffer-pages auto (hugetlb when the pool has
# room for both): --mem=shmhuge with 64 free huge pages, malloc with none.
printf 'HugePages_Free:       64\nHugePages_Rsvd:        0\nHugepagesize:       2048 kB\n' >"$out/mi-huge"
printf 'HugePages_Free:        0\nHugePages_Rsvd:        0\nHugepagesize:       2048 kB\n' >"$out/mi-none"
p=$(PEAKBENCH_MEMINFO="$out/mi-huge" ad fio --plan --mode quick --threads 1,2 2>/dev/null) || fail "fio --plan"
echo "$p" | grep -q -- '--mem=shmhuge' || fail "fio: hugetlb pool with room, not --mem=shmhuge"
p=$(PEAKBENCH_MEMINFO="$out/mi-none" ad fio --plan --mode quick --threads 1,2 2>/dev/null) || fail "fio --plan"
echo "$p" | grep -q -- '--mem=malloc' || fail "fio: no pool, not --mem=malloc"
# diskbench's job: O_DIRECT, 1 MiB sequential and 4 KiB random, io_uring at depth 32,
# threads on disjoint regions of one file of the mode's size (256 MiB quick)
for a in --direct=1 --bs=1M --bs=4k --iodepth=32 --numjobs=2 --size=128M --offset_increment=128M --size=256M; do
	echo "$p" | grep -q -- "$a" || fail "fio --plan lacks $a"
done
# fio scrambles its buffer before every write unless told otherwise; a paired round whose
# diskbench writes one repeated megabyte (--data-period 1MiB) gets --same-data.
echo "$p" | grep -q -- '--scramble_buffers' && fail "fio --plan: --scramble_buffers without --same-data"
p=$(ad fio --plan --mode quick --threads 1 --tests seq_write --mem malloc --same-data 2>/dev/null) || fail "fio --plan --same-data"
echo "$p" | grep -q -- '--scramble_buffers=0' || fail "fio --same-data: no --scramble_buffers=0"
# diskbench's --buffer-dir: every read job maps its read.buf, every write job its
# write.buf, shared (fio --mem=mmapshared:FILE), each job its own --mem after its --name
p=$(ad fio --plan --mode quick --threads 1 --buffer-dir /dev/shm/pb-x 2>/dev/null) || fail "fio --plan --buffer-dir"
for j in seq_write seq_write_new seq_read rand_read.psync rand_read.io_uring; do
	f="read"
	case $j in *write*) f="write" ;; esac
	echo "$p" | tr ' ' '\n' | awk -v j="--name=$j." '
		index($0, j) == 1 { on = 1; next } /^--name=/ { on = 0 } on && /^--mem=/ { print }' |
		grep -qx -- "--mem=mmapshared:/dev/shm/pb-x/$f.buf" || fail "fio --buffer-dir: job $j does not map $f.buf: $p"
done
ad fio --plan --buffer-dir 2>/dev/null && fail "fio --buffer-dir without a value accepted"
echo "$p" | grep -q -- '--cpus_allowed' && fail "fio: pinned without --cpu"
p=$(ad fio --plan --mode tiny --threads 1 --cpu 1 2>/dev/null) || fail "fio --plan --cpu"
echo "$p" | grep -q -- '--cpus_allowed=1' || fail "fio --cpu 1: jobs not on CPU 1: $p"
ok "fio: the same job as diskbench"

# likwid-bench: the widest ISA of the CPU, membench's working set of the mode
printf 'flags\t\t: fpu sse sse2 avx fma avx2\n' >"$out/cpu-avx2"
p=$(PEAKBENCH_CPUINFO="$out/cpu-avx2" ad likwid --plan --mode tiny) || fail "likwid --plan"
echo "$p" | grep -q 'likwid-bench -t stream_mem_avx -w S0:16777kB:1' || fail "likwid tiny: stream_mem_avx on 16 MiB: $p"
echo "$p" | grep -q 'avx512' && fail "likwid: avx512 kernels on a CPU without AVX-512"
ok "likwid-bench: the widest ISA there is, membench's size"
# A paired round's shorter timed run: --min-seconds is likwid-bench -s; zero or a word is
# a usage error (exit 2)
p=$(PEAKBENCH_CPUINFO="$out/cpu-avx2" ad likwid --plan --mode tiny --threads 1 --tests copy_mem_avx --min-seconds 0.5) ||
	fail "likwid --plan --min-seconds"
if [ "$(echo "$p" | grep -c 'likwid-bench ')" != 1 ] || ! echo "$p" | grep -q -- '-t copy_mem_avx -w S0:11184kB:1 -s 0.5$'; then
	fail "likwid --tests copy_mem_avx --min-seconds 0.5: $p"
fi
for bad in 0 0.0 fast; do
	ad likwid --plan --min-seconds "$bad" >/dev/null 2>&1
	[ $? = 2 ] || fail "likwid --min-seconds $bad: not a usage error"
done
ok "likwid-bench: --min-seconds is -s; a bad one is a usage error"

p=$(ad iperf3 --plan --mode quick --threads 1,2) || fail "iperf3 --plan"
echo "$p" | grep -q 'iperf3 -c 127.0.0.1 -p [0-9]* -l 64K -O 1 -t 1 -P 1 --json' || fail "iperf3: TCP 1 stream 64 KiB, first second omitted"
echo "$p" | grep -q -- ' -A ' && fail "iperf3: pinned without --cpu"
# UDP: netbench's 4 MiB socket buffers on both ends (-w), unpaced, 1472-byte datagrams
echo "$p" | grep -q 'iperf3 -c 127.0.0.1 -p [0-9]* -u -b 0 -l 1472 -w 4M -O 1 -t 1 -P 1 --json' ||
	fail "iperf3: UDP without netbench's socket buffers: $p"
p=$(ad iperf3 --plan --mode tiny --threads 1 --cpu 1) || fail "iperf3 --plan --cpu"
echo "$p" | grep -q 'iperf3 -c 127.0.0.1 -p [0-9]* -l 64K -A 1 -t 1 -P 1 --json' || fail "iperf3 --cpu 1: client on CPU 1 (tiny: nothing omitted): $p"
p=$(ad sockperf --plan --mode tiny) || fail "sockperf --plan"
echo "$p" | grep -q 'sockperf ping-pong .* --tcp -m 16 .*--full-rtt' || fail "sockperf: TCP 16 B full round trip"
echo "$p" | grep -q 'taskset' && fail "sockperf: pinned without --cpu"
p=$(ad sockperf --plan --mode tiny --cpu 0) || fail "sockperf --plan --cpu"
echo "$p" | grep -q '^taskset -c 0 sockperf ping-pong ' || fail "sockperf --cpu 0: client on CPU 0: $p"
ad sockperf --plan --cpu x 2>/dev/null && fail "sockperf --cpu x accepted"
# --server-cpu: the server where netbench's --server-cpus puts its own
p=$(ad iperf3 --plan --mode tiny --threads 1 --cpu 0 --server-cpu 1) || fail "iperf3 --plan --server-cpu"
echo "$p" | grep -q ' -A 0,1 ' || fail "iperf3 --cpu 0 --server-cpu 1: not -A 0,1: $p"
p=$(ad sockperf --plan --mode tiny --cpu 0 --server-cpu 1) || fail "sockperf --plan --server-cpu"
echo "$p" | grep -q '^taskset -c 1 sockperf server ' || fail "sockperf --server-cpu 1: server not on CPU 1: $p"
echo "$p" | grep -q '^taskset -c 0 sockperf ping-pong ' || fail "sockperf --cpu 0: client not on CPU 0: $p"
ad iperf3 --plan --server-cpu x 2>/dev/null && fail "iperf3 --server-cpu x accepted"
ok "iperf3 and sockperf: netbench's message sizes"
