#!/usr/bin/env bash
# hpcc across the cluster's nodes, one MPI rank per node (docs/cluster.md, "hpcc and HPL
# across nodes"): the hpcc adapter's cluster run, which scripts/peakresults/adapters/hpcc/
# cluster.py describes (what it runs and writes, its exit status). This launcher keeps the
# name cluster_run.sh and cluster/bench_cluster.sh call.
#   cluster_hpcc.sh --hostfile FILE --out DIR [--mpirun "ARGS"] [--mode full|quick|tiny]
#                   [--build-dir DIR] [--threads T] [--nodes NODES.json]
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/peakresults/adapters" hpcc cluster run "$@"
