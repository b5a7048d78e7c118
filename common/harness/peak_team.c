/* A team of pinned worker threads released together from a barrier (likwid-bench style).
 * Workers live as long as the team so pinning and thread creation stay out of timings. */
#define _GNU_SOURCE
#include "peak_team.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_time.h"

int peak_team_confine(const uint64_t *cpus, size_t n, long *bad)
{
	cpu_set_t allowed, want;
	*bad = -1;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return -1;
	CPU_ZERO(&want);
	for (size_t i = 0; i < n; i++) {
		if (cpus[i] >= CPU_SETSIZE || !CPU_ISSET((size_t)cpus[i], &allowed)) {
			*bad = (long)cpus[i];
			errno = EINVAL;
			return -1;
		}
		CPU_SET((size_t)cpus[i], &want);
	}
	if (n == 0)
		return 0;
	return sched_setaffinity(0, sizeof(want), &want);
}

struct worker {
	struct peak_team *team;
	unsigned index;
	int cpu;
	uint64_t start_ns;
	uint64_t end_ns;
	int rc;
};

/* Synchronisation: the caller bumps `generation` under the mutex and broadcasts; each
 * worker wakes, then spins on `arrived` until the whole team is awake, so all start
 * their timed work together; the last worker to finish signals `done_cv`. A mutex and
 * condition variables rather than pthread_barrier_t so a half-created team can be
 * told to quit. */
struct peak_team {
	unsigned n;
	pthread_t *threads;
	struct worker *workers;
	pthread_mutex_t mu;
	pthread_cond_t start_cv;
	pthread_cond_t done_cv;
	uint64_t generation;
	unsigned running;
	unsigned arrived; /* atomic */
	peak_team_fn fn;
	void *arg;
	bool quit;
	bool pinned;
	bool oversubscribed;
};

/* The CPUs of this process's affinity mask, in order. Returns their count. */
static unsigned allowed_cpu_list(int *cpus, unsigned max)
{
	cpu_set_t set;
	unsigned n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		for (long c = 0; c < online && n < max; c++)
			cpus[n++] = (int)c;
		return n;
	}
	for (unsigned c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = (int)c;
	return n;
}

unsigned peak_team_allowed_cpus(void)
{
	int cpus[CPU_SETSIZE];
	unsigned n = allowed_cpu_list(cpus, CPU_SETSIZE);
	return n ? n : 1;
}

static void *worker_main(void *p)
{
	struct worker *w = p;
	struct peak_team *team = w->team;

	uint64_t seen = 0;

	for (;;) {
		pthread_mutex_lock(&team->mu);
		while (team->generation == seen && !team->quit)
			pthread_cond_wait(&team->start_cv, &team->mu);
		bool quit = team->quit;
		seen = team->generation;
		peak_team_fn fn = team->fn;
		void *arg = team->arg;
		pthread_mutex_unlock(&team->mu);
		if (quit)
			break;

		/* Start barrier: nobody starts the clock before everyone is awake. */
		__atomic_add_fetch(&team->arrived, 1u, __ATOMIC_ACQ_REL);
		while (__atomic_load_n(&team->arrived, __ATOMIC_ACQUIRE) < team->n)
			sched_yield();

		w->start_ns = peak_time_now_ns();
		w->rc = fn(arg, w->index, team->n);
		w->end_ns = peak_time_now_ns();

		pthread_mutex_lock(&team->mu);
		if (--team->running == 0)
			pthread_cond_signal(&team->done_cv);
		pthread_mutex_unlock(&team->mu);
	}
	return NULL;
}

static void set_err(char *err, size_t err_len, const char *what, int code)
{
	if (err && err_len)
		snprintf(err, err_len, "%s: %s", what, strerror(code));
}

struct peak_team *peak_team_create(unsigned nthreads, bool pin, char *err, size_t err_len)
{
	int cpus[CPU_SETSIZE];
	unsigned ncpus = allowed_cpu_list(cpus, CPU_SETSIZE);
	struct peak_team *team = calloc(1, sizeof(*team));
	unsigned created = 0;
	int rc;

	if (nthreads == 0) {
		set_err(err, err_len, "thread team of 0 threads", EINVAL);
		free(team);
		return NULL;
	}
	if (!team)
		goto fail_alloc;
	team->n = nthreads;
	team->oversubscribed = ncpus > 0 && nthreads > ncpus;
	team->pinned = pin && ncpus > 0;
	team->threads = calloc(nthreads, sizeof(*team->threads));
	team->workers = calloc(nthreads, sizeof(*team->workers));
	if (!team->threads || !team->workers)
		goto fail_alloc;
	pthread_mutex_init(&team->mu, NULL);
	pthread_cond_init(&team->start_cv, NULL);
	pthread_cond_init(&team->done_cv, NULL);

	for (; created < nthreads; created++) {
		struct worker *w = &team->workers[created];
		pthread_attr_t attr;
		w->team = team;
		w->index = created;
		w->cpu = team->pinned ? cpus[created % ncpus] : -1;
		pthread_attr_init(&attr);
		if (w->cpu >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET((unsigned)w->cpu, &set);
			if (pthread_attr_setaffinity_np(&attr, sizeof(set), &set) != 0) {
				w->cpu = -1;
				team->pinned = false;
			}
		}
		rc = pthread_create(&team->threads[created], &attr, worker_main, w);
		pthread_attr_destroy(&attr);
		if (rc != 0)
			goto fail_threads;
	}
	return team;

fail_threads:
	set_err(err, err_len, "cannot create worker thread", rc);
	pthread_mutex_lock(&team->mu);
	team->quit = true;
	pthread_cond_broadcast(&team->start_cv);
	pthread_mutex_unlock(&team->mu);
	for (unsigned i = 0; i < created; i++)
		pthread_join(team->threads[i], NULL);
	pthread_cond_destroy(&team->done_cv);
	pthread_cond_destroy(&team->start_cv);
	pthread_mutex_destroy(&team->mu);
	free(team->workers);
	free(team->threads);
	free(team);
	return NULL;
fail_alloc:
	set_err(err, err_len, "thread team", ENOMEM);
	if (team) {
		free(team->workers);
		free(team->threads);
		free(team);
	}
	return NULL;
}

int peak_team_run(struct peak_team *team, peak_team_fn fn, void *arg, uint64_t *team_ns,
		  uint64_t *thread_ns)
{
	pthread_mutex_lock(&team->mu);
	team->fn = fn;
	team->arg = arg;
	team->running = team->n;
	__atomic_store_n(&team->arrived, 0u, __ATOMIC_RELEASE);
	team->generation++;
	pthread_cond_broadcast(&team->start_cv);
	while (team->running > 0)
		pthread_cond_wait(&team->done_cv, &team->mu);
	pthread_mutex_unlock(&team->mu);

	uint64_t first_start = UINT64_MAX, last_end = 0;
	int rc = 0;
	for (unsigned i = 0; i < team->n; i++) {
		const struct worker *w = &team->workers[i];
		if (w->start_ns < first_start)
			first_start = w->start_ns;
		if (w->end_ns > last_end)
			last_end = w->end_ns;
		if (thread_ns)
			thread_ns[i] = w->end_ns - w->start_ns;
		if (rc == 0 && w->rc != 0)
			rc = w->rc;
	}
	if (team_ns)
		*team_ns = last_end - first_start;
	return rc;
}

unsigned peak_team_size(const struct peak_team *team)
{
	return team->n;
}

int peak_team_cpu(const struct peak_team *team, unsigned thread_index)
{
	return thread_index < team->n ? team->workers[thread_index].cpu : -1;
}

bool peak_team_oversubscribed(const struct peak_team *team)
{
	return team->oversubscribed;
}

bool peak_team_pinned(const struct peak_team *team)
{
	return team->pinned;
}

void peak_team_destroy(struct peak_team *team)
{
	if (!team)
		return;
	pthread_mutex_lock(&team->mu);
	team->quit = true;
	pthread_cond_broadcast(&team->start_cv);
	pthread_mutex_unlock(&team->mu);
	for (unsigned i = 0; i < team->n; i++)
		pthread_join(team->threads[i], NULL);
	pthread_cond_destroy(&team->done_cv);
	pthread_cond_destroy(&team->start_cv);
	pthread_mutex_destroy(&team->mu);
	free(team->workers);
	free(team->threads);
	free(team);
}
