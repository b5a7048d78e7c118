# shellcheck shell=bash
# K network namespaces on one bridge as the cluster's nodes (sourced by the cluster tests).
# mpirun starts its daemons inside them through rsh_agent.sh (ip netns exec), so every rank
# has its own address and its own link. Everything made here is removed on exit.
#   cluster_up K       namespaces pbc<pid>n1..K at 10.<x>.0.1..K; sets HOSTFILE, MPIRUN_ARGS
#   shape_node I RATE  tbf on node I's link, both directions
#   ns_of_node I       the namespace's name
CB=$1
tmp=$(mktemp -d) || exit 1
NS_PREFIX="pbc$$n"
BR="pbcbr$$"
NET="10.$(($$ % 200 + 20)).0"
NODES=0

skip() {
	echo "SKIP: $*"
	rm -rf "$tmp"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	for f in "$tmp"/*.log "$tmp"/*.err; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
	done
	exit 1
}

cleanup() {
	local i
	# Nothing of ours may survive: ranks and daemons in the namespaces first.
	for i in $(seq 1 "$NODES"); do
		for p in $(ip netns pids "$NS_PREFIX$i" 2>/dev/null); do
			kill -9 "$p" 2>/dev/null
		done
		ip netns del "$NS_PREFIX$i" 2>/dev/null
	done
	ip link del "$BR" 2>/dev/null
	rm -rf "$tmp"
}

[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
command -v ip >/dev/null 2>&1 || skip "no ip (iproute2)"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (OpenMPI: scripts/deps.sh --install)"
[ -x "$CB" ] || skip "clusterbench not built (no MPI at configure time)"
ip netns add "${NS_PREFIX}probe" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "${NS_PREFIX}probe"
trap cleanup EXIT INT TERM

ns_of_node() { echo "$NS_PREFIX$1"; }

cluster_up() {
	local k=$1 i
	ip link add "$BR" type bridge || fail "cannot create a bridge"
	ip addr add "$NET.254/24" dev "$BR"
	ip link set "$BR" up
	for i in $(seq 1 "$k"); do
		ip netns add "$NS_PREFIX$i" || fail "cannot create namespace $i"
		NODES=$i
		ip link add "pbc$$h$i" type veth peer name "pbc$$c$i" || fail "cannot create veth $i"
		ip link set "pbc$$c$i" netns "$NS_PREFIX$i"
		ip link set "pbc$$h$i" master "$BR" up
		ip -n "$NS_PREFIX$i" link set lo up
		ip -n "$NS_PREFIX$i" addr add "$NET.$i/24" dev "pbc$$c$i"
		ip -n "$NS_PREFIX$i" link set "pbc$$c$i" up
		echo "$NET.$i slots=1" >>"$tmp/hostfile"
	done
	# The agent mpirun calls instead of ssh: "agent HOST command...". Every node gets its
	# own OpenMPI session directory: the namespaces share one /tmp and one host name, so
	# the daemons, started at once, raced to create the same /tmp/ompi.<host>.<uid>/jf.N
	# tree ("mkdir: File exists", or a daemon that died after --daemonize: the launch
	# hung, no output, about 1 launch in 20: docs/benchmarks/cluster.md).
	cat >"$tmp/rsh_agent.sh" <<AGENT
#!/bin/sh
host=\$1
shift
mkdir -p "$tmp/ompi-\${host##*.}"
OMPI_MCA_orte_tmpdir_base="$tmp/ompi-\${host##*.}" exec ip netns exec "$NS_PREFIX\${host##*.}" /bin/sh -c "\$*"
AGENT
	chmod +x "$tmp/rsh_agent.sh"
	HOSTFILE=$tmp/hostfile
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# In the ASan build, OpenMPI's own allocations (its plugins, unloaded by then) are
	# still held at exit: LeakSanitizer would fail every rank for memory that is not ours.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	# --bind-to none: a rank is a node's whole client, server and sweep, not one core
	# (OpenMPI binds 1-2 ranks to a core each: here both on CPU 0, docs/cluster.md).
	MPIRUN_ARGS="-x ASAN_OPTIONS --bind-to none --oversubscribe --mca plm_rsh_agent $tmp/rsh_agent.sh --mca plm_rsh_no_tree_spawn 1"
	MPIRUN_ARGS+=" --mca oob_tcp_if_include $NET.0/24 --mca btl self,tcp"
	MPIRUN_ARGS+=" --mca btl_tcp_if_include $NET.0/24"
	# A job that ends with a rank's failure (the stall and death tests end theirs on purpose)
	# is torn down without OpenMPI's grace of 1 s between SIGTERM and SIGKILL: no rank of
	# ours handles SIGTERM, and the grace cost those tests 1-2 s a job, doing nothing.
	MPIRUN_ARGS+=" --mca odls_base_sigkill_timeout 0"
}

shape_node() {
	local i=$1 rate=$2
	tc -n "$NS_PREFIX$i" qdisc add dev "pbc$$c$i" root tbf rate "$rate" burst 64kb latency 200ms ||
		fail "tc tbf on node $i"
	tc qdisc add dev "pbc$$h$i" root tbf rate "$rate" burst 64kb latency 200ms ||
		fail "tc tbf on node $i's bridge port"
}
