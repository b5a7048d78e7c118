#!/usr/bin/env bash
# The order of libpeak's floors, checked (tests/layers/CMakeLists.txt).
#   check_layers.sh includes CC COMMON_DIR NAME=DIR[:DIR...]...   (floors lowest first)
#   check_layers.sh symbols NM LIB_LOWEST ... LIB_HIGHEST
#   check_layers.sh selftest CC NM AR   (both checks catch a break made on purpose in a
#                                        tree of their own, and pass that tree unbroken)
# Exit 0 when the order holds, 1 naming each break.
set -u
fail=0
broke() { echo "check_layers: $*" >&2; fail=1; }

# compile CC DIRS HEADER: compile `#include "HEADER"` with only DIRS on the path; the
# compiler's messages in $out, its exit status returned.
out=""
compile() {
	local cc=$1 dirs=$2 header=$3 flags=() d x
	IFS=: read -r -a d <<<"$dirs"
	for x in "${d[@]}"; do flags+=("-I$x"); done
	out=$(printf '#include "%s"\n' "$header" |
		"$cc" -std=gnu11 -fsyntax-only -x c "${flags[@]}" - 2>&1)
}

# not_found HEADER: the last compile failed because HEADER itself was not on the path
# (gcc: "HEADER: No such file", clang: "'HEADER' file not found"), not for another reason.
not_found() {
	grep -q -e "$1: No such file" -e "'$1' file not found" <<<"$out"
}

check_includes() {
	local cc=$1 common=$2
	shift 2
	local names=() paths=() i j h up
	for arg in "$@"; do
		names+=("${arg%%=*}")
		paths+=("${arg#*=}")
	done
	for ((i = 0; i < ${#names[@]}; i++)); do
		[ -d "$common/${names[i]}" ] || { broke "no folder $common/${names[i]}"; continue; }
		# The floor's own headers: each compiles with this floor's path alone (none of
		# them reaches up, and the path really holds the floor).
		for h in "$common/${names[i]}"/*.h; do
			compile "$cc" "${paths[i]}" "$(basename "$h")" ||
				broke "${names[i]}/$(basename "$h") does not compile with ${names[i]}'s include path:" \
					"$(grep -m1 error <<<"$out")"
		done
		# Every header of a floor above: not found from here (failing for another reason
		# would prove nothing).
		for ((j = i + 1; j < ${#names[@]}; j++)); do
			for h in "$common/${names[j]}"/*.h; do
				up=$(basename "$h")
				if compile "$cc" "${paths[i]}" "$up" || ! not_found "$up"; then
					broke "${names[i]} can include ${names[j]}/$up (a floor above)"
				fi
			done
		done
	done
	# The path is the gate only if nothing walks around it.
	local around
	around=$(grep -rnE '#[[:space:]]*include[[:space:]]*"[^"]*/' "$common" --include='*.[ch]' --include='*.def')
	[ -z "$around" ] || broke "an include by a relative path: $around"
}

check_symbols() {
	local nm=$1
	shift
	local libs=("$@") i j sym
	for ((i = 0; i < ${#libs[@]}; i++)); do
		[ -f "${libs[i]}" ] || { broke "no library ${libs[i]}"; continue; }
		for ((j = i + 1; j < ${#libs[@]}; j++)); do
			while read -r sym; do
				broke "$(basename "${libs[i]}") needs $sym, defined above it in $(basename "${libs[j]}")"
			done < <(comm -12 <("$nm" -u "${libs[i]}" | awk '{print $NF}' | sort -u) \
				<("$nm" -g --defined-only "${libs[j]}" | awk 'NF == 3 {print $3}' | sort -u))
		done
	done
}

# expect_break WHAT GREP CMD...: CMD must exit 1 with a line matching GREP on stderr.
expect_break() {
	local what=$1 pattern=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 1 ] || ! grep -q -- "$pattern" <<<"$out"; then
		broke "selftest: $what was not caught (exit $rc: $out)"
	fi
}

selftest() {
	local cc=$1 nm=$2 ar=$3 t self
	self=$(readlink -f "$0")
	t=$(mktemp -d) || exit 1
	trap 'rm -rf "$t"' EXIT
	mkdir -p "$t/common/base" "$t/common/machine" "$t/common/harness"
	echo 'int base_fn(void);' >"$t/common/base/b.h"
	printf '#include "b.h"\nint machine_fn(void);\n' >"$t/common/machine/m.h"
	echo 'int harness_fn(void);' >"$t/common/harness/h.h"
	local floors=("base=$t/common/base" "machine=$t/common/machine:$t/common/base"
		"harness=$t/common/harness:$t/common/machine:$t/common/base")
	"$self" includes "$cc" "$t/common" "${floors[@]}" ||
		broke "selftest: an unbroken tree did not pass"
	# A floor's header that includes one from above.
	echo '#include "h.h"' >>"$t/common/machine/m.h"
	expect_break "an upward include" "machine/m.h does not compile" \
		"$self" includes "$cc" "$t/common" "${floors[@]}"
	printf '#include "b.h"\nint machine_fn(void);\n' >"$t/common/machine/m.h"
	# A floor whose path holds a floor above.
	expect_break "a path reaching up" "base can include harness/h.h" \
		"$self" includes "$cc" "$t/common" "base=$t/common/base:$t/common/harness" "${floors[@]:1}"
	# A relative include around the path.
	echo '#include "../harness/h.h"' >"$t/common/machine/around.c"
	expect_break "a relative include" "relative path" \
		"$self" includes "$cc" "$t/common" "${floors[@]}"
	# A call into a floor above, declared by hand.
	echo 'int harness_fn(void); int machine_fn(void) { return harness_fn(); }' >"$t/m.c"
	echo 'int harness_fn(void) { return 1; }' >"$t/h.c"
	if ! { "$cc" -c -o "$t/m.o" "$t/m.c" && "$cc" -c -o "$t/h.o" "$t/h.c" &&
		"$ar" rc "$t/libm.a" "$t/m.o" && "$ar" rc "$t/libh.a" "$t/h.o"; }; then
		broke "selftest: could not build its two libraries"
		return
	fi
	"$self" symbols "$nm" "$t/libh.a" "$t/libm.a" ||
		broke "selftest: libraries in their order did not pass"
	expect_break "a call up a floor" "libm.a needs harness_fn" \
		"$self" symbols "$nm" "$t/libm.a" "$t/libh.a"
}

case "${1:-}" in
includes) shift; [ $# -ge 4 ] || { echo "usage: $0 includes CC COMMON NAME=DIRS..." >&2; exit 2; }
	check_includes "$@" ;;
symbols) shift; [ $# -ge 3 ] || { echo "usage: $0 symbols NM LIB..." >&2; exit 2; }
	check_symbols "$@" ;;
selftest) shift; [ $# -eq 3 ] || { echo "usage: $0 selftest CC NM AR" >&2; exit 2; }
	selftest "$@" ;;
*) echo "usage: $0 includes|symbols|selftest ..." >&2; exit 2 ;;
esac
exit "$fail"
