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
# Installing needs root or `sudo -n`. PEAK_DEPS=required: --ensure installs only the
# required packages and --tools installs nothing (a minimal build; see README.md).
set -euo pipefail

# Required to build and test; optional build inputs enable a feature (the io_uring engine,
# dpdkbench, clusterbench over MPI) or a test (shellcheck, network namespaces, qemu-user for
# CI's runs as other CPUs, chromium to render report.html); tools are the reference tools
# the baselines compare with, and what proves a pair the same job: strace (the syscall
# trace of each side) and binutils' objdump (the hot loops' instruction mix).
# Fedora packages no hpcc: hpcc.sh reports it as not installed.
apt_required=(gcc make cmake pkg-config libnuma-dev libhwloc-dev libopenblas-dev
	liblapacke-dev libcjson-dev libcmocka-dev gnuplot-nox jq python3)
apt_optional=(liburing-dev libdpdk-dev shellcheck iproute2 openmpi-bin libopenmpi-dev
	qemu-user chromium)
apt_tools=(fio iperf3 sockperf qperf hpcc likwid strace binutils)
dnf_required=(gcc make cmake pkgconf-pkg-config numactl-devel hwloc-devel openblas-devel
	lapack-devel cjson-devel libcmocka-devel gnuplot jq python3)
dnf_optional=(liburing-devel dpdk-devel ShellCheck iproute openmpi-devel qemu-user chromium)
dnf_tools=(fio iperf3 sockperf qperf likwid strace binutils)

die() {
	echo "deps.sh: $*" >&2
	exit 1
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
			echo "deps.sh: optional $p not installed (not available from this distribution)" >&2
	done
}

# Optional packages missing: install them when root or sudo -n can; otherwise print the one
# command that would, and go on.
offer_optional() { # what pkgs...
	local what=$1
	shift
	[ $# -gt 0 ] || return 0
	if [ "$(root_prefix)" = none ]; then
		echo "deps.sh: $what not installed: $*; going on without them. To install them:" \
			"$(hint_cmd "$@")" >&2
	else
		install_optional "$what" "$@"
	fi
}

pm=$(detect)
mode=${1:---check}
case $mode in
--check | --install | --ensure | --tools) ;;
-h | --help)
	sed -n '2,15p' "$0"
	exit 0
	;;
--cross)
	[ "${2:-}" = arm64 ] || die "--cross needs the architecture: --cross arm64"
	;;
*) die "unknown option '$mode' (use --check, --install, --ensure, --tools or --cross arm64)" ;;
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
if [ "$mode" = --cross ]; then
	cross_arm64
	exit 0
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
	;;
--tools)
	[ "$deps" = required ] || offer_optional "reference tools" "${miss_tools[@]}"
	;;
esac
