#!/usr/bin/env bash
# What peakbench needs, per distribution, and a way to get it.
#   deps.sh --check    list what is missing (exit 1 if a required package is missing)
#   deps.sh --install  install everything missing (as root, or through sudo -n)
#   deps.sh --ensure   what `make` runs: nothing to do when the required packages are
#                      there; otherwise install them if possible, else print the one
#                      command to run and exit 1
set -euo pipefail

# Required to build and test; optional ones enable a feature or a baseline.
apt_required=(gcc make cmake pkg-config libnuma-dev libhwloc-dev libopenblas-dev
	liblapacke-dev libcjson-dev libcmocka-dev gnuplot-nox jq)
apt_optional=(liburing-dev libdpdk-dev fio iperf3 sockperf hpcc likwid shellcheck iproute2)
dnf_required=(gcc make cmake pkgconf-pkg-config numactl-devel hwloc-devel openblas-devel
	lapack-devel cjson-devel libcmocka-devel gnuplot jq)
dnf_optional=(liburing-devel dpdk-devel fio iperf3 sockperf likwid ShellCheck iproute)

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

do_install() { # pkgs...
	[ $# -gt 0 ] || return 0
	local prefix
	prefix=$(root_prefix)
	[ "$prefix" != none ] || return 1
	if [ "$pm" = apt ]; then
		# A fresh machine has no package lists; refresh them once per run.
		$prefix env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
		# shellcheck disable=SC2046
		$prefix env DEBIAN_FRONTEND=noninteractive $(install_cmd "$@") -qq || return 1
	else
		# shellcheck disable=SC2046
		$prefix $(install_cmd "$@") -q || return 1
	fi
}

# Optional packages one by one: one that a release lacks must not block the others.
install_optional() {
	local p prefix
	prefix=$(root_prefix)
	[ "$prefix" != none ] || return 0
	for p in "$@"; do
		if [ "$pm" = apt ]; then
			# shellcheck disable=SC2046
			$prefix env DEBIAN_FRONTEND=noninteractive $(install_cmd "$p") -qq \
				>/dev/null 2>&1 || echo "deps.sh: optional $p not installed (not available here)" >&2
		else
			# shellcheck disable=SC2046
			$prefix $(install_cmd "$p") -q >/dev/null 2>&1 ||
				echo "deps.sh: optional $p not installed (not available here)" >&2
		fi
	done
}

pm=$(detect)
mode=${1:---check}
case $mode in
--check | --install | --ensure) ;;
-h | --help)
	sed -n '2,8p' "$0"
	exit 0
	;;
*) die "unknown option '$mode' (use --check, --install or --ensure)" ;;
esac

if [ "$pm" = unknown ]; then
	# Not Debian/Ubuntu/Fedora/RHEL: say what is needed and let the build try.
	echo "deps.sh: unknown package manager; peakbench needs a C11 compiler, cmake, pkg-config," \
		"libnuma, hwloc, OpenBLAS + LAPACKE, cJSON, cmocka, gnuplot and jq" >&2
	[ "$mode" = --check ] && exit 1
	exit 0
fi

if [ "$pm" = apt ]; then
	required=("${apt_required[@]}") optional=("${apt_optional[@]}")
else
	required=("${dnf_required[@]}") optional=("${dnf_optional[@]}")
fi
mapfile -t miss_req < <(missing_of "${required[@]}")
mapfile -t miss_opt < <(missing_of "${optional[@]}")

case $mode in
--check)
	for p in "${miss_req[@]}"; do echo "missing (required): $p"; done
	for p in "${miss_opt[@]}"; do echo "missing (optional): $p"; done
	[ ${#miss_req[@]} -eq 0 ] && [ ${#miss_opt[@]} -eq 0 ] && echo "all dependencies present"
	[ ${#miss_req[@]} -eq 0 ]
	;;
--install)
	if [ ${#miss_req[@]} -gt 0 ]; then
		do_install "${miss_req[@]}" ||
			die "cannot install as $(id -un); run: sudo $(install_cmd "${miss_req[@]}")"
	elif [ ${#miss_opt[@]} -gt 0 ] && [ "$pm" = apt ] && [ "$(root_prefix)" != none ]; then
		$(root_prefix) env DEBIAN_FRONTEND=noninteractive apt-get update -qq || true
	fi
	install_optional "${miss_opt[@]}"
	;;
--ensure)
	[ ${#miss_req[@]} -eq 0 ] && exit 0
	echo "deps.sh: missing ${miss_req[*]}; installing" >&2
	do_install "${miss_req[@]}" ||
		die "missing ${miss_req[*]}; run: sudo $(install_cmd "${miss_req[@]}")"
	;;
esac
