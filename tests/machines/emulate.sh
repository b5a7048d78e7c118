#!/usr/bin/env bash
# Run a build's tests as another CPU: every executable of the build is replaced by a
# wrapper that runs it under qemu-user (qemu-x86_64 -cpu MODEL), so the unit tests, the
# test scripts and the Python checks all exercise the emulated CPU without knowing it.
# The binaries read vendor, family, model and ISA from cpuid, which qemu answers for MODEL.
#
#   emulate.sh cpu MODEL                 qemu's -cpu value: MODEL without the features TCG
#                                        lacks (qemu warns once per thread about each one,
#                                        and a test that wants one line on stderr would fail)
#   emulate.sh wrap BUILD MODEL VENDOR   wrap BUILD's executables (again: rewrap), then check
#                                        that peakinfo runs translated (hypervisor qemu-tcg)
#                                        as VENDOR without AVX-512, and print what it sees
#   emulate.sh unwrap BUILD              put the real executables back
#
# A rebuild overwrites a wrapper with the real binary, so wrap after the build. Timing
# under translation means nothing: the binaries report `hypervisor qemu-tcg`, and the
# tests that hold a rate against a physics bound skip on it (exit 77).
set -euo pipefail

die() {
	echo "emulate.sh: $*" >&2
	exit 1
}

QEMU=${PEAK_QEMU:-qemu-x86_64}

cpu_value() { # model
	command -v "$QEMU" >/dev/null 2>&1 || die "no $QEMU (Debian: qemu-user; scripts/deps.sh --install)"
	local models lacks value=$1 f
	models=$("$QEMU" -cpu help | awk '{print $2}')
	grep -qxF "$1" <<<"$models" || die "$QEMU knows no CPU model '$1'"
	# "warning: TCG doesn't support requested feature: CPUID.07H:EBX.invpcid [bit 10]"
	lacks=$("$QEMU" -cpu "$1" /bin/true 2>&1 >/dev/null |
		sed -n 's/.*requested feature: [^ ]*\.\([a-z0-9_-]*\) \[bit.*/\1/p' | sort -u)
	for f in $lacks; do value="$value,-$f"; done
	[ -z "$("$QEMU" -cpu "$value" /bin/true 2>&1 >/dev/null)" ] ||
		die "$QEMU -cpu $value still warns: $("$QEMU" -cpu "$value" /bin/true 2>&1 | head -n 1)"
	echo "$value"
}

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# The build's own executables (ELF, executable bit), not CMake's probes under CMakeFiles/
# nor the real binaries already set aside.
executables() { # build
	find "$1" -name CMakeFiles -prune -o -type f -perm -u+x ! -name '*.real' -print |
		while read -r f; do
			if is_elf "$f"; then echo "$f"; fi
		done
}

# A binary rebuilt since it was wrapped is an ELF again: its set-aside copy is stale.
unwrap() { # build
	local real
	find "$1" -type f -name '*.real' -print | while read -r real; do
		if is_elf "${real%.real}"; then
			rm -f "$real"
		else
			mv -f "$real" "${real%.real}"
		fi
	done
}

# What the emulated peakinfo reports, checked: translated, the vendor asked for, no AVX-512.
check() { # build vendor
	local out seen
	out=$(mktemp) || die "mktemp failed"
	"$1/peakinfo/peakinfo" --format json --output "$out" ||
		die "the emulated peakinfo failed"
	seen=$(python3 - "$out" "$2" <<'EOF'
import json
import sys
ctx = json.load(open(sys.argv[1], encoding="utf-8"))["context"]
line = " ".join(f"{k}={ctx.get(k)}" for k in
                ("hypervisor", "cpu.vendor", "cpu.family", "cpu.model_number", "peak.uarch",
                 "peak.uarch_source"))
line += f" isa='{ctx.get('cpu.isa')}'"
bad = []
if ctx.get("hypervisor") != "qemu-tcg":
    bad.append("not translated by qemu (hypervisor is not qemu-tcg)")
if ctx.get("cpu.vendor") != sys.argv[2]:
    bad.append(f"vendor is not {sys.argv[2]}")
if "avx512" in str(ctx.get("cpu.isa")):
    bad.append("AVX-512 present")
if not {"avx2", "fma"} <= set(str(ctx.get("cpu.isa")).split()):
    bad.append("AVX2 or FMA missing")
print(line + ("" if not bad else "; WRONG: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
EOF
	) || {
		rm -f "$out"
		die "emulated CPU not as asked: $seen"
	}
	rm -f "$out"
	echo "emulate.sh: peakinfo sees $seen"
}

wrap() { # build model vendor
	local build value f
	build=$(cd "$1" && pwd) || die "no build directory $1"
	[ -x "$build/peakinfo/peakinfo" ] || die "$build has no peakinfo: build first"
	value=$(cpu_value "$2")
	unwrap "$build"
	executables "$build" | while read -r f; do
		mv "$f" "$f.real"
		# -0: the program sees its usual argv[0], not NAME.real
		# shellcheck disable=SC2016 # $0 and $@ are the wrapper's, expanded when it runs
		printf '#!/bin/sh\n# emulate.sh: %s as %s\nexec %s -0 "$0" -cpu %s "$0.real" "$@"\n' \
			"$(basename "$f")" "$2" "$(command -v "$QEMU")" "$value" >"$f"
		chmod 755 "$f"
	done
	echo "emulate.sh: $(find "$build" -name '*.real' | wc -l) executables of $build run as $QEMU -cpu $value"
	check "$build" "$3"
}

case ${1:-} in
cpu) [ $# -eq 2 ] || die "usage: emulate.sh cpu MODEL" && cpu_value "$2" ;;
wrap) [ $# -eq 4 ] || die "usage: emulate.sh wrap BUILD MODEL VENDOR" && wrap "$2" "$3" "$4" ;;
unwrap) [ $# -eq 2 ] || die "usage: emulate.sh unwrap BUILD" && unwrap "$2" ;;
*) die "usage: emulate.sh cpu MODEL | wrap BUILD MODEL VENDOR | unwrap BUILD" ;;
esac
