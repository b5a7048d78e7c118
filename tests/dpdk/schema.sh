#!/bin/sh
# Schema check of dpdkbench's csv and json at a tiny time, skipped where EAL cannot start;
# --ci 0: what is written, not the stopping rule (tests/unit/test_reps.c; issue 42).
# Usage: schema.sh DPDKBENCH RUN_SCHEMA_TEST SCHEMA_CHECK
set -u
bin=$1 runner=$2 check=$3
. "$(dirname "$0")/lib.sh"
probe "$bin"
# shellcheck disable=SC2046
exec "$runner" "$check" both "$bin" $(eal 0 schema) --vdev=net_ring0 -- --role loopback \
	--sizes 64,1500 --flows 1,8 --time 0.2 --reps 2 --ci 0
