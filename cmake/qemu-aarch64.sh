#!/usr/bin/env sh
# Run aarch64 binaries of a cross build on an x86-64 machine without binfmt (docs/arm64.md).
#
#   qemu-aarch64.sh run CPU BINARY ARGS...   CMAKE_CROSSCOMPILING_EMULATOR: an aarch64 ELF
#                                            runs under qemu-aarch64 -cpu CPU; anything
#                                            else (a wrapper below, a script) runs as is
#   qemu-aarch64.sh wrap BUILD CPU           replace every aarch64 executable of BUILD by a
#                                            wrapper that runs it under qemu (the original
#                                            kept as NAME.aarch64), so the test scripts,
#                                            which run the binaries by path, run them too;
#                                            again after a rebuild, or with another CPU
#   qemu-aarch64.sh unwrap BUILD             put the real executables back
#   qemu-aarch64.sh tools ROOT CPU DIR       the arm64 reference tools unpacked in ROOT
#                                            (scripts/deps.sh --cross arm64 --tools ROOT):
#                                            into DIR a wrapper per tool (fio, iperf3,
#                                            sockperf, hpcc) that runs it under qemu, and
#                                            NAME.unavailable with the reason for each tool
#                                            with no arm64 build (likwid-bench); prints the
#                                            PATH to run with: DIR first, then PATH without
#                                            the host's own tools (scripts/path_without_tools.sh),
#                                            so that no x86-64 tool stands in for one
#
# The tools run with -L ROOT: qemu looks up every absolute path under ROOT first and falls
# back to /, so a tool's libraries come from ROOT and the loader and libc from the same
# multiarch root as the build's (ROOT holds no libc6: deps.sh unpacks only what / lacks).
# The loader and libraries come from the multiarch root (/) when libc6:arm64 is installed
# there, else from the cross toolchain's /usr/aarch64-linux-gnu: never a mix of the two
# (the cross sysroot's ld.so with the multiarch libc hangs in pthread_create).
set -eu
QEMU=${PEAK_QEMU_AARCH64:-qemu-aarch64}
if [ -e /lib/ld-linux-aarch64.so.1 ]; then prefix=/; else prefix=/usr/aarch64-linux-gnu; fi

die() {
	echo "qemu-aarch64.sh: $*" >&2
	exit 1
}
usage() { # bad arguments: one line, exit 2 (as the binaries)
	echo "qemu-aarch64.sh: usage: $*" >&2
	exit 2
}

is_aarch64_elf() { # file: ELF magic, 64-bit, machine 0xb7 (EM_AARCH64)
	[ -f "$1" ] && [ "$(od -An -tx1 -j0 -N5 "$1" | tr -d ' \n')" = 7f454c4602 ] &&
		[ "$(od -An -tx1 -j18 -N2 "$1" | tr -d ' \n')" = b700 ]
}

executables() { # build: aarch64 ELF executables (not libraries, not object files, not the
	# reference tools of a tools root kept in the build: BUILD/tools-root)
	find "$1" -type f -perm -u+x ! -name '*.so*' ! -name '*.aarch64' ! -path '*/CMakeFiles/*' \
		! -path '*/tools-root/*' |
		while read -r f; do is_aarch64_elf "$f" && echo "$f"; done
}

wrapped() { # build: the real executables a wrap left
	find "$1" -type f -name '*.aarch64' ! -path '*/CMakeFiles/*' ! -path '*/tools-root/*'
}

case ${1:-} in
run)
	[ $# -ge 3 ] || usage "run CPU BINARY ARGS..."
	cpu=$2
	shift 2
	if is_aarch64_elf "$1"; then
		exec "$QEMU" -cpu "$cpu" -L "$prefix" "$@"
	fi
	exec "$@"
	;;
wrap)
	[ $# -eq 3 ] || usage "wrap BUILD CPU"
	command -v "$QEMU" >/dev/null 2>&1 || die "no $QEMU (Debian: qemu-user; scripts/deps.sh --cross arm64)"
	executables "$2" | while read -r f; do mv -f "$f" "$f.aarch64"; done
	wrapped "$2" | while read -r f; do
		# shellcheck disable=SC2016 # $0 and $@ belong to the wrapper
		printf '#!/bin/sh\nexec %s -cpu %s -L %s "$0.aarch64" "$@"\n' "$QEMU" "$3" "$prefix" \
			>"${f%.aarch64}"
		chmod +x "${f%.aarch64}"
	done
	echo "qemu-aarch64.sh: $(wrapped "$2" | wc -l) executables of $2 run under $QEMU -cpu $3" >&2
	;;
unwrap)
	[ $# -eq 2 ] || usage "unwrap BUILD"
	wrapped "$2" | while read -r f; do mv -f "$f" "${f%.aarch64}"; done
	;;
tools)
	[ $# -eq 4 ] || usage "tools ROOT CPU DIR"
	root=$(cd "$2" 2>/dev/null && pwd) || die "no tools root $2 (scripts/deps.sh --cross arm64 --tools $2)"
	[ -f "$root/tools.txt" ] || die "$root has no tools.txt (scripts/deps.sh --cross arm64 --tools $2)"
	[ -e "$root/lib/ld-linux-aarch64.so.1" ] || [ "$prefix" = / ] ||
		die "no arm64 loader in / (libc6:arm64: scripts/deps.sh --cross arm64)"
	command -v "$QEMU" >/dev/null 2>&1 || die "no $QEMU (Debian: qemu-user; scripts/deps.sh --cross arm64)"
	mkdir -p "$4" || die "cannot make $4"
	dir=$(cd "$4" && pwd)
	rm -f "$dir"/*.unavailable
	while IFS="$(printf '\t')" read -r prog what; do
		[ -x "$root/usr/bin/$prog" ] || die "$root/usr/bin/$prog missing ($what)"
		# shellcheck disable=SC2016 # $@ belongs to the wrapper
		printf '#!/bin/sh\n# %s (arm64) under qemu-aarch64\nexec %s -cpu %s -L %s -0 %s %s "$@"\n' \
			"$what" "$QEMU" "$3" "$root" "$prog" "$root/usr/bin/$prog" >"$dir/$prog"
		chmod +x "$dir/$prog"
	done <"$root/tools.txt"
	while IFS="$(printf '\t')" read -r prog why; do
		rm -f "$dir/$prog"
		printf '%s\n' "$why" >"$dir/$prog.unavailable"
	done <"$root/unavailable.txt"
	echo "qemu-aarch64.sh: $(cut -f1 "$root/tools.txt" | tr '\n' ' ')in $dir run under $QEMU -cpu $3;" \
		"no arm64 build: $(cut -f1 "$root/unavailable.txt" | tr '\n' ' ')" >&2
	printf '%s:%s\n' "$dir" "$(bash "$(dirname "$0")/../scripts/path_without_tools.sh" "$dir/host-path")"
	;;
*) usage "run CPU BINARY ARGS... | wrap BUILD CPU | unwrap BUILD | tools ROOT CPU DIR" ;;
esac
