/* Ranks that share a kernel beyond its CPUs (namespaces or containers on one machine, an
 * oversubscribed host): found at start from every rank's boot_id and allowed CPUs. Such
 * ranks' waits yield the CPU (cluster_wait.h), the rows carry ranks_share_cpus, and where
 * MPI's own waits keep spinning (OpenMPI's collectives without mpi_yield_when_idle) one
 * line says so. A hostfile's slots=1 per node tells OpenMPI nothing of this: each node's
 * daemon sees one rank on its slot. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster_share.h"
#include "peak_path.h"
#include "peak_sysinfo.h"

struct share_self {
	char boot_id[40];
	uint8_t cpus[CPU_SETSIZE / 8]; /* the CPUs this rank may run on, a bit each */
};

static void describe(struct share_self *s)
{
	memset(s, 0, sizeof *s);
	char buf[64];
	if (peak_sysinfo_read("", "/proc/sys/kernel/random/boot_id", buf, sizeof buf) == 0)
		(void)peak_fmt(s->boot_id, sizeof s->boot_id, "%s", buf);
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		for (long c = 0; c < n && c < CPU_SETSIZE; c++)
			CPU_SET((size_t)c, &set);
	}
	for (size_t c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			s->cpus[c / 8] |= (uint8_t)(1u << (c % 8));
}

/* Per kernel (one boot_id), the ranks on it and the CPUs they may use between them; a
 * rank shares when its kernel holds more ranks than CPUs. The largest such group is
 * described in what. Returns how many ranks share. */
static int find(const struct share_self *all, int nranks, uint8_t *shares,
		const struct cluster_node *nodes, char *what, size_t len)
{
	int nshared = 0, widest = 0;
	what[0] = '\0';
	for (int i = 0; i < nranks; i++) {
		uint8_t cpus[CPU_SETSIZE / 8] = {0};
		int ranks = 0, ncpus = 0;
		for (int j = 0; j < nranks; j++) {
			if (all[i].boot_id[0] == '\0' ||
			    strcmp(all[i].boot_id, all[j].boot_id) != 0)
				continue;
			ranks++;
			for (size_t b = 0; b < sizeof cpus; b++)
				cpus[b] |= all[j].cpus[b];
		}
		for (size_t b = 0; b < sizeof cpus; b++)
			ncpus += __builtin_popcount(cpus[b]);
		shares[i] = ranks > ncpus && ncpus > 0;
		nshared += shares[i];
		if (!shares[i] || ranks <= widest)
			continue;
		widest = ranks;
		size_t n = (size_t)snprintf(what, len, "%d ranks on %d CPU%s of one kernel (",
					    ranks, ncpus, ncpus == 1 ? "" : "s");
		for (int j = 0, k = 0; j < nranks && n < len; j++)
			if (strcmp(all[i].boot_id, all[j].boot_id) == 0)
				n += (size_t)snprintf(what + n, len - n, "%s%s", k++ ? ", " : "",
						      nodes[j].name);
		if (n < len)
			(void)snprintf(what + n, len - n, ")");
	}
	return nshared;
}

/* OpenMPI's mpi_yield_when_idle as it runs (MPI_T): 1, 0, or -1 when there is no such
 * variable (another MPI). It is read-only once MPI_Init has run. OpenMPI declares it
 * MPI_C_BOOL (one byte), other builds may say MPI_INT. */
static int mpi_yields(void)
{
	int provided = 0, index = -1, count = 0, value = -1;
	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
		return -1;
	char name[64];
	int name_len = sizeof name, desc_len = 0, verbosity, bind, scope;
	MPI_Datatype type;
	MPI_T_enum en;
	MPI_T_cvar_handle h;
	if (MPI_T_cvar_get_index("mpi_yield_when_idle", &index) == MPI_SUCCESS &&
	    MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &en, NULL, &desc_len,
				&bind, &scope) == MPI_SUCCESS &&
	    (type == MPI_C_BOOL || type == MPI_INT) &&
	    MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS) {
		union {
			_Bool b;
			int i;
		} v = {.i = 0};
		if (count == 1 && MPI_T_cvar_read(h, &v) == MPI_SUCCESS)
			value = type == MPI_C_BOOL ? v.b : v.i != 0;
		(void)MPI_T_cvar_handle_free(&h);
	}
	(void)MPI_T_finalize();
	return value;
}

/* Rank 0: the context key, the warning, the rows' mark and the one line. */
static void tell(const struct cluster_run *run, const uint8_t *shares, const char *what)
{
	char line[PEAK_CONTEXT_VALUE_LEN];
	int yields = mpi_yields();
	for (int i = 0; i < run->nranks; i++)
		if (shares[i] &&
		    cluster_rows_mark(run->rows, run->nodes[i].name, CLUSTER_SHARE_FLAG) != 0)
			cluster_fail(run, "out of memory");
	peak_context_set_str(run->ctx, "cluster.ranks_share_cpus", what);
	(void)peak_fmt(line, sizeof line, "ranks share CPUs: %s; rows flagged %s", what,
		       CLUSTER_SHARE_FLAG);
	peak_context_warn(run->ctx, line);
	if (yields == 1)
		cluster_progress(run->o,
				 "cluster %s: %s: OpenMPI yields when idle "
				 "(mpi_yield_when_idle)",
				 CLUSTER_SHARE_FLAG, what);
	else if (strcmp(run->o->test, "mpi_coll") == 0)
		/* Said even with --quiet: the figures are taken with CPUs spun away. */
		fprintf(stderr,
			"cluster %s: %s: MPI's collectives spin while they wait, and "
			"clusterbench cannot make them yield (OpenMPI's mpi_yield_when_idle is "
			"read-only once MPI runs): pass --mca mpi_yield_when_idle 1 to mpirun\n",
			CLUSTER_SHARE_FLAG, what);
	else
		cluster_progress(run->o,
				 "cluster %s: %s: clusterbench's waits yield the CPU "
				 "(sched_yield)",
				 CLUSTER_SHARE_FLAG, what);
}

uint8_t *cluster_share_begin(struct cluster_run *run)
{
	struct share_self self, *all = malloc((size_t)run->nranks * sizeof *all);
	uint8_t *shares = calloc((size_t)run->nranks, 1);
	if (all == NULL || shares == NULL)
		cluster_fail(run, "out of memory");
	describe(&self);
	MPI_Allgather(&self, (int)sizeof self, MPI_BYTE, all, (int)sizeof self, MPI_BYTE,
		      MPI_COMM_WORLD);
	char what[PEAK_CONTEXT_VALUE_LEN - 64];
	int n = find(all, run->nranks, shares, run->nodes, what, sizeof what);
	run->shares_cpus = shares;
	run->yield = shares[run->rank];
	if (run->rank == 0 && n > 0)
		tell(run, shares, what);
	free(all);
	return shares;
}
