#!/bin/sh
# Shared by the dpdkbench tests: EAL arguments that need no hugepages, no NIC and no
# shared config, and a probe that turns "EAL cannot start here" into a ctest skip (77).
# shellcheck disable=SC2034

SKIP=77

# eal LCORE NAME: EAL arguments for one process (its own file prefix, quiet logs).
eal() {
	echo "-l $1 --no-huge --no-pci -m 512 --no-shconf --no-telemetry --file-prefix pbtest$$_$2 --log-level=*:critical"
}

# probe BIN: exit the test with SKIP when EAL or net_ring cannot start on this machine.
probe() {
	probe_err=$(mktemp) || exit 1
	# shellcheck disable=SC2046
	"$1" $(eal 0 probe) --vdev=net_ring0 -- --role loopback --sizes 64 --flows 1 \
		--time 0.01 --reps 1 --ci 0 --format csv --output /dev/null 2>"$probe_err"
	probe_rc=$?
	if [ "$probe_rc" -eq 3 ]; then
		echo "SKIP: DPDK EAL cannot start here: $(tail -n 1 "$probe_err")"
		rm -f "$probe_err"
		exit $SKIP
	fi
	rm -f "$probe_err"
}

# Two lcores apart for the tester and the dut when the machine has them.
if [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
	LCORE_A=0 LCORE_B=1
else
	LCORE_A=0 LCORE_B=0
fi
