/* Core-to-core round trip between every pair of allowed CPUs: the VM placement
 * fingerprint (see peak_c2c.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_c2c.h"
#include "peak_stats.h"
#include "peak_time.h"

/* A waiting side gives up after this long without an answer: a vCPU the host does not
 * run for a whole second is a stall to report, not a round trip to time. */
#define STALL_NS UINT64_C(1000000000)
#define C2C_STALL_TRIES 3u

/* The line both threads bounce, alone in its cache line so nothing else moves with it. */
struct c2c_line {
	_Alignas(64) atomic_uint_fast64_t seq;
	char pad[64 - sizeof(atomic_uint_fast64_t)];
	_Alignas(64) atomic_int abort;
};

struct c2c_side {
	struct c2c_line *line;
	int cpu;
	unsigned samples, round_trips;
	double *sample_ns; /* ping side only: one entry per sample */
	int pinned;        /* 0 ok, else errno of pthread_setaffinity_np */
	int stalled;
};

static int pin_self(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET((size_t)cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/* Spin until seq reaches want; false when the other side stalled or gave up. */
static bool wait_for(struct c2c_line *line, uint_fast64_t want)
{
	uint64_t deadline = 0;
	for (unsigned spins = 0;; spins++) {
		if (atomic_load_explicit(&line->seq, memory_order_acquire) == want)
			return true;
		if ((spins & 1023u) == 1023u) {
			if (atomic_load_explicit(&line->abort, memory_order_relaxed))
				return false;
			uint64_t now = peak_time_now_ns();
			if (deadline == 0)
				deadline = now + STALL_NS;
			else if (now > deadline) {
				atomic_store_explicit(&line->abort, 1, memory_order_relaxed);
				return false;
			}
		}
	}
}

/* Ping writes odd numbers and waits for the next even one; pong answers each odd number
 * with the next even one. One round trip = the line moving to pong's core and back. */
static void *ping(void *arg)
{
	struct c2c_side *s = arg;
	s->pinned = pin_self(s->cpu);
	uint_fast64_t v = 0;
	/* One unrecorded sample first: both threads running, the line in play. */
	for (unsigned k = 0; k <= s->samples && !s->stalled; k++) {
		uint64_t t0 = peak_time_now_ns();
		for (unsigned i = 0; i < s->round_trips; i++) {
			atomic_store_explicit(&s->line->seq, ++v, memory_order_release);
			if (!wait_for(s->line, ++v)) {
				s->stalled = 1;
				break;
			}
		}
		uint64_t t1 = peak_time_now_ns();
		if (k > 0)
			s->sample_ns[k - 1] = (double)(t1 - t0) / s->round_trips;
	}
	return NULL;
}

static void *pong(void *arg)
{
	struct c2c_side *s = arg;
	s->pinned = pin_self(s->cpu);
	uint_fast64_t total = (uint_fast64_t)(s->samples + 1) * s->round_trips;
	for (uint_fast64_t i = 0; i < total; i++) {
		if (!wait_for(s->line, 2 * i + 1)) {
			s->stalled = 1;
			break;
		}
		atomic_store_explicit(&s->line->seq, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

/* 0 measured, 1 a side stalled (the host ran something else on its vCPU for over a
 * second: worth another try), -1 failed. */
static int measure_pair(int a, int b, unsigned samples, unsigned round_trips,
			struct peak_c2c_pair *out, char *err, size_t err_len)
{
	struct c2c_line *line = aligned_alloc(64, sizeof *line);
	double *sample_ns = calloc(samples, sizeof *sample_ns);
	int rc = -1;
	if (!line || !sample_ns) {
		(void)snprintf(err, err_len, "core-to-core probe: out of memory");
		goto out;
	}
	atomic_init(&line->seq, 0);
	atomic_init(&line->abort, 0);
	struct c2c_side ps = {.line = line, .cpu = a, .samples = samples,
			      .round_trips = round_trips, .sample_ns = sample_ns};
	struct c2c_side qs = {.line = line, .cpu = b, .samples = samples,
			      .round_trips = round_trips};
	pthread_t tp, tq;
	int e = pthread_create(&tq, NULL, pong, &qs);
	if (e == 0) {
		e = pthread_create(&tp, NULL, ping, &ps);
		if (e != 0) {
			atomic_store(&line->abort, 1);
			(void)pthread_join(tq, NULL);
		}
	}
	if (e != 0) {
		(void)snprintf(err, err_len, "core-to-core probe: cannot start a thread: %s",
			       strerror(e));
		goto out;
	}
	(void)pthread_join(tp, NULL);
	(void)pthread_join(tq, NULL);
	if (ps.pinned || qs.pinned) {
		(void)snprintf(err, err_len, "core-to-core probe: cannot pin to CPU %d: %s",
			       ps.pinned ? a : b, strerror(ps.pinned ? ps.pinned : qs.pinned));
		goto out;
	}
	if (ps.stalled || qs.stalled) {
		(void)snprintf(err, err_len,
			       "core-to-core probe: CPUs %d and %d stalled for over 1 s", a, b);
		rc = 1;
		goto out;
	}
	struct peak_summary sum;
	peak_stats_summarize(sample_ns, samples, &sum);
	*out = (struct peak_c2c_pair){
	    .cpu_a = a, .cpu_b = b, .samples = samples, .min_ns = sum.min, .median_ns = sum.median};
	rc = 0;
out:
	free(sample_ns);
	free(line);
	return rc;
}

int peak_c2c_measure(unsigned max_cpus, unsigned samples, unsigned round_trips,
		     struct peak_c2c_pair *out, size_t out_cap, size_t *n_out, char *err,
		     size_t err_len)
{
	*n_out = 0;
	if (samples == 0 || round_trips == 0) {
		(void)snprintf(err, err_len, "core-to-core probe: no samples asked for");
		return -1;
	}
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		(void)snprintf(err, err_len, "core-to-core probe: sched_getaffinity: %s",
			       strerror(errno));
		return -1;
	}
	int cpus[CPU_SETSIZE];
	unsigned n = 0;
	for (size_t c = 0; c < CPU_SETSIZE && n < max_cpus; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = (int)c;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++) {
			if (*n_out >= out_cap)
				return 0;
			/* A stall is the machine's moment, not the probe's failure: a loaded
			 * 2-vCPU guest can deschedule one spinning side for a second. */
			int rc = 1;
			for (unsigned t = 0; rc == 1 && t < C2C_STALL_TRIES; t++)
				rc = measure_pair(cpus[i], cpus[j], samples, round_trips,
						  &out[*n_out], err, err_len);
			if (rc != 0)
				return -1;
			(*n_out)++;
		}
	return 0;
}

bool peak_c2c_moved(const struct peak_c2c_pair *before, size_t n_before,
		    const struct peak_c2c_pair *after, size_t n_after)
{
	for (size_t i = 0; i < n_before; i++)
		for (size_t j = 0; j < n_after; j++) {
			const struct peak_c2c_pair *x = &before[i], *y = &after[j];
			if (x->cpu_a != y->cpu_a || x->cpu_b != y->cpu_b || !x->samples ||
			    !y->samples || x->min_ns <= 0 || y->min_ns <= 0)
				continue;
			double r = x->min_ns > y->min_ns ? x->min_ns / y->min_ns
							  : y->min_ns / x->min_ns;
			if (r > PEAK_C2C_MOVED_FACTOR)
				return true;
		}
	return false;
}

void peak_c2c_format(const struct peak_c2c_pair *pairs, size_t n, char *buf, size_t len)
{
	if (len == 0)
		return;
	buf[0] = '\0';
	if (n == 0) {
		(void)snprintf(buf, len, "none");
		return;
	}
	size_t used = 0;
	for (size_t i = 0; i < n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%d-%d:%.0f/%.0f", i ? " " : "",
				 pairs[i].cpu_a, pairs[i].cpu_b, pairs[i].min_ns,
				 pairs[i].median_ns);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

int peak_c2c_parse(const char *text, struct peak_c2c_pair *pairs, size_t cap, size_t *n)
{
	*n = 0;
	if (!text)
		return -1;
	if (strcmp(text, "none") == 0)
		return 0;
	const char *p = text;
	while (*p) {
		int a, b, used = 0;
		double lo, med;
		if (sscanf(p, "%d-%d:%lf/%lf%n", &a, &b, &lo, &med, &used) != 4 || used == 0 ||
		    a < 0 || b < 0 || !(lo > 0) || !(med >= lo))
			return -1;
		if (*n < cap)
			pairs[(*n)++] = (struct peak_c2c_pair){
			    .cpu_a = a, .cpu_b = b, .samples = 1, .min_ns = lo, .median_ns = med};
		p += used;
		if (*p == ' ')
			p++;
		else if (*p)
			return -1;
	}
	return *n ? 0 : -1;
}
