/* clusterbench's one way in: the binary declares its options and its tests (a static const
 * struct cluster_main) and its main is one call of cluster_run_main, which owns MPI's start
 * and end, the node descriptions every rank exchanges, the netbench server, rank 0's rows
 * and context, the watches, and the exit code (as peak_bench_main does for the others). */
#ifndef CLUSTER_MAIN_H
#define CLUSTER_MAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster.h"

/* One --test: what it needs around it, and what runs it on every rank. */
struct cluster_test {
	const char *name; /* --test NAME */
	/* Every rank serves netbench's TCP/UDP while others measure it (net_matrix's pairs,
	 * mpi_p2p's TCP round trip that below_tcp compares with). */
	bool server;
	/* MPI itself measured: the progress watch bounds each step by --timeout, and a
	 * repetition's default --min-time is CLUSTER_MPI_MIN_TIME_S. */
	bool mpi;
	bool schedule;      /* its rounds follow --schedule, which the context records */
	unsigned min_ranks; /* fewer is bad input (one line, exit 2) */
	void (*run)(const struct cluster_run *run);
};

struct cluster_main {
	const char *name; /* "clusterbench": the prefix of a failed final write's line */
	/* Every rank parses argv into o, given its rank and the number of ranks:
	 * PEAK_OPTS_OK, PEAK_OPTS_EXIT (--help: exit 0) or PEAK_OPTS_ERROR (rank 0 printed
	 * one line: exit 2). o->test names one of tests. */
	int (*parse)(int argc, char **argv, int rank, int nranks, struct cluster_opts *o);
	const struct cluster_test *tests; /* ends with a row whose name is NULL */
};

/* The test called name in tests (ended by a NULL name), or NULL. */
const struct cluster_test *cluster_test_find(const struct cluster_test *tests, const char *name);

/* Run the program on this rank: the whole life of a clusterbench rank. Returns the exit
 * code (0, 1 when rank 0 could not write its results, 2 for bad input). */
int cluster_run_main(int argc, char **argv, const struct cluster_main *m);

#endif
