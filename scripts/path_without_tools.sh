#!/usr/bin/env bash
# A PATH without the reference tools, to test and run peakbench as on a machine that lacks
# them while they are installed (CI's build with every optional feature off).
#   scripts/path_without_tools.sh DIR   prints the PATH to use; DIR is made for it
# Each PATH entry that holds a tool is replaced by DIR/<n>, a folder of symbolic links to
# everything in that entry but the tools; the other entries stay as they are.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "path_without_tools.sh: usage: path_without_tools.sh DIR" >&2
	exit 2
fi
dir=$1
tools='^(fio|iperf3?|sockperf|qperf|hpcc|iozone|likwid-.*)$'
mkdir -p "$dir" || exit 1

has_tool() { # dir
	local f
	for f in "$1"/*; do
		[[ ${f##*/} =~ $tools ]] && return 0
	done
	return 1
}

out="" n=0
IFS=: read -r -a entries <<<"$PATH"
for e in "${entries[@]}"; do
	if [ -z "$e" ] || [ ! -d "$e" ]; then continue; fi
	if ! has_tool "$e"; then
		out+="${out:+:}$e"
		continue
	fi
	n=$((n + 1))
	rm -rf "${dir:?}/$n" && mkdir -p "$dir/$n" || exit 1
	keep=()
	for f in "$e"/* "$e"/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		[[ ${f##*/} =~ $tools ]] || keep+=("$f")
	done
	# One ln for the whole entry (xargs splits it at the argument limit): one per file took
	# 6 s for a /usr/bin of 2,000 names.
	[ ${#keep[@]} = 0 ] || printf '%s\0' "${keep[@]}" | xargs -0 ln -s -t "$dir/$n" -- || exit 1
	out+="${out:+:}$dir/$n"
done
printf '%s\n' "$out"
