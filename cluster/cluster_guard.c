/* How a clusterbench rank ends the job when something goes wrong: the watchdog of a
 * stalled round, a failure (one line, rank 0's rows so far written, MPI_Abort), and
 * rank 0's rows written as they come. The round loops (cluster_matrix.c, cluster_sweep.c)
 * and the main (clusterbench.c) call these; they call back into nothing. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "cluster.h"
#include "cluster_rows.h"

/* The watchdog's state: a signal handler can reach nothing else. */
static volatile sig_atomic_t watch_round;
static char watch_host[64];

/* A stalled round (a peer that stopped answering inside MPI, a hung kernel call): one
 * line naming this host and the round, then the whole job ends (mpirun kills the rest). */
static void on_alarm(int sig)
{
	(void)sig;
	char line[160];
	int len = watch_round > 0
		      ? snprintf(line, sizeof line, "clusterbench: %s: round %d stalled, ending the job\n",
				 watch_host, (int)watch_round)
		      : snprintf(line, sizeof line,
				 "clusterbench: %s: stalled after the last round, ending the job\n",
				 watch_host);
	if (len > 0)
		(void)!write(2, line, (size_t)len);
	_exit(1);
}

void cluster_watch(const struct cluster_run *run, int round, int arm)
{
	watch_round = round;
	alarm(arm ? (unsigned)run->o->round_s : 0u);
}

void cluster_fail(const struct cluster_run *run, const char *msg)
{
	fprintf(stderr, "clusterbench: %s\n", msg);
	fflush(stderr);
	char err[300];
	if (run != NULL && run->rows != NULL)
		(void)cluster_rows_flush(run->rows, 0, err, sizeof err);
	MPI_Abort(MPI_COMM_WORLD, 1);
	_exit(1);
}

void cluster_flush(const struct cluster_run *run)
{
	char err[300];
	if (run->rows != NULL && cluster_rows_flush(run->rows, 0, err, sizeof err) != 0) {
		struct cluster_run quiet = *run;
		quiet.rows = NULL;
		cluster_fail(&quiet, err);
	}
}

void cluster_guard_start(const char *host)
{
	snprintf(watch_host, sizeof watch_host, "%s", host);
	signal(SIGALRM, on_alarm);
}
