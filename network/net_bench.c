/* netbench's client point loop on the harness: see net_bench.h. A kernel's session is one
 * repetition of a test against the server (net_client_run on r->team); the harness owns the
 * support check, warm-up call, repetitions, steal window, standard flags and the main row's
 * recording; the kernel's row hook rebuilds the main row (throughput with its theoretical
 * source, or latency summarised from every round trip) and extra_rows writes the rows after
 * it (per-connection throughput, transactions, loss, client and server CPU). */
#include "net_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_opts.h"

/* One point's session state (the kernel's r->state). */
struct sess {
	struct net_params p;
	struct net_point pt;
	struct net_rep rep; /* the last repetition, for verify */
};

static const struct net_bench_point *bpoint(const struct peak_bench_run *r)
{
	return r->point->data;
}

int net_bench_point(void *suite_data, unsigned threads, size_t i, struct peak_bench_point *p)
{
	struct net_bench *nb = suite_data;
	size_t first = nb->count ? nb->first : 0, n = nb->count ? nb->count : nb->npoints;
	(void)threads;
	if (i >= n)
		return 0;
	p->data = &nb->points[first + i];
	p->block_bytes = nb->points[first + i].size;
	p->has_block = true;
	return 1;
}

static bool supported(const struct peak_bench_run *r, char *why, size_t why_len)
{
	const struct net_bench_point *bp = bpoint(r);
	if (net_test_is_udp(bp->test) &&
	    (bp->size < NET_UDP_HEADER || bp->size > NET_MAX_UDP_DGRAM)) {
		snprintf(why, why_len, "UDP messages need 16..65507 bytes");
		return false;
	}
	return true;
}

static int setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	const struct net_bench *nb = r->suite_data;
	const struct net_bench_point *bp = bpoint(r);
	struct sess *ss = calloc(1, sizeof *ss);
	if (ss == NULL)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	r->state = ss;
	ss->p = nb->base;
	ss->p.test = (uint32_t)bp->test;
	ss->p.nconns = r->nthreads;
	ss->p.block_bytes = bp->size;
	if (net_test_is_latency(bp->test)) { /* latency runs for a time, never a byte count */
		ss->p.total_bytes = 0;
		ss->p.duration_ns = nb->latency_ns;
	}
	if (net_point_init(&ss->pt, bp->test, r->nthreads, bp->size, nb->reps) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	return 0;
}

/* The warm-up call: one unrecorded short session (slow start, page faults, ARP); latency
 * drops its first warmup_msgs round trips inside every session instead. */
static int warm_up(struct peak_bench_run *r, struct sess *ss, struct peak_bench_err *e)
{
	const struct net_bench *nb = r->suite_data;
	struct net_params w = ss->p;
	char err[320];
	if (net_test_is_latency((enum net_test)w.test))
		return 0;
	if (w.total_bytes != 0) {
		w.total_bytes /= 8;
		if (w.total_bytes < w.nconns)
			w.total_bytes = w.nconns;
	} else {
		w.duration_ns /= 8;
	}
	if (net_client_run(nb->cli, &w, r->team, &ss->rep, NULL, err, sizeof err) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", err);
	return 0;
}

/* One session: the repetition's figure is the receivers' throughput (Gbit/s) or the mean
 * round trip (us; the row itself summarises every round trip of every repetition). */
static int measure(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	const struct net_bench *nb = r->suite_data;
	struct sess *ss = r->state;
	char err[320];
	*value = 0;
	if (r->rep == PEAK_BENCH_NOT_MEASURED)
		return warm_up(r, ss, e);
	if (net_client_run(nb->cli, &ss->p, r->team, &ss->rep, ss->pt.rep_hist, err, sizeof err) !=
	    0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", err);
	double mean_us = ss->pt.rep_hist ? peak_hist_mean(ss->pt.rep_hist) / 1e3 : 0;
	net_point_add(&ss->pt, &ss->rep);
	*value = net_test_is_latency(ss->pt.test) ? mean_us : ss->pt.gbps[ss->pt.done - 1];
	return 0;
}

/* TCP in bytes mode: the server received every byte sent. */
static int verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	const struct sess *ss = r->state;
	if (ss->p.test != NET_TEST_TCP_THROUGHPUT || ss->p.total_bytes == 0)
		return 0;
	uint64_t got = 0;
	for (uint32_t i = 0; i < ss->rep.nconns; i++)
		got += ss->rep.rcv[i].bytes;
	if (got != ss->p.total_bytes)
		return peak_bench_fail(
		    e, PEAK_EXIT_FAIL,
		    "verification failed: the server received %llu of %llu bytes",
		    (unsigned long long)got, (unsigned long long)ss->p.total_bytes);
	return 0;
}

static bool has_flag(const char *flags, const char *name)
{
	size_t n = strlen(name);
	for (const char *f = flags; *f;) {
		const char *end = strchr(f, ';');
		size_t len = end ? (size_t)(end - f) : strlen(f);
		if (len == n && strncmp(f, name, n) == 0)
			return true;
		if (!end)
			break;
		f = end + 1;
	}
	return false;
}

/* The point's main row: the harness's steal (with its steal_pct) and oversubscribed go on
 * every row of the point (in netbench's order), the main row is rebuilt with the suite's
 * flags (theoretical source, bytes, retransmits, GSO) and, for latency, the histogram's
 * summary. */
static int row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
	       struct peak_bench_err *e)
{
	const struct net_bench *nb = r->suite_data;
	struct sess *ss = r->state;
	char *f = ss->pt.flags;
	size_t fl = sizeof ss->pt.flags;
	(void)out;
	(void)e;
	char pct[32];
	f[0] = '\0';
	if (has_flag(res->flags, "steal"))
		snprintf(f, fl, "steal");
	if (f[0] && peak_result_flag_item(res->flags, "steal_pct", pct, sizeof pct))
		snprintf(f + strlen(f), fl - strlen(f), ";%s", pct);
	if (has_flag(res->flags, "oversubscribed"))
		snprintf(f + strlen(f), fl - strlen(f), "%soversubscribed", f[0] ? ";" : "");
	char standard[sizeof res->flags];
	snprintf(standard, sizeof standard, "%s", res->flags);
	net_point_main(&ss->pt, &nb->th, ss->p.total_bytes != 0, res);
	/* The stopping rule's flag on the row whose repetitions it judged (latency: the
	 * sessions' mean round trips; the row's n counts round trips). */
	peak_result_flag_copy(res, standard, "ci_wide");
	return 0;
}

/* The rows after the main row. */
static int rest(struct peak_bench_run *r, const struct peak_result *main,
		struct peak_output *out, struct peak_bench_err *e)
{
	const struct sess *ss = r->state;
	(void)main;
	if (net_point_rest(&ss->pt, out) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing results failed");
	return 0;
}

static void teardown(struct peak_bench_run *r)
{
	struct sess *ss = r->state;
	if (ss == NULL)
		return;
	net_point_free(&ss->pt);
	free(ss);
	r->state = NULL;
}

#define NET_KERNEL(t, proto, met, u)                                                               \
	{                                                                                          \
		.name = t, .test = t, .variant = proto, .metric = met, .unit = u,                  \
		.supported = supported, .setup = setup, .verify = verify, .teardown = teardown,    \
		.row = row, .measure = measure, .extra_rows = rest                                 \
	}

const struct peak_bench_kernel net_bench_kernels[NET_TEST_COUNT] = {
    [NET_TEST_TCP_THROUGHPUT] = NET_KERNEL("tcp_throughput", "tcp", "throughput", "Gbit/s"),
    [NET_TEST_UDP_THROUGHPUT] = NET_KERNEL("udp_throughput", "udp", "throughput", "Gbit/s"),
    [NET_TEST_TCP_LATENCY] = NET_KERNEL("tcp_latency", "tcp", "latency", "us"),
    [NET_TEST_UDP_LATENCY] = NET_KERNEL("udp_latency", "udp", "latency", "us"),
};

/* netbench's order, test then size then connections: one harness sweep per run of points of
 * one test (that test's kernel alone), points outermost and each connection count on its
 * own team (threads_inner). Progress is the harness's line, with the figure and the
 * repetitions run. */
void net_bench_progress(const struct peak_bench_run *r, const struct peak_result *res,
			char *buf, size_t len)
{
	(void)snprintf(buf, len, "%.4g %s, %u reps", res->summary.mean, res->unit, r->nreps);
}

int net_bench_sweep(const struct peak_bench_suite *s, const struct peak_common_opts *c,
		    struct peak_output *out, struct peak_bench_err *e)
{
	struct net_bench *nb = s->data;
	const struct peak_bench_cfg cfg = {.common = c};
	int rc = 0;
	for (size_t first = 0; first < nb->npoints && rc == 0;) {
		size_t n = 1;
		while (first + n < nb->npoints && nb->points[first + n].test == nb->points[first].test)
			n++;
		struct peak_bench_suite one = *s;
		one.kernels = &s->kernels[nb->points[first].test];
		one.nkernels = 1;
		one.threads_inner = true;
		nb->first = first;
		nb->count = n;
		rc = peak_bench_sweep(&one, &cfg, out, NULL, e);
		first += n;
	}
	nb->first = nb->count = 0;
	return rc;
}
