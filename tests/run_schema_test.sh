#!/bin/sh
# Run a peakbench binary at a tiny size in csv and/or json and validate the output.
# Usage: run_schema_test.sh SCHEMA_CHECK csv|json|both|both_at_once BINARY [ARGS...]
# both_at_once starts the two runs together: for a run that mostly waits (--sustain's
# fixed seconds), the test then takes one run's time, not two.
set -u
check=$1 formats=$2
shift 2
at_once=false
case $formats in
both) formats="csv json" ;;
both_at_once) formats="csv json" at_once=true ;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# run FMT: one run writing FMT; its exit code in $tmp/rc.FMT
run() {
	"$@" --format "$fmt" --output "$tmp/out.$fmt" 2>"$tmp/err.$fmt"
	echo $? >"$tmp/rc.$fmt"
}
for fmt in $formats; do
	if $at_once; then
		run "$@" &
	else
		run "$@"
	fi
done
wait
for fmt in $formats; do
	out="$tmp/out.$fmt"
	rc=$(cat "$tmp/rc.$fmt")
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $* --format $fmt exited $rc" >&2
		cat "$tmp/err.$fmt" >&2
		exit 1
	fi
	if ! "$check" "$fmt" "$out"; then
		echo "FAIL: $fmt output does not match the schema:" >&2
		head -c 4000 "$out" >&2
		exit 1
	fi
	echo "ok: $fmt output of $1 validates ($(wc -l <"$out") lines)"
done
