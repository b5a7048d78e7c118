#!/usr/bin/env bash
# What peakbench needs, per distribution, and a way to get it.
#   deps.sh --check    list what is missing (exit 1 if a required package is missing)
#   deps.sh --install  install everything missing: build inputs and reference tools (CI)
#   deps.sh --ensure   what `make` runs: the build inputs. A missing required package is
#                      installed, or the one command to run is printed and the exit is 1;
#                      the optional ones (io_uring, DPDK, test tools) are installed when
#                      possible, else the command is printed and the build goes on
#   deps.sh --tools    what run_all.sh runs before the baselines: the reference tools,
#                      installed when possible, else the command printed; never fails
#   deps.sh --cross arm64  the aarch64 cross build and its tests under qemu-user (Debian/
#                      Ubuntu): the cross compiler, qemu-user and the arm64 multiarch -dev
#                      packages, with `dpkg --add-architecture arm64` first (docs/arm64.md)
#   deps.sh --cross arm64 --tools [ROOT]  also the arm64 builds of the reference tools,
#                      unpacked into ROOT (default build-arm64/tools-root), never installed:
#                      cmake/qemu-aarch64.sh tools runs them under qemu-aarch64
# Installing needs root or `sudo -n`. PEAK_DEPS=required: --ensure installs only the
# required packages and --tools installs nothing (a minimal build; see README.md).
# PEAK_DEPS_STAMP=FILE (the Makefile's BUILD/deps.stamp): --ensure records there what it
# verified, and skips the package queries while nothing it depends on changed (stamp_key).
set -euo pipefail

# Required to build and test; optional build inputs enable a feature (the io_uring engine,
# dpdkbench, clusterbench over MPI, peak_ref_gemm: oneDNN's BF16/INT8 matmul, the reference
# of cpubench's format rows), a test (shellcheck, network namespaces, qemu-user for
# CI's runs as other CPUs, chromium to render report.html) or a faster no-op `make`
# (ninja: the Makefile configures a new build directory for it); tools are the reference tools
# the baselines compare with, and what proves a pair the same job: strace (the syscall
# trace of each side) and binutils' objdump (the hot loops' instruction mix).
# Fedora packages no hpcc: hpcc.sh reports it as not installed.
apt_required=(gcc make cmake pkg-config libnuma-dev libhwloc-dev libopenblas-dev
	liblapacke-dev libcjson-dev libcmocka-dev gnuplot-nox jq python3)
apt_optional=(liburing-dev libdpdk-dev shellcheck iproute2 openmpi-bin libopenmpi-dev libdnnl-dev
	qemu-user chromium ninja-build)
apt_tools=(fio iperf3 sockperf qperf hpcc likwid strace binutils)
dnf_required=(gcc make cmake pkgconf-pkg-config numactl-devel hwloc-devel openblas-devel
	lapack-devel cjson-devel libcmocka-devel gnuplot jq python3)
dnf_optional=(liburing-devel dpdk-devel ShellCheck iproute openmpi-devel onednn-devel qemu-user chromium
	ninja-build)
dnf_tools=(fio iperf3 sockperf qperf likwid strace binutils)

die() {
	echo "deps.sh: $*" >&2
	exit 1
}
bad_usage() { # a bad option: one line, exit 2 (as the binaries)
	echo "deps.sh: $*" >&2
	exit 2
}

detect() {
	if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
		echo apt
	elif command -v dnf >/dev/null 2>&1; then
		echo dnf
	else
		echo unknown
	fi
}

installed() { # pkg
	case $pm in
	apt) dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" ;;
	dnf) rpm -q "$1" >/dev/null 2>&1 ;;
	esac
}

missing_of() { # list...
	local p
	for p in "$@"; do
		installed "$p" || printf '%s\n' "$p"
	done
}

# How to run a command as root: nothing, sudo -n, or impossible.
root_prefix() {
	if [ "$(id -u)" -eq 0 ]; then
		echo ""
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		echo "sudo -n"
	else
		echo "none"
	fi
}

install_cmd() { # pkgs...
	case $pm in
	apt) echo "apt-get install -y --no-install-recommends $*" ;;
	dnf) echo "dnf install -y $*" ;;
	esac
}

# The one command a user without root runs: sudo, and on apt the list refresh a fresh
# machine needs first (its lists are empty) when they are missing or a day old.
hint_cmd() { # pkgs...
	if [ "$pm" = apt ] && lists_stale; then
		echo "sudo apt-get update && sudo $(install_cmd "$@")"
	else
		echo "sudo $(install_cmd "$@")"
	fi
}

lists_stale() {
	[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]
}

# apt: refresh the package lists when there are none (a fresh machine) or they are a day
# old, once per run; so a package this release lacks does not cost a refresh every `make`.
REFRESHED=0
refresh_lists() {
	[ "$pm" = apt ] && [ "$REFRESHED" = 0 ] || return 0
	REFRESHED=1
	if lists_stale; then
		$1 env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
	fi
}

do_install() { # pkgs...
	[ $# -gt 0 ] || return 0
	local prefix
	prefix=$(root_prefix)
	[ "$prefix" != none ] || return 1
	refresh_lists "$prefix" || return 1
	if [ "$pm" = apt ]; then
		# shellcheck disable=SC2046
		$prefix env DEBIAN_FRONTEND=noninteractive $(install_cmd "$@") -qq || return 1
	else
		# shellcheck disable=SC2046
		$prefix $(install_cmd "$@") -q || return 1
	fi
}

# A note the user must see on every `make` (an optional package left out): printed, and
# kept for the stamp, which prints it again when the queries are skipped.
NOTES=""
note() {
	echo "$*" >&2
	NOTES+="$*"$'\n'
}

# Optional packages: all at once, else one by one (one that a release lacks must not block
# the others). What cannot be had is named; nothing here fails.
install_optional() { # what pkgs...
	local what=$1 p prefix
	shift
	[ $# -gt 0 ] || return 0
	prefix=$(root_prefix)
	echo "deps.sh: installing $what: $*" >&2
	refresh_lists "$prefix" || true
	do_install "$@" >/dev/null 2>&1 && return 0
	for p in "$@"; do
		do_install "$p" >/dev/null 2>&1 ||
			note "deps.sh: optional $p not installed (not available from this distribution)"
	done
}

# Optional packages missing: install them when root or sudo -n can; otherwise print the one
# command that would, and go on.
offer_optional() { # what pkgs...
	local what=$1
	shift
	[ $# -gt 0 ] || return 0
	if [ "$(root_prefix)" = none ]; then
		note "deps.sh: $what not installed: $*; going on without them. To install them:" \
			"$(hint_cmd "$@")"
	else
		install_optional "$what" "$@"
	fi
}

pm=$(detect)
mode=${1:---check}
case $mode in
--check | --install | --ensure | --tools) ;;
-h | --help)
	sed -n '2,18p' "$0"
	exit 0
	;;
--cross)
	[ "${2:-}" = arm64 ] || bad_usage "--cross needs the architecture: --cross arm64"
	case ${3:-} in
	'' | --tools) ;;
	*) bad_usage "--cross arm64: unknown option '$3' (use --tools [ROOT])" ;;
	esac
	;;
*) bad_usage "unknown option '$mode' (use --check, --install, --ensure, --tools or --cross arm64)" ;;
esac
deps=${PEAK_DEPS:-all}
case $deps in
all | required) ;;
*) die "PEAK_DEPS='$deps': use all (the default) or required" ;;
esac

if [ "$pm" = unknown ]; then
	# Not Debian/Ubuntu/Fedora/RHEL: say what is needed and let the build try.
	[ "$mode" = --tools ] && exit 0
	echo "deps.sh: unknown package manager; peakbench needs a C11 compiler, cmake, pkg-config," \
		"libnuma, hwloc, OpenBLAS + LAPACKE, cJSON, cmocka, gnuplot, jq and python3" >&2
	[ "$mode" = --check ] && exit 1
	exit 0
fi

# The aarch64 cross build: every required -dev package is Multi-Arch: same, so the arm64
# ones install beside the native ones. Only apt: Fedora ships no arm64 sysroot this way.
cross_arm64() {
	[ "$pm" = apt ] || die "--cross arm64 needs Debian/Ubuntu (apt and dpkg multiarch)"
	local native=(gcc-aarch64-linux-gnu qemu-user) libs=(libnuma-dev libhwloc-dev
		libopenblas-dev liblapacke-dev libcjson-dev libcmocka-dev liburing-dev) p miss=()
	for p in "${native[@]}"; do installed "$p" || miss+=("$p"); done
	for p in "${libs[@]}"; do installed "$p:arm64" || miss+=("$p:arm64"); done
	[ ${#miss[@]} -gt 0 ] || { echo "deps.sh: arm64 cross build inputs present" >&2; return 0; }
	local prefix hint
	prefix=$(root_prefix)
	hint="sudo dpkg --add-architecture arm64 && sudo apt-get update && sudo $(install_cmd "${miss[@]}")"
	[ "$prefix" != none ] || die "missing ${miss[*]}; run: $hint"
	echo "deps.sh: installing the arm64 cross build inputs: ${miss[*]}" >&2
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		$prefix dpkg --add-architecture arm64 || die "dpkg --add-architecture arm64 failed"
		REFRESHED=1
		$prefix env DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update failed"
	fi
	# shellcheck disable=SC2046
	$prefix env DEBIAN_FRONTEND=noninteractive $(install_cmd "${miss[@]}") -qq ||
		die "cannot install ${miss[*]}; run: $hint"
}
# The reference tools' arm64 packages, unpacked into a root of their own (never installed:
# fio:arm64 is not Multi-Arch: same and would replace the host's fio). A tool's libraries
# are what its executable's loader needs: the NEEDED entries, followed library by library
# (readelf), found in ROOT or in the arm64 multiarch directories of this system (libc6:arm64
# and the -dev packages' libraries), else fetched: dpkg-shlibdeps puts the package of every
# NEEDED library among the Depends of the package that needs it, so each missing library is
# sought in the Depends of what is unpacked, a package kept only when it holds one. (apt's
# own closure, apt-cache depends --recurse, is 145 packages not installed here against the
# 65 the loader needs: perl, python3, debconf... that no tool's executable loads.)
# ROOT/tools.txt lists "program<TAB>package version" of each unpacked tool and
# ROOT/unavailable.txt "program<TAB>reason" of each tool this distribution has no arm64
# build of (likwid: amd64 only); cmake/qemu-aarch64.sh tools reads both.
cross_tools=(fio:fio iperf3:iperf3 sockperf:sockperf hpcc:hpcc likwid:likwid-bench)
ARM64_LIBDIRS=(lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu)

lib_of() { # root soname runpath...: the library's path (in ROOT, else the system), or nothing
	local root=$1 so=$2 d r
	shift 2
	for d in "$@" "${ARM64_LIBDIRS[@]/#//}"; do
		for r in "$root" ""; do
			if [ -e "$r$d/$so" ]; then echo "$r$d/$so" && return 0; fi
		done
	done
}

unresolved() { # root elf...: the sonames the loader of these executables would not find
	local root=$1 f so lib dyn
	shift
	local -A seen=()
	local queue=("$@") runpath
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		dyn=$(readelf -d "$f" 2>/dev/null) || continue
		# RUNPATH/RPATH (librados2: /usr/lib/aarch64-linux-gnu/ceph), $ORIGIN as the loader
		# reads it
		IFS=: read -r -a runpath <<<"$(sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p' <<<"$dyn" |
			sed "s|\$ORIGIN|$(dirname "${f#"$root"}")|g")"
		while read -r so; do
			if [ -z "$so" ] || [ -n "${seen[$so]:-}" ]; then continue; fi
			seen[$so]=1
			lib=$(lib_of "$root" "$so" "${runpath[@]}")
			if [ -z "$lib" ]; then
				echo "$so"
			elif [ "${lib#"$root"/}" != "$lib" ]; then
				queue+=("$lib") # a library unpacked here: its own NEEDED too
			fi
		done < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$dyn")
	done
}

depends_of() { # deb: the package names of its Depends and Pre-Depends (alternatives too)
	{
		dpkg-deb -f "$1" Depends
		dpkg-deb -f "$1" Pre-Depends
	} | sed 's/[,|]/\n/g' | sed 's/(.*)//; s/:any//; s/^ *//; s/ *$//' | grep -v '^$' | sort -u
}

fetch_deb() { # debs pkg: download PKG:arm64 (or PKG:all) into DEBS, once, with the list of
	# its files beside it (PKG.files); the .deb's path, or fail
	local f
	f=$(find "$1" -maxdepth 1 -name "${2}_*.deb" | head -n 1)
	if [ -z "$f" ]; then
		(cd "$1" && apt-get download -qq "$2:arm64" </dev/null >/dev/null 2>&1) || true
		f=$(find "$1" -maxdepth 1 -name "${2}_*.deb" | head -n 1)
		[ -n "$f" ] || return 1
	fi
	[ -s "$1/$2.files" ] || dpkg-deb -c "$f" | sed 's/ -> .*//; s/.* //' >"$1/$2.files"
	echo "$f"
}

fetch_debs() { # debs pkgs...: download in one apt-get call the PKG:arm64 not in DEBS yet
	# (one call per package costs seconds each); those apt has a candidate for, as one
	# without (a virtual package, an amd64-only one) would stop the call
	local debs=$1 p want=()
	shift
	for p in "$@"; do
		[ -n "$(find "$debs" -maxdepth 1 -name "${p}_*.deb" | head -n 1)" ] || want+=("$p:arm64")
	done
	[ ${#want[@]} -gt 0 ] || return 0
	mapfile -t want < <(apt-cache policy "${want[@]}" 2>/dev/null |
		awk '/^[^ ].*:$/ { p = substr($1, 1, length($1) - 1) } /^  Candidate:/ && $2 != "(none)" { print p }')
	[ ${#want[@]} -gt 0 ] || return 0
	(cd "$debs" && apt-get download -qq "${want[@]}" </dev/null >/dev/null 2>&1) || true
}

cross_tools_root() { # root
	local root=$1 pkg prog entry deb ver so p
	command -v readelf >/dev/null 2>&1 || die "--tools needs readelf (Debian: binutils)"
	# no arm64 package lists: every tool would look unbuilt for arm64
	[ -n "$(apt-cache show libc6:arm64 2>/dev/null | head -n 1)" ] ||
		die "apt has no arm64 package lists; run: sudo apt-get update"
	mkdir -p "$root/debs" || die "cannot make $root/debs"
	root=$(cd "$root" && pwd)
	local debs=$root/debs
	# Unpacked afresh each time (what an earlier run unpacked is not known to be needed); the
	# downloads are kept in ROOT/debs.
	find "$root" -mindepth 1 -maxdepth 1 ! -name debs -exec rm -rf {} + || die "cannot empty $root"
	: >"$root/tools.txt.new"
	: >"$root/unavailable.txt.new"
	local -A kept=() absent=()
	local elfs=()
	for entry in "${cross_tools[@]}"; do
		pkg=${entry%%:*} prog=${entry#*:}
		if [ -z "$(apt-cache show "$pkg:arm64" 2>/dev/null | head -n 1)" ]; then
			printf '%s\t%s\n' "$prog" "Debian builds no $pkg for arm64 (no $pkg:arm64 package; $(
				apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Architecture: //p' | head -n 1) only)" \
				>>"$root/unavailable.txt.new"
			echo "deps.sh: $prog: no $pkg:arm64 package, skipped" >&2
			continue
		fi
		deb=$(fetch_deb "$debs" "$pkg") || die "cannot download $pkg:arm64 (apt-get download $pkg:arm64)"
		dpkg-deb -x "$deb" "$root" || die "cannot unpack $deb"
		kept[$pkg]=$deb
		ver=$(dpkg-deb -f "$deb" Version)
		printf '%s\t%s %s\n' "$prog" "$pkg" "$ver" >>"$root/tools.txt.new"
		elfs+=("$root/usr/bin/$prog")
	done
	# The missing libraries, sought in the Depends of what is unpacked, until none is missing;
	# a package that holds none of them now may hold one a later package needs. The plugins a
	# library opens itself count too (Open MPI's mca_pmix_ext3x needs libpmix.so.2, without
	# which hpcc's MPI_Init fails), but one that no package provides only warns: Open MPI
	# skips a component it cannot open.
	local miss more plugins
	while :; do
		mapfile -t plugins < <(find "$root/usr/lib" -type f -name '*.so' 2>/dev/null)
		mapfile -t miss < <(unresolved "$root" "${elfs[@]}" "${plugins[@]}" | sort -u)
		[ ${#miss[@]} -gt 0 ] || break
		more=0
		local cands=()
		mapfile -t cands < <(for deb in "${kept[@]}"; do depends_of "$deb"; done | sort -u)
		local todo=()
		for p in "${cands[@]}"; do
			if [ -n "${kept[$p]:-}" ] || [ -n "${absent[$p]:-}" ] || installed "$p:arm64"; then continue; fi
			todo+=("$p")
		done
		fetch_debs "$debs" "${todo[@]}"
		for p in "${todo[@]}"; do
			deb=$(fetch_deb "$debs" "$p") || { absent[$p]=1 && continue; }
			for so in "${miss[@]}"; do
				grep -q "/$so\$" "$debs/$p.files" || continue
				dpkg-deb -x "$deb" "$root" || die "cannot unpack $deb"
				kept[$p]=$deb more=1
				break
			done
		done
		[ "$more" = 0 ] || continue
		mapfile -t miss < <(unresolved "$root" "${elfs[@]}" | sort -u)
		[ ${#miss[@]} -eq 0 ] || die "no arm64 package found for ${miss[*]} (needed by ${elfs[*]##*/})"
		echo "deps.sh: plugins left without a library no package provides (not loaded):" \
			"$(unresolved "$root" "${plugins[@]}" | sort -u | tr '\n' ' ')" >&2
		break
	done
	mv -f "$root/tools.txt.new" "$root/tools.txt"
	mv -f "$root/unavailable.txt.new" "$root/unavailable.txt"
	echo "deps.sh: arm64 reference tools in $root: $(cut -f1 "$root/tools.txt" | tr '\n' ' ')" \
		"(${#kept[@]} packages unpacked); not built for arm64: $(cut -f1 "$root/unavailable.txt" | tr '\n' ' ')" >&2
}

if [ "$mode" = --cross ]; then
	cross_arm64
	if [ "${3:-}" = --tools ]; then
		cross_tools_root "${4:-$(cd "$(dirname "$0")/.." && pwd)/build-arm64/tools-root}"
	fi
	exit 0
fi

# The no-op `make` (issue 42): ~30 package queries cost a second or more on every build.
# What --ensure concluded holds while none of these changes: this script's text, the mode,
# PEAK_DEPS, the user (root can install, others get the command), and the package state
# (apt: dpkg's status file, rewritten by every install and removal, and the package lists,
# which an update replaces; dnf: the rpm database). PEAK_DEPS_STATE names other files
# (tests). The key is taken again after installing, so what this run installed is in it.
stamp_key() {
	local state
	if [ -n "${PEAK_DEPS_STATE:-}" ]; then
		read -r -a state <<<"$PEAK_DEPS_STATE"
	elif [ "$pm" = apt ]; then
		state=(/var/lib/dpkg/status /var/lib/apt/lists)
	else
		state=(/var/lib/rpm /var/lib/rpm/rpmdb.sqlite /var/lib/rpm/Packages /usr/lib/sysimage/rpm
			/usr/lib/sysimage/rpm/rpmdb.sqlite)
	fi
	{
		cksum <"${BASH_SOURCE[0]}"
		echo "$mode $deps uid=$(id -u)"
		stat -c '%n %i %s %.9Y' "${state[@]}" 2>/dev/null || true
	} | cksum | cut -d' ' -f1
}
stamp=""
if [ "$mode" = --ensure ] && [ -n "${PEAK_DEPS_STAMP:-}" ]; then
	stamp=$PEAK_DEPS_STAMP
	if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "deps.sh verified $(stamp_key)" ]; then
		tail -n +2 "$stamp" >&2
		exit 0
	fi
fi

if [ "$pm" = apt ]; then
	required=("${apt_required[@]}") optional=("${apt_optional[@]}") tools=("${apt_tools[@]}")
else
	required=("${dnf_required[@]}") optional=("${dnf_optional[@]}") tools=("${dnf_tools[@]}")
fi
mapfile -t miss_req < <(missing_of "${required[@]}")
mapfile -t miss_opt < <(missing_of "${optional[@]}")
mapfile -t miss_tools < <(missing_of "${tools[@]}")

case $mode in
--check)
	for p in "${miss_req[@]}"; do echo "missing (required): $p"; done
	for p in "${miss_opt[@]}"; do echo "missing (optional): $p"; done
	for p in "${miss_tools[@]}"; do echo "missing (reference tool): $p"; done
	[ ${#miss_req[@]} -eq 0 ] && [ ${#miss_opt[@]} -eq 0 ] && [ ${#miss_tools[@]} -eq 0 ] &&
		echo "all dependencies present"
	[ ${#miss_req[@]} -eq 0 ]
	;;
--install)
	do_install "${miss_req[@]}" ||
		die "cannot install as $(id -un); run: $(hint_cmd "${miss_req[@]}")"
	offer_optional "optional build inputs (io_uring engine, dpdkbench, test tools)" "${miss_opt[@]}"
	offer_optional "reference tools" "${miss_tools[@]}"
	;;
--ensure)
	if [ ${#miss_req[@]} -gt 0 ]; then
		[ "$(root_prefix)" != none ] ||
			die "missing ${miss_req[*]}; run: $(hint_cmd "${miss_req[@]}")"
		echo "deps.sh: missing ${miss_req[*]}; installing" >&2
		do_install "${miss_req[@]}" ||
			die "missing ${miss_req[*]}; run: $(hint_cmd "${miss_req[@]}")"
	fi
	[ "$deps" = required ] ||
		offer_optional "optional build inputs (io_uring engine, dpdkbench, test tools)" "${miss_opt[@]}"
	if [ -n "$stamp" ]; then
		mkdir -p "$(dirname "$stamp")" &&
			printf 'deps.sh verified %s\n%s' "$(stamp_key)" "$NOTES" >"$stamp.new" &&
			mv -f "$stamp.new" "$stamp" || echo "deps.sh: cannot write $stamp" >&2
	fi
	;;
--tools)
	[ "$deps" = required ] || offer_optional "reference tools" "${miss_tools[@]}"
	;;
esac
