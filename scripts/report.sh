#!/usr/bin/env bash
# report.sh DIR: DIR/report.md from the results folder run_all.sh left: the machine
# (context, theoretical peaks and their sources), one section per subsystem with PA1-style
# tables (Workload, Concurrency, Block size, mean ± stddev over N runs, Theoretical,
# Efficiency, Baseline, Baseline ratio), the charts, the reference tools, every warning
# flag in plain words, and what was not built, skipped or failed.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: scripts/report.sh RESULTS_DIR" >&2
	exit 2
fi
DIR=$1
STATUS="$DIR/status.tsv"

# Shared awk: number formatting and the flag vocabulary.
AWK_FMT='
function fmt(x,    a) {
	if (x == "" || !is_number(x)) return "–"
	a = x < 0 ? -x : x
	if (a >= 1000) return sprintf("%.0f", x)
	if (a >= 100) return sprintf("%.1f", x)
	if (a >= 10) return sprintf("%.2f", x)
	if (a >= 1) return sprintf("%.3f", x)
	if (a == 0) return "0"
	return sprintf("%.3g", x)
}
function human(b) {
	if (b == "") return "–"
	if (b >= 1073741824) return (b % 1073741824 == 0) ? (b / 1073741824) " GiB" : sprintf("%.1f GiB", b / 1073741824)
	if (b >= 1048576) return (b % 1048576 == 0) ? (b / 1048576) " MiB" : sprintf("%.1f MiB", b / 1048576)
	if (b >= 1024 && b % 1024 == 0) return (b / 1024) " KiB"
	if (b >= 65536) return sprintf("%.1f KiB", b / 1024)
	return b " B"
}
# Warning words of a flags cell (bare words; key=value pairs are notes, not warnings).
function warnings(flags,    n, i, w, out) {
	n = split(flags, w, ";"); out = ""
	for (i = 1; i <= n; i++) {
		# A skipped: or failed: reason is the rest of the cell, whatever it holds.
		if (w[i] ~ /^skipped:|^failed:/) break
		if (w[i] != "" && index(w[i], "=") == 0) out = out (out == "" ? "" : ", ") w[i]
	}
	return out
}
'

# One PA1-style table. Args: CSV suite test_re metric_re variant_re pct(0|1) exclude_re
table() {
	local csv=$1
	[ -s "$csv" ] || return 1
	awk -v suite="$2" -v test_re="$3" -v metric_re="$4" -v vre="$5" -v pct="$6" -v xre="${7:-^$}" \
		"$PEAK_AWK_LIB$AWK_FMT"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_SUITE] != suite || f[C_TEST] !~ test_re || f[C_METRIC] !~ metric_re) next
		if (f[C_VARIANT] !~ vre || f[C_VARIANT] ~ xre) next
		rows++
		u = f[C_UNIT]
		wl = f[C_TEST] (f[C_VARIANT] != "" ? " (" f[C_VARIANT] ")" : "")
		conc = f[C_THREADS] == "" ? "–" : f[C_THREADS]
		if (f[C_N] == 0 || f[C_MEAN] == "") val = "not measured"
		else val = fmt(f[C_MEAN]) " ± " fmt(f[C_STDDEV] == "" ? 0 : f[C_STDDEV]) " " u " (" f[C_N] ")"
		line = "| " wl " | " conc " | " human(f[C_BLOCK]) " | " val " |"
		if (pct) line = line " " fmt(f[C_P50]) " | " fmt(f[C_P99]) " | " fmt(f[C_P999]) " |"
		theo = f[C_THEO] == "" ? "unknown" : fmt(f[C_THEO]) " " u
		eff = is_number(f[C_EFF]) ? sprintf("%.1f%%", f[C_EFF] * 100) : "–"
		base = is_number(f[C_BASE]) ? fmt(f[C_BASE]) " " u " (" f[C_BTOOL] ")" : "–"
		ratio = (is_number(f[C_BASE]) && f[C_BASE] > 0 && is_number(f[C_MEAN])) ? sprintf("%.0f%%", f[C_MEAN] / f[C_BASE] * 100) : "–"
		# PA1 order: each workload (in the order the suite reported it), then block, then threads.
		wk = f[C_TEST] SUBSEP f[C_VARIANT] SUBSEP f[C_METRIC] SUBSEP u
		if (!(wk in wid)) wid[wk] = ++nw
		key[rows] = sprintf("%06d %020d %08d", wid[wk], f[C_BLOCK] + 0, f[C_THREADS] + 0)
		out[rows] = line " " theo " | " eff " | " base " | " ratio " | " warnings(f[C_FLAGS]) " |"
	}
	END {
		if (!rows) exit 1
		printf "| Workload | Concurrency | Block size | Value (mean ± stddev, N runs) |"
		if (pct) printf " p50 | p99 | p99.9 |"
		print " Theoretical | Efficiency | Baseline | Baseline ratio | Notes |"
		printf "| --- | ---: | ---: | ---: |"
		if (pct) printf " ---: | ---: | ---: |"
		print " ---: | ---: | ---: | ---: | --- |"
		for (i = 1; i <= rows; i++) idx[i] = i
		for (i = 2; i <= rows; i++) {
			t = idx[i]
			for (j = i - 1; j >= 1 && key[idx[j]] > key[t]; j--) idx[j + 1] = idx[j]
			idx[j + 1] = t
		}
		for (i = 1; i <= rows; i++) print out[idx[i]]
	}' "$csv"
}

charts() {
	local c
	for c in "$@"; do
		[ -s "$DIR/charts/$c.png" ] && printf '![%s](charts/%s.png)\n\n' "$c" "$c"
	done
	return 0
}

# Steps of SUITE that did not run, from status.tsv, as a list.
status_notes() {
	awk -F'\t' -v s="$1" '$2 == s && $3 != "ok" {
		st = $3; gsub(/_/, " ", st)
		if ($5 ~ "^" st) print "- " $1 ": " $5
		else print "- " $1 ": " st ($5 != "" ? " (" $5 ")" : "")
	}' "$STATUS" 2>/dev/null
}

section() {
	local suite=$1 title=$2
	echo
	echo "## $title"
	echo
	status_notes "$suite"
	if [ ! -s "$DIR/$suite.csv" ]; then
		if [ -z "$(status_notes "$suite")" ]; then
			if [ "$suite" = dpdk ] && ! pkg-config --exists libdpdk 2>/dev/null; then
				echo "- dpdk: not built (libdpdk not found)"
			else
				echo "- $suite: not run in this results folder"
			fi
		fi
		return 1
	fi
	echo
	return 0
}

machine() {
	echo "## Machine"
	echo
	if [ -s "$DIR/context.json" ] && peak_have jq; then
		echo "| | |"
		echo "| --- | --- |"
		jq -r '
		def v($k): if has($k) then (.[$k] | tostring) else "unknown" end;
		def size($k): if (.[$k] | type) == "number" then
			(if .[$k] >= 1048576 then "\(.[$k] / 1048576 * 100 | round / 100) MiB"
			 else "\(.[$k] / 1024) KiB" end) else "unknown" end;
		"| CPU | \(v("cpu.model")) (family \(v("cpu.family")), model \(v("cpu.model_number"))) |",
		"| ISA | \(v("cpu.isa")) |",
		"| CPUs | \(v("cpu.allowed")) allowed of \(v("cpu.logical")) logical, \(v("cpu.cores")) cores, \(v("cpu.sockets")) socket(s), \(v("numa.nodes")) NUMA node(s) |",
		"| Clock | \(v("cpu.ghz.measured")) GHz measured, \(v("cpu.ghz.nominal")) GHz nominal |",
		"| Caches | L1d \(size("cache.l1d")), L2 \(size("cache.l2")), L3 \(size("cache.l3")) (shared by \(v("cache.l3_shared_by"))) |",
		"| Memory | \((.["mem.total_bytes"] // 0) / 1073741824 * 10 | round / 10) GiB total, \((.["mem.available_bytes"] // 0) / 1073741824 * 10 | round / 10) GiB available |",
		"| OS | \(v("os.kernel")), hypervisor \(v("hypervisor")), clocksource \(v("clocksource")), governor \(v("governor")), THP \(v("thp")) |",
		"| Build | \(v("build.compiler")) \(v("build.cflags")) (\(v("build.type"))), git \(v("git.revision")) |",
		"| Taken | \(v("timestamp")) |",
		(if has("c2c.end_round_trip_ns") then
			"| VM placement | core-to-core round trip (min/median ns per CPU pair) \(v("c2c.round_trip_ns")) at the start, \(v("c2c.end_round_trip_ns")) at the end: \(if .["c2c.moved"] == true then "**the host moved the vCPUs during the run** (a pair changed by over 1.5x): figures taken minutes apart ran on different placements" else "no move seen" end) |"
		 else empty end),
		(if has("warnings") and (.warnings | tostring) != "" then "| Context warnings | \(.warnings) |" else empty end)
		' "$DIR/context.json"
		echo
		echo "<details><summary>Every context key</summary>"
		echo
		echo "| key | value |"
		echo "| --- | --- |"
		jq -r 'to_entries[] | "| \(.key) | \(.value | tostring | gsub("\\|"; "/")) |"' "$DIR/context.json"
		echo
		echo "</details>"
	else
		echo "No context: peakinfo did not run (see the steps above)."
	fi
	echo
	echo "### Theoretical peaks and their sources"
	echo
	if [ -s "$DIR/peaks.csv" ]; then
		awk "$PEAK_AWK_LIB$AWK_FMT"'
		FNR == 1 { print "| Subsystem | Item | Peak | Source | How |"; print "| --- | --- | ---: | --- | --- |"; next }
		{
			csv_split($0, f)
			if (f[C_TEST] != "peak" && f[C_TEST] != "frequency") next
			v = f[C_THEO] != "" ? f[C_THEO] : f[C_MEAN]
			src = flag_value(f[C_FLAGS], "source"); how = f[C_FLAGS]; sub(/^source=[^;]*;?/, "", how)
			gsub(/;/, "; ", how); gsub(/\|/, "/", how)
			item = f[C_TEST] == "frequency" ? "clock (" f[C_VARIANT] ")" : f[C_VARIANT] (f[C_THREADS] != "" ? " x" f[C_THREADS] : "")
			print "| " f[C_SUITE] " | " item " | " (v == "" ? "unknown" : fmt(v) " " f[C_UNIT]) " | " (src == "" ? "–" : src) " | " how " |"
		}' "$DIR/peaks.csv"
	else
		echo "No peaks: peakinfo did not run."
	fi
}

steps() {
	echo "## Steps"
	echo
	if [ -s "$STATUS" ]; then
		echo "| Step | Suite | Status | Seconds | Note |"
		echo "| --- | --- | --- | ---: | --- |"
		awk -F'\t' '{ st = $3; gsub(/_/, " ", st); n = $5; gsub(/\|/, "/", n); print "| " $1 " | " $2 " | " st " | " $4 " | " n " |" }' "$STATUS"
	else
		echo "No status.tsv: this folder was not written by run_all.sh."
	fi
}

# Best efficiency per suite, test and variant (at the concurrency that reached it).
efficiency_summary() {
	local files=() s
	for s in cpu memory disk network dpdk; do [ -s "$DIR/$s.csv" ] && files+=("$DIR/$s.csv"); done
	echo "### Efficiency (best over the thread counts)"
	echo
	if [ ${#files[@]} -eq 0 ] || ! awk "$PEAK_AWK_LIB$AWK_FMT"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (!is_number(f[C_EFF]) || f[C_N] == 0) next
		k = f[C_SUITE] SUBSEP f[C_TEST] SUBSEP f[C_VARIANT] SUBSEP f[C_METRIC]
		if (!(k in best)) order[++n] = k
		if (!(k in best) || f[C_EFF] > best[k]) {
			best[k] = f[C_EFF]; line[k] = "| " f[C_SUITE] " | " f[C_TEST] " (" f[C_VARIANT] ") | " f[C_THREADS] " | " human(f[C_BLOCK]) " | " fmt(f[C_MEAN]) " " f[C_UNIT] " | " fmt(f[C_THEO]) " " f[C_UNIT] " | " sprintf("%.1f%%", f[C_EFF] * 100) " | " warnings(f[C_FLAGS]) " |"
		}
	}
	END {
		if (n == 0) exit 1
		print "| Subsystem | Workload | Concurrency | Block size | Value | Theoretical | Efficiency | Notes |"
		print "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
		for (i = 1; i <= n; i++) print line[order[i]]
	}' "${files[@]}"; then
		echo "No row has a theoretical peak to compare with."
	fi
}

cpu_section() {
	section cpu CPU || return 0
	echo "### Floating point (GFLOPS)"
	echo
	table "$DIR/cpu.csv" cpu '^flops$' '^flops$' '' 0 || echo "No flops rows."
	echo
	echo "### Integer (GIOPS)"
	echo
	table "$DIR/cpu.csv" cpu '^iops$' '' '' 0 || echo "No iops rows."
	echo
	echo "### Linpack (LAPACKE dgesv)"
	echo
	table "$DIR/cpu.csv" cpu '^linpack$' '^flops$' '' 0 || echo "No linpack rows."
	echo
	charts cpu_flops_dp cpu_flops_sp cpu_iops_i32 cpu_iops_i64 cpu_linpack
}

memory_section() {
	section memory Memory || return 0
	echo "### Throughput (bytes read + bytes written, per second)"
	echo
	table "$DIR/memory.csv" memory '^(seq|rand)_' '^throughput$' '' 0 || echo "No throughput rows."
	echo
	echo "### STREAM"
	echo
	table "$DIR/memory.csv" memory '^stream$' '^throughput$' '' 0 || echo "No STREAM rows."
	echo
	echo "### Load latency vs working set (pointer chase)"
	echo
	awk "$PEAK_AWK_LIB$AWK_FMT"'
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_SUITE] != "memory" || f[C_TEST] != "latency" || f[C_N] == 0) next
		k = f[C_VARIANT] SUBSEP f[C_BLOCK] SUBSEP f[C_THREADS]
		if (!(k in seen)) { seen[k] = 1; order[++n] = k; lvl[k] = flag_value(f[C_FLAGS], "level"); wl[k] = f[C_VARIANT]; ws[k] = f[C_BLOCK]; th[k] = f[C_THREADS]; notes[k] = warnings(f[C_FLAGS]) }
		if (f[C_UNIT] == "ns") { ns[k] = fmt(f[C_MEAN]) " ± " fmt(f[C_STDDEV]); nn[k] = f[C_N] }
		else if (f[C_UNIT] == "cycles") cy[k] = fmt(f[C_MEAN])
	}
	END {
		if (n == 0) { print "No latency rows."; exit }
		print "| Variant | Concurrency | Working set | Level | Latency ns (mean ± stddev, N) | Cycles | Notes |"
		print "| --- | ---: | ---: | --- | ---: | ---: | --- |"
		for (i = 1; i <= n; i++) { k = order[i]; print "| " wl[k] " | " th[k] " | " human(ws[k]) " | " lvl[k] " | " ns[k] " (" nn[k] ") | " (k in cy ? cy[k] : "–") " | " notes[k] " |" }
	}' "$DIR/memory.csv"
	echo
	charts memory_seq_rw memory_rand_rw memory_seq_read memory_rand_read memory_seq_write \
		memory_rand_write memory_stream memory_latency
	echo "### Roofline"
	echo
	if [ -s "$DIR/levels.csv" ]; then
		echo "Read bandwidth of each memory level (every CPU reading a buffer that fits the level):"
		echo
		awk "$PEAK_AWK_LIB$AWK_FMT"'
		FNR == 1 { print "| Level | Buffer per run | Concurrency | Read bandwidth | Notes |"; print "| --- | --- | ---: | ---: | --- |"; next }
		{ csv_split($0, f); print "| " flag_value(f[C_FLAGS], "level") " | " f[C_TEST] " (" f[C_VARIANT] ", " human(f[C_BLOCK]) " blocks) | " f[C_THREADS] " | " fmt(f[C_MEAN] / 1000) " GB/s | " warnings(f[C_FLAGS]) " |" }' "$DIR/levels.csv"
		echo
	fi
	charts roofline
}

disk_section() {
	section disk Disk || return 0
	echo "### Throughput (MB/s)"
	echo
	table "$DIR/disk.csv" disk '' '^throughput$' '' 0 || echo "No throughput rows."
	echo
	echo "### IOPS"
	echo
	table "$DIR/disk.csv" disk '' '^iops$' '' 0 || echo "No IOPS rows."
	echo
	echo "### Latency per I/O (us)"
	echo
	table "$DIR/disk.csv" disk '' '^latency$' '' 1 || echo "No latency rows."
	echo
	charts disk_seq_rw disk_seq_read disk_seq_write disk_rand_read disk_rand_write disk_iops disk_latency
}

network_section() {
	section network Network || return 0
	echo "### Throughput at the receiver (Gbit/s)"
	echo
	table "$DIR/network.csv" network '_throughput$' '^throughput$' '' 0 || echo "No throughput rows."
	echo
	echo "### UDP loss"
	echo
	table "$DIR/network.csv" network '' '^loss$' '' 0 || echo "No loss rows."
	echo
	echo "### Round-trip latency (us)"
	echo
	table "$DIR/network.csv" network '_latency$' '^latency$' '' 1 || echo "No latency rows."
	echo
	echo "### Transactions per second and CPU use"
	echo
	table "$DIR/network.csv" network '' '^(transaction_rate|cpu_sender|cpu_receiver)$' '' 0 || echo "No rows."
	echo
	charts network_throughput network_latency network_loss
}

dpdk_section() {
	section dpdk "DPDK" || return 0
	echo "### Packet rate and bit rate"
	echo
	table "$DIR/dpdk.csv" dpdk '' '^throughput$' '' 0 || echo "No throughput rows."
	echo
	echo "### Latency and loss"
	echo
	table "$DIR/dpdk.csv" dpdk '' '^latency$' '' 1 || echo "No latency rows."
	echo
	table "$DIR/dpdk.csv" dpdk '' '^loss$' '' 0 || true
	echo
	charts dpdk_mpps
	dpdk_vs_kernel
}

# Memory behind each DPDK step's EAL (hugepages matter: 64 B net_ring goes from about 27 to
# about 40 Mpps on the development VM), from the context each step recorded.
dpdk_eal_memory() {
	local f args step
	peak_have jq || return 0
	for f in "$DIR"/raw/dpdk-*.json; do
		[ -s "$f" ] || continue
		args=$(jq -r '.context.dpdk_eal_args // empty' "$f" 2>/dev/null)
		[ -n "$args" ] || continue
		step=${f##*/dpdk-}
		step=${step%.json}
		[ "$step" != dpdkbench ] || step="net_ring loopback"
		[ "$step" != memif ] || step="memif pair (tester)"
		[ "$step" != memif-rate ] || step="memif pair at --rate 0.1 (tester)"
		case " $args " in
		*" --no-huge "*) echo "- $step: ordinary memory (\`$args\`)" ;;
		*) echo "- $step: hugepages (\`$args\`)" ;;
		esac
	done
}

# DPDK's tester/dut pair over memif next to the kernel's UDP path (netbench loopback, run
# by run_all.sh at the payload of each frame size), per frame size and DPDK run.
dpdk_vs_kernel() {
	local net="$DIR/network.csv"
	[ -s "$net" ] || net=/dev/null
	echo
	echo "### DPDK (memif, user space) vs kernel UDP (netbench loopback)"
	echo
	echo "A frame of S bytes (FCS included) carries S - 46 bytes of UDP payload (Ethernet 14, IPv4 20,"
	echo "UDP 8, FCS 4); the kernel ran at that payload. DPDK: tester -> dut over net_memif, one"
	echo "lcore each; Mpps and L2 Gbit/s (frame bits with FCS) counted at the dut (\`rx_dut\`), loss"
	echo "tester -> dut; latency the round trip (\`latency_roundtrip\`), under full load (rings full:"
	echo "queueing) and at a light load (\`--rate\`, the \`-rR\` run: 1 flow). Kernel:"
	echo "netbench loopback, one connection; \`udp_throughput\` Gbit/s of UDP payload at the receiver"
	echo "(Mpps derived from it: Gbit/s / payload bits) and its loss; latency the \`udp_latency\`"
	echo "round trip, one message at a time (no load). Means over the repetitions; n/a: not measured."
	echo
	dpdk_eal_memory
	echo
	awk "$PEAK_AWK_LIB$AWK_FMT"'
	function na(x) { return (x == "" || !is_number(x)) ? "n/a" : fmt(x) }
	function ratio(a, b) { return (is_number(a) && is_number(b) && b > 0 && a != "") ? sprintf("%.2fx", a / b) : "n/a" }
	function val(x, n) { return (n == 0 || x == "") ? "" : x }
	FNR == 1 { next }
	FILENAME ~ /dpdk\.csv$/ {
		csv_split($0, f)
		if (f[C_SUITE] != "dpdk" || f[C_VARIANT] !~ /^memif-/) next
		v = f[C_VARIANT]; l2 = sub(/-l2$/, "", v); if (v ~ /-l1$/) next
		if (match(v, /-r[0-9.e+]+$/)) {
			# The light-load run: its round trip goes next to the saturated one.
			if (f[C_TEST] == "latency_roundtrip" && f[C_N] > 0) { r50[f[C_BLOCK]] = f[C_P50]; r99[f[C_BLOCK]] = f[C_P99]; rname = substr(v, RSTART + 2) }
			next
		}
		k = f[C_BLOCK] SUBSEP v
		if (!(k in seen)) { seen[k] = 1; key[++n] = sprintf("%08d %06d", f[C_BLOCK] + 0, n); kk[key[n]] = k; size[k] = f[C_BLOCK]; var[k] = v }
		m = val(f[C_MEAN], f[C_N])
		if (f[C_TEST] == "rx_dut" && f[C_UNIT] == "Mpps") mpps[k] = m
		else if (f[C_TEST] == "rx_dut" && l2) gbps[k] = m
		else if (f[C_TEST] == "loss_dut") loss[k] = m
		else if (f[C_TEST] == "latency_roundtrip" && f[C_N] > 0) { p50[k] = f[C_P50]; p99[k] = f[C_P99] }
		next
	}
	{
		csv_split($0, f)
		if (f[C_SUITE] != "network" || f[C_N] == 0 || f[C_MEAN] == "") next
		if (f[C_VARIANT] != "udp-vs-dpdk" && !(f[C_VARIANT] == "udp" && f[C_THREADS] == 1)) next
		b = f[C_BLOCK]; pri = f[C_VARIANT] == "udp-vs-dpdk" ? 2 : 1
		if (f[C_TEST] == "udp_throughput" && f[C_METRIC] == "throughput" && pri >= kg_pri[b]) { kg[b] = f[C_MEAN]; kg_pri[b] = pri }
		if (f[C_TEST] == "udp_throughput" && f[C_METRIC] == "loss" && pri >= kl_pri[b]) { kl[b] = f[C_MEAN]; kl_pri[b] = pri }
		if (f[C_TEST] == "udp_latency" && f[C_METRIC] == "latency" && pri >= kp_pri[b]) { k50[b] = f[C_P50]; k99[b] = f[C_P99]; kp_pri[b] = pri }
	}
	END {
		if (n == 0) { print "No memif tester/dut rows in dpdk.csv (see the steps above)."; exit }
		light = (rname == "") ? "light load" : rname " Mpps"
		print "| Frame | UDP payload | DPDK run | DPDK Mpps | DPDK Gbit/s (L2) | DPDK RTT p50 / p99, full load (us) | DPDK RTT p50 / p99 at " light " (us) | DPDK loss | Kernel Mpps | Kernel Gbit/s (payload) | Kernel RTT p50 / p99 (us) | Kernel loss | Mpps DPDK / kernel | RTT p50 kernel / DPDK at " light " |"
		print "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		for (i = 2; i <= n; i++) { t = key[i]; for (j = i - 1; j >= 1 && key[j] > t; j--) key[j + 1] = key[j]; key[j + 1] = t }
		for (i = 1; i <= n; i++) {
			k = kk[key[i]]; s = size[k]; pl = s - 46
			kmpps = (pl in kg) ? kg[pl] * 1000 / (pl * 8) : ""
			print "| " s " B | " pl " B | " var[k] " | " na(mpps[k]) " | " na(gbps[k]) " | " na(p50[k]) " / " na(p99[k]) " | " \
				na(r50[s]) " / " na(r99[s]) " | " \
				(is_number(loss[k]) ? fmt(loss[k]) " %" : "n/a") " | " na(kmpps) " | " na(kg[pl]) " | " na(k50[pl]) " / " na(k99[pl]) " | " \
				((pl in kl) ? fmt(kl[pl]) " %" : "n/a") " | " ratio(mpps[k], kmpps) " | " ratio(k50[pl], r50[s]) " |"
		}
	}' "$DIR/dpdk.csv" "$net"
}

baseline_section() {
	echo
	echo "## Reference tools"
	echo
	status_notes baseline
	if [ ! -s "$DIR/baseline.csv" ]; then
		echo "No reference tool ran (--no-baselines, or none installed)."
		return 0
	fi
	echo
	local matches="$DIR/matches.tsv"
	[ -s "$matches" ] || matches=/dev/null
	echo "Each tool ran with parameters matched to ours (see docs/benchmarks/suite.md for the mapping);"
	echo "the ratio is peakbench / tool (for latency lower is better, so below 100% means peakbench is faster)."
	if grep -q '^baseline,seq_write' "$DIR/baseline.csv"; then
		echo
		echo "Disk writes come in two layouts, each against its own fio job: **seq_write** overwrites a file"
		echo "already laid out (fio \`--overwrite=1\`), **seq_write_new** is the first write into a newly"
		echo "allocated file (fio's plain \`--rw=write\` on a new file, whose blocks are allocated but unwritten)."
		echo "On a virtual or thin-provisioned disk the first write is slower; compare each with its own row."
	fi
	echo
	awk -F'\t' "$PEAK_AWK_LIB$AWK_FMT"'
	FILENAME ~ /matches\.tsv$/ { k = $7 SUBSEP $11 SUBSEP $4 SUBSEP $5 SUBSEP $6 SUBSEP $2; if (!(k in ours)) { ours[k] = $9; ou[k] = $10; ov[k] = $1 " " $2 " (" $3 ")"; bv[k] = $8 } ; next }
	FNR == 1 { next }
	{
		csv_split($0, f)
		if (f[C_N] == 0 || f[C_MEAN] == "") {
			# One line per tool and reason: a tool that is not installed is said once.
			k = f[C_BTOOL] SUBSEP f[C_FLAGS]; t = f[C_TEST] (f[C_VARIANT] == f[C_BTOOL] ? "" : " (" f[C_VARIANT] ")")
			if (!(k in sk)) { sko[++ns] = k; skt[k] = f[C_BTOOL] " " t }
			else if (index(skt[k] ", ", " " t ", ") == 0) skt[k] = skt[k] ", " t
			sk[k] = f[C_FLAGS]
			next
		}
		if (!hdr++) {
			print "| Tool | Tool test | Concurrency | Block size | Tool value | peakbench row | peakbench value | Ratio | Notes |"
			print "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"
		}
		mine = "–"; row = "not measured by peakbench"; ratio = "–"
		for (kk in ours) {
			split(kk, p, SUBSEP)
			if (p[1] == f[C_BTOOL] && p[2] == f[C_VARIANT] && p[5] == f[C_METRIC] && p[6] == f[C_TEST] && (f[C_THREADS] == "" || p[3] == f[C_THREADS]) && (f[C_BLOCK] == "" || p[4] == f[C_BLOCK])) {
				mine = fmt(ours[kk]) " " ou[kk]; row = ov[kk]
				if (bv[kk] > 0) ratio = sprintf("%.0f%%", ours[kk] / bv[kk] * 100)
				break
			}
		}
		notes = warnings(f[C_FLAGS]); info = f[C_FLAGS]; gsub(/;/, "; ", info); sub(/^ours=[^;]*; ?/, "", info)
		print "| " f[C_BTOOL] " | " f[C_TEST] " (" f[C_VARIANT] ") | " (f[C_THREADS] == "" ? "–" : f[C_THREADS]) " | " human(f[C_BLOCK]) " | " fmt(f[C_MEAN]) " " f[C_UNIT] " | " row " | " mine " | " ratio " | " info " |"
	}
	END {
		if (ns) { print ""; print "Skipped or failed:"; print ""; for (i = 1; i <= ns; i++) print "- " skt[sko[i]] ": " sk[sko[i]] }
	}' "$matches" "$DIR/baseline.csv"
	echo
	charts baseline
}

# Every warning flag of every row, with what it means.
warnings_section() {
	local files=() s
	for s in cpu memory disk network dpdk baseline; do [ -s "$DIR/$s.csv" ] && files+=("$DIR/$s.csv"); done
	echo
	echo "## Warnings"
	echo
	if [ ${#files[@]} -eq 0 ] || ! awk "$PEAK_AWK_LIB"'
	BEGIN {
		say["steal"] = "the hypervisor took CPU time from this VM during the measurement (steal time): figures are low and noisy"
		say["oversubscribed"] = "more threads than allowed CPUs: threads time-share cores, so per-thread figures fall"
		say["contended"] = "another process used our CPUs during the run (wall time > CPU time): the figure is low"
		say["unpinned"] = "threads could not be pinned to CPUs (affinity refused): the scheduler moved them"
		say["cached"] = "the working set fits in a CPU cache (or the page cache): this is not a DRAM / device figure"
		say["small_arrays"] = "STREAM arrays smaller than 4x the last-level cache: not a DRAM figure"
		say["above_peak"] = "above the theoretical peak: either the peak input (peaks.conf, frequency) or the measurement is wrong"
		say["zero"] = "a zero rate or latency: the measurement is not physical"
		say["unverified"] = "the data written was not read back and checked (use --verify)"
		say["buffered"] = "O_DIRECT was not possible for this block size: buffered I/O"
		say["cache_dropped"] = "the file pages were dropped from the page cache before each repetition (posix_fadvise)"
		say["tmpfs"] = "the test directory is on tmpfs: this measures memory, not a disk"
		say["time_based"] = "repetitions ran for a fixed time rather than one pass over the file"
		say["iodepth_capped"] = "the requested queue depth was capped (more I/Os in flight than the engine allows)"
		say["size_grown"] = "the buffer was grown so every thread holds at least two blocks"
		say["thp_partial"] = "transparent huge pages covered only part of the buffer"
		say["no_peak"] = "no theoretical peak is known for this row"
		say["vdev"] = "DPDK ran on a virtual device (net_ring / memif), not a NIC: no wire, no PHY limit"
		say["same_run_as_dgesv"] = "the same linpack solve, compared with another theoretical peak"
		say["fma"] = "the peak counts fused multiply-add as two operations"
		say["chains_disagree"] = "the integer and floating-point frequency chains disagree by more than 5%"
		say["single_process"] = "the tool ran one process (one thread for STREAM)"
		say["star_x_procs"] = "hpcc StarSTREAM per-process figure multiplied by the number of processes"
		say["half_rtt_doubled"] = "sockperf printed half the round trip; doubled to a round trip"
		say["fsync"] = "fsync is inside the timing"
	}
	FNR == 1 { next }
	{
		csv_split($0, f)
		n = split(f[C_FLAGS], w, ";")
		for (i = 1; i <= n; i++) {
			x = w[i]
			if (x ~ /^skipped:|^failed:/) break # the reason is the rest of the cell
			if (x == "" || index(x, "=")) continue
			if (!(x in cnt)) order[++m] = x
			cnt[x]++
			if (index(where[x], f[C_SUITE]) == 0) where[x] = where[x] (where[x] == "" ? "" : ", ") f[C_SUITE]
		}
	}
	END {
		if (m == 0) exit 1
		print "| Flag | Rows | Suites | Meaning |"
		print "| --- | ---: | --- | --- |"
		for (i = 1; i <= m; i++) { x = order[i]; print "| " x " | " cnt[x] " | " where[x] " | " (x in say ? say[x] : "(no description: see the suite'"'"'s docs)") " |" }
	}' "${files[@]}"; then
		echo "No row carries a warning flag."
	fi
}

{
	echo "# peakbench report"
	echo
	head -n 2 "$DIR/commands.txt" 2>/dev/null | sed 's/^# /- /'
	echo "- Results folder: \`$DIR\` (CSV and JSON per suite, baseline.csv, context.json, charts/, commands.txt)"
	echo
	steps
	echo
	echo "## Summary"
	echo
	efficiency_summary
	echo
	charts efficiency
	machine
	cpu_section
	memory_section
	disk_section
	network_section
	dpdk_section
	baseline_section
	warnings_section
} >"$DIR/report.md.tmp" && mv "$DIR/report.md.tmp" "$DIR/report.md"
