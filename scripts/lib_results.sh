# shellcheck shell=bash
# run_all.sh's results folder: per-step raw files (DIR/raw/STEP.json|csv) turned into the
# files the charts and the report read (DIR/<suite>.csv|json, baseline.csv, levels.csv,
# context.json, peaks.csv). Sourced by run_all.sh after scripts/lib.sh.

# Results JSON -> schema CSV (with header); without jq the step wrote CSV itself.
json_to_csv() {
	{
		echo "$PEAK_CSV_HEADER"
		jq -r "$PEAK_JQ_TO_CSV" "$1"
	} >"$2"
}

# retag FILE SUFFIX FRAME: append SUFFIX to every row's variant; with FRAME=1 also flag
# frame_bytes=<block_bytes + 46> (the Ethernet frame, FCS included, of that UDP payload).
retag() {
	local f=$1 suf=$2 frame=$3
	case $f in
	*.json)
		jq --arg s "$suf" --arg fr "$frame" '.results |= map(.variant += $s |
			if $fr == "1" and .block_bytes != null then
				.flags = ((.flags // "") | if . == "" then "" else . + ";" end) +
					"frame_bytes=\(.block_bytes + 46)"
			else . end)' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
		;;
	*)
		awk -v s="$suf" -v fr="$frame" "$PEAK_AWK_LIB"'FNR == 1 { print; next }
			{ n = csv_split($0, f); f[C_VARIANT] = f[C_VARIANT] s
			  if (fr == 1 && f[C_BLOCK] != "")
				f[C_FLAGS] = (f[C_FLAGS] == "" ? "" : f[C_FLAGS] ";") "frame_bytes=" (f[C_BLOCK] + 46)
			  print csv_join(f, n) }' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
		;;
	esac
}

# Merge the raw per-step files of one suite into DIR/<suite>.csv and <suite>.json.
merge_suite() { # DIR SUITE
	local dir=$1 suite=$2 f csvs=() jsons=()
	for f in "$dir"/raw/"$suite"-*.csv "$dir"/raw/"$suite".csv; do
		[ -s "$f" ] && csvs+=("$f")
	done
	[ ${#csvs[@]} -gt 0 ] || return 0
	{
		echo "$PEAK_CSV_HEADER"
		for f in "${csvs[@]}"; do tail -n +2 "$f"; done
	} >"$dir/$suite.csv"
	for f in "$dir"/raw/"$suite"-*.json; do
		[ -s "$f" ] && jsons+=("$f")
	done
	if [ ${#jsons[@]} -gt 0 ] && peak_have jq; then
		jq -s '{context: .[0].context, results: (map(.results) | add)}' "${jsons[@]}" \
			>"$dir/$suite.json"
	fi
}

# raw/levels-<L>.csv -> DIR/levels.csv, each row flagged level=<L> (the roofline's bandwidths).
merge_levels() { # DIR
	local dir=$1 f lv any=0
	{
		echo "$PEAK_CSV_HEADER"
		for f in "$dir"/raw/levels-*.csv; do
			[ -s "$f" ] || continue
			any=1
			lv=${f##*/levels-}
			lv=${lv%.csv}
			awk -v lv="$lv" "$PEAK_AWK_LIB"'FNR > 1 { n = csv_split($0, f)
				f[C_FLAGS] = (f[C_FLAGS] == "" ? "" : f[C_FLAGS] ";") "level=" lv
				print csv_join(f, n) }' "$f"
		done
	} >"$dir/levels.csv"
	[ "$any" = 1 ] || rm -f "$dir/levels.csv"
}

# baseline-*.csv -> baseline.csv (no file when no reference tool ran).
merge_baselines() { # DIR
	local dir=$1 f any=0
	{
		echo "$PEAK_CSV_HEADER"
		for f in "$dir"/raw/baseline-*.csv; do
			[ -s "$f" ] || continue
			any=1
			grep -v '^suite,test,' "$f"
		done
	} >"$dir/baseline.csv.tmp"
	if [ "$any" = 1 ]; then mv "$dir/baseline.csv.tmp" "$dir/baseline.csv"; else rm -f "$dir/baseline.csv.tmp"; fi
}

# peakinfo's context -> context.json, its peaks -> peaks.csv.
write_context() { # DIR
	local dir=$1
	local src="$dir/raw/peakinfo.json"
	if [ -s "$src" ] && peak_have jq; then
		# The placement fingerprint at the end of the run joins the start's.
		if [ -s "$dir/raw/placement.json" ]; then
			jq --slurpfile last "$dir/raw/placement.json" '.context + {
				"c2c.end_round_trip_ns": ($last[0].context["c2c.round_trip_ns"]),
				"c2c.moved": ($last[0].context["c2c.moved"])}' "$src" >"$dir/context.json"
		else
			jq '.context' "$src" >"$dir/context.json"
		fi
		# peakinfo's peaks are theoretical figures, not a suite: keep them as peaks.csv.
		json_to_csv "$src" "$dir/peaks.csv"
	elif [ -s "$dir/raw/peakinfo.csv" ]; then
		cp "$dir/raw/peakinfo.csv" "$dir/peaks.csv"
	fi
}

# peakinfo's loopback peak (Gbit/s) from the run's raw output; fails when there is none.
loopback_peak() { # dir
	local dir=$1 v=""
	if [ -s "$dir/raw/peakinfo.json" ] && command -v jq >/dev/null 2>&1; then
		v=$(jq -r '[.results[] | select(.suite == "network" and .variant == "loopback")
			| .theoretical | numbers][0] // empty' "$dir/raw/peakinfo.json")
	elif [ -s "$dir/raw/peakinfo.csv" ]; then
		v=$(grep '^network,peak,loopback,' "$dir/raw/peakinfo.csv" | cut -d, -f20)
	fi
	[ -n "$v" ] && [ "$v" != null ] || return 1
	printf '%s\n' "$v"
}
