/* How a clusterbench rank ends the job when something goes wrong: the watchdog of a
 * stalled round, the progress watch of the MPI tests (no iteration for --timeout seconds),
 * a failure (one line, rank 0's rows so far written, MPI_Abort), rank 0's rows written as
 * they come, and the progress lines on stderr. The round loops (cluster_matrix.c,
 * cluster_sweep.c, cluster_mpi_*.c) and the driver (cluster_main.c) call these; they call
 * back into nothing. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
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

/* The progress watch: the measuring loops count iterations (cluster_tick, one relaxed
 * store: nothing inside a timing waits on it) and name the step they are in (cluster_step,
 * once a repetition, under a lock the thread takes only to say where it stood); a thread
 * looks four times a second. */
static _Atomic uint64_t step_ticks;
static atomic_int step_watched;
static pthread_mutex_t step_lock = PTHREAD_MUTEX_INITIALIZER;
static char step_where[200];
static double step_stall_s;

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *progress_watch(void *arg)
{
	(void)arg;
	uint64_t seen = atomic_load(&step_ticks);
	double since = mono_s();
	const struct timespec nap = {.tv_sec = 0, .tv_nsec = 250000000};
	for (;;) {
		nanosleep(&nap, NULL);
		uint64_t now = atomic_load_explicit(&step_ticks, memory_order_relaxed);
		if (now != seen || !atomic_load(&step_watched)) {
			seen = now;
			since = mono_s();
			continue;
		}
		if (mono_s() - since < step_stall_s)
			continue;
		char line[400];
		pthread_mutex_lock(&step_lock);
		int len =
		    snprintf(line, sizeof line,
			     "clusterbench: %s: no progress for %g s (--timeout) in %s, ending "
			     "the job\n",
			     watch_host, step_stall_s, step_where);
		pthread_mutex_unlock(&step_lock);
		if (len > 0)
			(void)!write(2, line,
				     (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
		_exit(1);
	}
	return NULL;
}

void cluster_progress_watch_start(double stall_s)
{
	pthread_t tid;
	step_stall_s = stall_s;
	if (pthread_create(&tid, NULL, progress_watch, NULL) != 0)
		cluster_fail(NULL, "cannot start the progress watch");
	(void)pthread_detach(tid);
}

void cluster_step(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&step_lock);
	(void)vsnprintf(step_where, sizeof step_where, fmt, ap);
	pthread_mutex_unlock(&step_lock);
	va_end(ap);
	cluster_tick();
	atomic_store(&step_watched, 1);
}

void cluster_step_idle(void)
{
	atomic_store(&step_watched, 0);
}

void cluster_tick(void)
{
	atomic_store_explicit(&step_ticks,
			      atomic_load_explicit(&step_ticks, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void cluster_progress(const struct cluster_opts *o, const char *fmt, ...)
{
	if (o->common.quiet)
		return;
	char line[400];
	va_list ap;
	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

void cluster_progress_row(const struct cluster_run *run, const struct peak_result *r,
			  const char *where)
{
	char b[32] = "";
	if (r->has_block)
		peak_format_size(r->block_bytes, b, sizeof b);
	/* A pair re-measured after the matrix (net_matrix's outliers) comes a second time. */
	const char *again = peak_result_has_flag(r->flags, "remeasured") ? ", remeasured" : "";
	cluster_progress(run->o, "cluster %s %s %s%s%s%s%s: %.4g %s, %zu rep%s%s%s%s", r->test,
			 r->variant, r->host, r->peer[0] ? "->" : "", r->peer,
			 b[0] ? " block=" : "", b, r->summary.mean, r->unit, r->summary.n,
			 r->summary.n == 1 ? "" : "s", again, where[0] ? " " : "", where);
}
