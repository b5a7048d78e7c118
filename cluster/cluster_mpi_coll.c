/* --test mpi_coll: allreduce, alltoall, bcast, allgather over the size sweep, and the
 * barrier, every rank at once. Each iteration starts after an MPI_Barrier and is timed on
 * every rank; the iteration's time is the largest over the ranks (the per-iteration times
 * reduced with MPI_MAX after each repetition, outside the timing), so a collective that
 * leaves one rank late is not hidden by the early ones (OpenMPI #11022's critique of
 * OSU's average over ranks). The barrier's own cost is the mpi_coll_barrier row, measured
 * the same way and reported beside, not subtracted: a barrier's exit skew is part of what
 * the next iteration's maximum can carry, and the row bounds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_mpi.h"
#include "cluster_wait.h"

enum coll_op { COLL_ALLREDUCE, COLL_ALLTOALL, COLL_BCAST, COLL_ALLGATHER, COLL_BARRIER };

static const char *const op_tests[] = {"mpi_coll_allreduce", "mpi_coll_alltoall", "mpi_coll_bcast",
				       "mpi_coll_allgather", "mpi_coll_barrier"};

struct coll {
	int nranks;
	char *sbuf, *rbuf; /* nranks x the largest size each */
};

/* bytes: each rank's contribution (allreduce: floats summed, as osu_allreduce; alltoall and
 * allgather: to or from each rank; bcast: the message). */
static double iteration(const struct coll *c, enum coll_op op, int bytes)
{
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	switch (op) {
	case COLL_ALLREDUCE:
		MPI_Allreduce(c->sbuf, c->rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		break;
	case COLL_ALLTOALL:
		MPI_Alltoall(c->sbuf, bytes, MPI_BYTE, c->rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
		break;
	case COLL_BCAST:
		MPI_Bcast(c->sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
		break;
	case COLL_ALLGATHER:
		MPI_Allgather(c->sbuf, bytes, MPI_BYTE, c->rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
		break;
	case COLL_BARRIER:
		MPI_Barrier(MPI_COMM_WORLD);
		break;
	}
	return MPI_Wtime() - t0;
}

/* A warm-up's (times NULL) or a repetition's iterations on every rank, paced by rank 0
 * (cluster_mpi_pace), which broadcasts each chunk. Returns how many ran. */
static unsigned paced(const struct cluster_run *run, const struct coll *c, enum coll_op op,
		      int bytes, unsigned most, double *times)
{
	struct cluster_mpi_pace pace;
	cluster_mpi_pace_start(&pace, run->o->common.min_time_s, most, MPI_Wtime());
	unsigned done = 0, chunk = 0;
	for (;;) {
		if (run->rank == 0)
			chunk = cluster_mpi_pace_next(&pace, MPI_Wtime());
		MPI_Bcast(&chunk, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
		if (chunk == 0)
			return done;
		for (unsigned i = 0; i < chunk; i++, done++) {
			double t = iteration(c, op, bytes);
			if (times != NULL)
				times[done] = t;
			cluster_tick();
		}
	}
}

/* One op at one size on every rank: warm-up, then repetitions of the latency table's
 * iterations (bounded by --min-time) until rank 0's stopping rule says enough. p is rank
 * 0's. */
static int run_point(const struct cluster_run *run, const struct coll *c, enum coll_op op,
		     uint64_t bytes, struct cluster_mpi_point *p)
{
	unsigned warm, iters;
	char b[32];
	cluster_mpi_iters(run->o, CLUSTER_MPI_LATENCY, bytes, &warm, &iters);
	peak_format_size(bytes, b, sizeof b);
	cluster_step("mpi_coll, %s %s, warm-up", op_tests[op], b);
	(void)paced(run, c, op, (int)bytes, warm, NULL);
	double *mine = malloc(iters * sizeof *mine), *most = malloc(iters * sizeof *most);
	struct cluster_mpi_times all = {0};
	int more = 1, rc = mine != NULL && most != NULL ? 0 : -1;
	double spent = 0;
	memset(p, 0, sizeof *p);
	p->bytes = bytes;
	while (rc == 0 && more) {
		cluster_step("mpi_coll, %s %s, repetition %u", op_tests[op], b, p->nsamples + 1);
		double t0 = MPI_Wtime();
		unsigned k = paced(run, c, op, (int)bytes, iters, mine);
		spent += MPI_Wtime() - t0;
		MPI_Reduce(mine, most, (int)k, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (run->rank == 0) {
			double sum = 0;
			for (unsigned i = 0; i < k; i++)
				sum += most[i];
			if (cluster_mpi_times_add(&all, most, k) != 0)
				rc = -1;
			p->samples[p->nsamples++] = sum / (double)k * 1e6;
			more = rc == 0 && cluster_mpi_more(run->o, p, spent);
		}
		MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (run->rank == 0 && rc == 0) {
		p->iters = (uint32_t)all.n;
		p->p50 = cluster_mpi_times_pct(&all, 50) * 1e6;
		p->p99 = cluster_mpi_times_pct(&all, 99) * 1e6;
		cluster_mpi_ci(run->o, p);
	}
	free(all.t);
	free(most);
	free(mine);
	return rc;
}

static void add_row(const struct cluster_run *run, enum coll_op op,
		    const struct cluster_mpi_point *p)
{
	struct peak_result r;
	char item[48];
	cluster_mpi_row(&r, op_tests[op], "latency", "us", p, "all", "");
	snprintf(item, sizeof item, "ranks=%d", run->nranks);
	peak_result_flag(&r, item);
	if (op != COLL_BARRIER)
		peak_result_flag(&r, "timing=max_over_ranks;barrier_beside");
	else
		peak_result_flag(&r, "timing=max_over_ranks");
	peak_result_finish(&r);
	if (cluster_rows_add(run->rows, &r) != 0)
		cluster_fail(run, "out of memory");
	cluster_progress_row(run, &r, p->budget_stopped ? "(budget_stopped)" : "");
}

void cluster_mpi_coll(const struct cluster_run *run)
{
	const struct cluster_opts *o = run->o;
	uint64_t largest = 4;
	for (size_t s = 0; s < o->sizes.n; s++)
		if (o->sizes.v[s] > largest)
			largest = o->sizes.v[s];
	struct coll c = {.nranks = run->nranks};
	c.sbuf = calloc((size_t)run->nranks, largest);
	c.rbuf = calloc((size_t)run->nranks, largest);
	if (c.sbuf == NULL || c.rbuf == NULL)
		cluster_fail(run, "out of memory");
	int round = 0;
	struct cluster_mpi_point p;
	/* The barrier first: the cost the other rows carry beside them. */
	cluster_watch(run, ++round, 1);
	if (run_point(run, &c, COLL_BARRIER, 0, &p) != 0)
		cluster_fail(run, "out of memory");
	cluster_watch(run, round, 0);
	if (run->rank == 0) {
		add_row(run, COLL_BARRIER, &p);
		cluster_flush(run);
	}
	for (int op = COLL_ALLREDUCE; op <= COLL_ALLGATHER; op++) {
		cluster_watch(run, ++round, 1);
		for (size_t s = 0; s < o->sizes.n; s++) {
			uint64_t bytes = o->sizes.v[s];
			if (op == COLL_ALLREDUCE && bytes < 4)
				continue; /* floats: osu_allreduce starts at 4 B */
			if (run_point(run, &c, (enum coll_op)op, bytes, &p) != 0)
				cluster_fail(run, "out of memory");
			if (run->rank == 0)
				add_row(run, (enum coll_op)op, &p);
		}
		cluster_watch(run, round, 0);
		if (run->rank == 0)
			cluster_flush(run);
	}
	cluster_step_idle();
	free(c.rbuf);
	free(c.sbuf);
}
