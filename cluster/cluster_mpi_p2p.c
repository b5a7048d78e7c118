/* --test mpi_p2p: MPI point to point between pairs of ranks, one pair at a time, as the
 * OSU Micro-Benchmarks measure it: ping-pong latency (half the round trip, osu_latency),
 * windowed bandwidth (a window of messages in flight, then a 4-byte reply, osu_bw),
 * bidirectional bandwidth (osu_bibw), then the message rate of disjoint pairs at once
 * (osu_mbw_mr). Before each pair, netbench's TCP round trip on the same pair (the
 * below_tcp reference). Rows and physics flags: cluster_mpi_rows.c. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_mpi.h"
#include "cluster_mpi_p2p.h"
#include "cluster_wait.h"

#define TAG_DATA   11
#define TAG_ACK    12
#define TAG_MORE   13
#define TAG_RESULT 14

struct p2p {
	const struct cluster_run *run;
	const struct cluster_opts *o;
	int a;     /* this rank is the pair's first (times, decides) */
	int other; /* the other rank */
	int yield; /* the waits yield the CPU (ranks share CPUs: cluster_wait.h) */
	unsigned window;
	char *sbuf, *rbuf;
	MPI_Request *req; /* 2 x window */
	char where[160];  /* "mpi_p2p pair 1/3 A - B": the step, for the progress watch */
};

typedef double (*iter_fn)(const struct p2p *x, int bytes);

static double it_latency(const struct p2p *x, int n)
{
	double t0 = MPI_Wtime();
	if (x->a) {
		cluster_send(x->sbuf, n, x->other, TAG_DATA, x->yield);
		cluster_recv(x->rbuf, n, x->other, TAG_DATA, x->yield);
	} else {
		cluster_recv(x->rbuf, n, x->other, TAG_DATA, x->yield);
		cluster_send(x->sbuf, n, x->other, TAG_DATA, x->yield);
	}
	return (MPI_Wtime() - t0) / 2.0;
}

/* osu_bw's iteration (also osu_mbw_mr's): the window sent, then the receiver's 4 bytes. */
static double it_bw(const struct p2p *x, int n)
{
	int w = (int)x->window;
	double t0 = MPI_Wtime();
	for (int i = 0; i < w; i++) {
		if (x->a)
			MPI_Isend(x->sbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD,
				  &x->req[i]);
		else
			MPI_Irecv(x->rbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD,
				  &x->req[i]);
	}
	cluster_wait_all(w, x->req, x->yield);
	if (x->a)
		cluster_recv(x->rbuf, CLUSTER_MPI_ACK_BYTES, x->other, TAG_ACK, x->yield);
	else
		cluster_send(x->sbuf, CLUSTER_MPI_ACK_BYTES, x->other, TAG_ACK, x->yield);
	return MPI_Wtime() - t0;
}

/* osu_bibw's: both sides post the window's receives and sends at once. */
static double it_bibw(const struct p2p *x, int n)
{
	int w = (int)x->window;
	double t0 = MPI_Wtime();
	for (int i = 0; i < w; i++)
		MPI_Irecv(x->rbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD, &x->req[i]);
	for (int i = 0; i < w; i++)
		MPI_Isend(x->sbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD, &x->req[w + i]);
	cluster_wait_all(2 * w, x->req, x->yield);
	return MPI_Wtime() - t0;
}

static const struct p2p_test {
	iter_fn fn;
	const char *name, *unit;
	enum cluster_mpi_kind kind;
	double msgs;  /* messages an iteration moves one way, per window message */
	double sides; /* 2: both directions */
} p2p_tests[CLUSTER_P2P_NTESTS] = {
    [CLUSTER_P2P_LATENCY] = {it_latency, "mpi_p2p_latency", "us", CLUSTER_MPI_LATENCY, 0, 1},
    [CLUSTER_P2P_BW] = {it_bw, "mpi_p2p_bw", "MB/s", CLUSTER_MPI_BANDWIDTH, 1, 1},
    [CLUSTER_P2P_BIBW] = {it_bibw, "mpi_p2p_bibw", "MB/s", CLUSTER_MPI_BANDWIDTH, 1, 2},
    [CLUSTER_P2P_MSGRATE] = {it_bw, "mpi_p2p_msgrate", "Mmsg/s", CLUSTER_MPI_BANDWIDTH, 1, 1},
};

/* An iteration time (s) in the row's unit: us for latency; MB/s (10^6 B) for bandwidth;
 * million messages a second for the message rate. */
double cluster_p2p_value(int test, uint64_t bytes, unsigned window, double t)
{
	if (t <= 0)
		return 0;
	if (test == CLUSTER_P2P_LATENCY)
		return t * 1e6;
	if (test == CLUSTER_P2P_MSGRATE)
		return (double)window / t / 1e6;
	return p2p_tests[test].sides * (double)bytes * (double)window / t / 1e6;
}

/* A warm-up's (times NULL) or a repetition's iterations, paced by rank a
 * (cluster_mpi_pace), which tells the other rank each chunk. Returns how many ran. */
static unsigned paced(const struct p2p *x, iter_fn fn, int n, unsigned most, double *times)
{
	struct cluster_mpi_pace pace;
	cluster_mpi_pace_start(&pace, x->o->common.min_time_s, most, MPI_Wtime());
	unsigned done = 0, chunk = 0;
	for (;;) {
		if (x->a) {
			chunk = cluster_mpi_pace_next(&pace, MPI_Wtime());
			cluster_send(&chunk, (int)sizeof chunk, x->other, TAG_MORE, x->yield);
		} else {
			cluster_recv(&chunk, (int)sizeof chunk, x->other, TAG_MORE, x->yield);
		}
		if (chunk == 0)
			return done;
		for (unsigned i = 0; i < chunk; i++, done++) {
			double t = fn(x, n);
			if (times != NULL)
				times[done] = t;
			cluster_tick();
		}
	}
}

/* A bandwidth point's window, grown through its first warm-up iterations
 * (cluster_mpi_window_next); rank a decides each step and tells the other (0: once more at
 * this window). Where an iteration was too slow to grow on, the faster of two decides: one
 * slow wake-up on a loaded host would otherwise hold the window at that size. */
static unsigned fit_window(const struct p2p *x, iter_fn fn, int n)
{
	struct p2p y = *x;
	unsigned w = 1, next = 1, tries = 0;
	double best = 0;
	for (;;) {
		y.window = w;
		double t = fn(&y, n);
		cluster_tick();
		if (x->a) {
			best = tries++ == 0 || t < best ? t : best;
			next = cluster_mpi_window_next(x->o, w, best);
			if (next == w && tries < 2 && w < (unsigned)x->o->window)
				next = 0;
			cluster_send(&next, (int)sizeof next, x->other, TAG_MORE, x->yield);
		} else {
			cluster_recv(&next, (int)sizeof next, x->other, TAG_MORE, x->yield);
		}
		if (next == w)
			return w;
		if (next != 0) {
			w = next;
			tries = 0;
		}
	}
}

/* Rank a's line for a point as it ends (the rows reach rank 0 after the pair). */
static void point_progress(const struct p2p *x, int test, const struct cluster_mpi_point *p)
{
	char b[32];
	double sum = 0;
	for (uint32_t i = 0; i < p->nsamples; i++)
		sum += p->samples[i];
	peak_format_size(p->bytes, b, sizeof b);
	char extra[48] = "";
	if (p->window > 0)
		snprintf(extra, sizeof extra, ", window %u", (unsigned)p->window);
	cluster_progress(x->o, "cluster %s mpi block=%s: %.4g %s, %u rep%s%s%s (%s)",
			 p2p_tests[test].name, b, p->nsamples ? sum / p->nsamples : 0.0,
			 p2p_tests[test].unit, (unsigned)p->nsamples, p->nsamples == 1 ? "" : "s",
			 extra, p->budget_stopped ? ", budget_stopped" : "", x->where);
}

/* Rank a: a repetition's sample, its times kept; then whether to run another (told to b). */
static int rep_done(const struct p2p *x, int test, struct cluster_mpi_point *p,
		    struct cluster_mpi_times *all, const double *times, unsigned k, double spent)
{
	double sum = 0;
	for (unsigned i = 0; i < k; i++)
		sum += times[i];
	int rc = cluster_mpi_times_add(all, times, k);
	p->samples[p->nsamples++] = cluster_p2p_value(test, p->bytes, x->window, sum / (double)k);
	return rc == 0 ? cluster_mpi_more(x->o, p, spent) : -1;
}

/* One size of one test, on both ranks of the pair: the warm-up (a bandwidth test's window
 * fitted by its first iteration), then repetitions until the stopping rule (rank a decides
 * and tells the other), each bounded by --min-time and OSU's count. */
static int run_point(const struct p2p *x0, int test, uint64_t bytes, struct cluster_mpi_point *p)
{
	const struct p2p_test *t = &p2p_tests[test];
	struct p2p x = *x0;
	unsigned warm, iters;
	char b[32];
	cluster_mpi_iters(x.o, t->kind, bytes, &warm, &iters);
	peak_format_size(bytes, b, sizeof b);
	int n = (int)bytes;
	memset(p, 0, sizeof *p);
	p->bytes = bytes;
	cluster_step("%s, %s %s, warm-up", x.where, t->name, b);
	if (t->kind == CLUSTER_MPI_BANDWIDTH)
		p->window = x.window = fit_window(&x, t->fn, n);
	(void)paced(&x, t->fn, n, warm, NULL);
	double *times = malloc(iters * sizeof *times), spent = 0;
	struct cluster_mpi_times all = {0};
	if (times == NULL)
		return -1;
	int more = 1, rc = 0;
	while (more > 0) {
		cluster_step("%s, %s %s, repetition %u", x.where, t->name, b, p->nsamples + 1);
		double t0 = MPI_Wtime();
		unsigned k = paced(&x, t->fn, n, iters, times);
		spent += MPI_Wtime() - t0;
		if (x.a) {
			more = rep_done(&x, test, p, &all, times, k, spent);
			rc = more < 0 ? -1 : 0;
			cluster_send(&more, (int)sizeof more, x.other, TAG_MORE, x.yield);
		} else {
			cluster_recv(&more, (int)sizeof more, x.other, TAG_MORE, x.yield);
		}
	}
	if (x.a && rc == 0) {
		p->iters = (uint32_t)all.n;
		/* A rate's p99 is the rate of the 99th-percentile (slow) iteration. */
		p->p50 = cluster_p2p_value(test, bytes, x.window, cluster_mpi_times_pct(&all, 50));
		p->p99 = cluster_p2p_value(test, bytes, x.window, cluster_mpi_times_pct(&all, 99));
		cluster_mpi_ci(x.o, p);
		point_progress(&x, test, p);
	}
	free(all.t);
	free(times);
	return rc;
}

/* label: where the pair stands in the run ("pair 1/3", "message rate"). */
static void p2p_init(struct p2p *x, const struct cluster_run *run, int other, int a,
		     const char *label)
{
	const struct cluster_opts *o = run->o;
	uint64_t most = 1;
	for (size_t i = 0; i < o->sizes.n; i++)
		if (o->sizes.v[i] > most)
			most = o->sizes.v[i];
	x->run = run;
	x->o = o;
	x->yield = run->yield;
	x->a = a;
	x->other = other;
	x->window = (unsigned)o->window;
	int first = a ? run->rank : other, second = a ? other : run->rank;
	snprintf(x->where, sizeof x->where, "mpi_p2p %s %s - %s", label, run->nodes[first].name,
		 run->nodes[second].name);
	x->sbuf = malloc(most);
	x->rbuf = malloc(most);
	x->req = malloc(2 * x->window * sizeof *x->req);
	if (x->sbuf == NULL || x->rbuf == NULL || x->req == NULL)
		cluster_fail(run, "out of memory");
	memset(x->sbuf, 'a', most);
	memset(x->rbuf, 'b', most);
}

static void p2p_free(struct p2p *x)
{
	free(x->req);
	free(x->rbuf);
	free(x->sbuf);
}

static void run_tests(const struct cluster_run *run, struct p2p *x, int first, int last,
		      struct cluster_p2p_result *res)
{
	const struct cluster_opts *o = run->o;
	for (int test = first; test <= last; test++)
		for (size_t s = 0; s < o->sizes.n; s++)
			if (run_point(x, test, o->sizes.v[s], &res->pts[test][s]) != 0)
				cluster_fail(run, "out of memory");
}

/* GB/s of one core copying bytes from a warm buffer to another: the best of 3 batches of
 * at least 64 MiB. On one node every byte of a message is copied at least once, by one of
 * the pair's two ranks, so twice this bounds the pair's bandwidth at that size (the same
 * buffers, warm in the same caches, as the benchmark's own). */
static double copy_gbps(uint64_t bytes)
{
	char *src = malloc(bytes), *dst = malloc(bytes);
	double best = 0;
	if (src != NULL && dst != NULL) {
		memset(src, 1, bytes);
		memset(dst, 2, bytes);
		uint64_t n = ((uint64_t)64 << 20) / bytes + 1;
		for (int rep = 0; rep < 3; rep++) {
			double t0 = MPI_Wtime();
			for (uint64_t i = 0; i < n; i++) {
				memcpy(dst, src, bytes);
				__asm__ volatile("" ::: "memory"); /* every copy is done */
			}
			cluster_tick();
			double t = MPI_Wtime() - t0;
			if (t > 0 && (double)(bytes * n) / t / 1e9 > best)
				best = (double)(bytes * n) / t / 1e9;
		}
	}
	free(dst);
	free(src);
	return best * 8.0; /* Gbit/s, as the link */
}

/* The bounds of pair a-b, on both its ranks: the link (the slower side's), or on one
 * node the copy rate at each size above OSU's small-message limit. */
static void pair_bounds(const struct cluster_run *run, struct p2p *x,
			struct cluster_p2p_result *res)
{
	char where[96] = "";
	double mine =
	    res->intra ? 0 : cluster_mpi_link_gbps(run->nodes[x->other].name, where, sizeof where);
	double theirs = 0;
	MPI_Sendrecv(&mine, 1, MPI_DOUBLE, x->other, TAG_RESULT, &theirs, 1, MPI_DOUBLE, x->other,
		     TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (!x->a)
		return;
	res->link_gbps = mine > 0 && (theirs <= 0 || mine <= theirs) ? mine : theirs;
	snprintf(res->link_where, sizeof res->link_where, "%s", where);
	for (size_t s = 0; res->intra && s < x->o->sizes.n; s++)
		if (x->o->sizes.v[s] > CLUSTER_MPI_LARGE_BYTES)
			res->copy_gbps[s] = 2.0 * copy_gbps(x->o->sizes.v[s]);
}

/* Rank a's figures to rank 0 (no message when a is rank 0). */
static void to_rank0(const struct cluster_run *run, int a, struct cluster_p2p_result *res)
{
	if (a == 0)
		return;
	if (run->rank == a)
		MPI_Send(res, (int)sizeof *res, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
	else if (run->rank == 0)
		MPI_Recv(res, (int)sizeof *res, MPI_BYTE, a, TAG_RESULT, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
}

/* The pair's two ranks are watched for progress (cluster_step) from their first MPI test to
 * the barrier after the last, where the other ranks wait already; the TCP round trips have
 * their own timeouts, and the ranks outside the pair wait under the round's watchdog. */
static void one_pair(const struct cluster_run *run, const int32_t *leader, int a, int b, int round,
		     int npairs, struct cluster_p2p_result *res)
{
	int me = run->rank;
	memset(res, 0, sizeof *res);
	res->host = a;
	res->peer = b;
	res->intra = leader[a] == leader[b];
	cluster_watch(run, round, 1);
	cluster_step_idle();
	cluster_barrier(MPI_COMM_WORLD);
	if (me == a && !res->intra) {
		/* netbench's TCP round trips on the same pair, the other rank idle meanwhile. */
		struct cluster_pair cp;
		memset(&cp, 0, sizeof cp);
		if (cluster_pair_latency(&run->o->cfg, run->nodes[b].name, run->nodes[b].port,
					 &cp) != 0) {
			char msg[400];
			snprintf(msg, sizeof msg, "round %d: %s -> %s failed: %s", round,
				 run->nodes[a].name, run->nodes[b].name, cp.err);
			cluster_fail(run, msg);
		}
		res->tcp_half_us = cp.lat_us[0] / 2.0;
		res->tcp_min_half_us = cp.lat_us[4] / 2.0;
	}
	cluster_barrier(MPI_COMM_WORLD);
	if (me == a || me == b) {
		struct p2p x;
		char label[32];
		snprintf(label, sizeof label, "pair %d/%d", round, npairs);
		p2p_init(&x, run, me == a ? b : a, me == a, label);
		cluster_step("%s, its bounds", x.where);
		pair_bounds(run, &x, res);
		run_tests(run, &x, CLUSTER_P2P_LATENCY, CLUSTER_P2P_BIBW, res);
		int cpu = sched_getcpu(), other_cpu = -1;
		MPI_Sendrecv(&cpu, 1, MPI_INT, x.other, TAG_RESULT, &other_cpu, 1, MPI_INT, x.other,
			     TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		res->same_cpu = cpu >= 0 && cpu == other_cpu;
		cluster_step("%s, waiting for the other ranks after it", x.where);
		p2p_free(&x);
	}
	/* Rank 0 waits here quietly, not in MPI_Recv, which would spin through the pair's
	 * timings on a CPU the pair may share (cluster_wait.h). */
	cluster_barrier(MPI_COMM_WORLD);
	cluster_step_idle();
	to_rank0(run, a, res);
	cluster_watch(run, round, 0);
}

/* osu_mbw_mr: the disjoint pairs (the first of the list that share no rank) at once. */
static void msgrate(const struct cluster_run *run, const int32_t *pairs, int npairs, int round,
		    struct cluster_p2p_result *res)
{
	int me = run->rank, nset = 0, mine = -1;
	char *used = calloc((size_t)run->nranks, 1);
	int32_t *set = malloc((size_t)npairs * 2 * sizeof *set);
	if (used == NULL || set == NULL)
		cluster_fail(run, "out of memory");
	for (int k = 0; k < npairs; k++) {
		int a = pairs[2 * k], b = pairs[2 * k + 1];
		if (used[a] || used[b])
			continue;
		used[a] = used[b] = 1;
		if (me == a || me == b)
			mine = nset;
		set[2 * nset] = a;
		set[2 * nset + 1] = b;
		nset++;
	}
	struct p2p x;
	if (mine >= 0) {
		int a = set[2 * mine], b = set[2 * mine + 1];
		p2p_init(&x, run, me == a ? b : a, me == a, "message rate");
	}
	cluster_watch(run, round, 1);
	for (size_t s = 0; s < run->o->sizes.n; s++) {
		/* Every pair starts each size together; a pair done early waits for the others,
		 * which are watched themselves. */
		cluster_step_idle();
		cluster_barrier(MPI_COMM_WORLD);
		if (mine >= 0 && run_point(&x, CLUSTER_P2P_MSGRATE, run->o->sizes.v[s],
					   &res->pts[CLUSTER_P2P_MSGRATE][s]) != 0)
			cluster_fail(run, "out of memory");
	}
	cluster_step_idle();
	cluster_barrier(MPI_COMM_WORLD);
	if (mine >= 0)
		p2p_free(&x);
	/* Rank 0 receives each pair's figures into its own buffer: its own pair's stay. */
	struct cluster_p2p_result *got = me == 0 ? malloc(sizeof *got) : NULL;
	if (me == 0 && got == NULL)
		cluster_fail(run, "out of memory");
	res->concurrent = (uint32_t)nset;
	for (int k = 0; k < nset; k++) {
		int a = set[2 * k];
		if (me == a && a != 0)
			to_rank0(run, a, res);
		if (me != 0)
			continue;
		if (a == 0)
			*got = *res;
		else
			to_rank0(run, a, got);
		got->host = a;
		got->peer = set[2 * k + 1];
		cluster_p2p_msgrate_rows(run, got);
	}
	cluster_watch(run, round, 0);
	free(got);
	free(set);
	free(used);
}

void cluster_mpi_p2p(const struct cluster_run *run)
{
	int32_t *leader = cluster_p2p_leaders(run);
	int npairs = 0;
	int32_t *pairs = cluster_p2p_pairs(run, leader, &npairs);
	struct cluster_p2p_result *res = malloc(sizeof *res);
	struct cluster_p2p_result *kept =
	    run->rank == 0 ? calloc((size_t)npairs, sizeof *kept) : NULL;
	if (res == NULL || (run->rank == 0 && kept == NULL))
		cluster_fail(run, "out of memory");
	int round = 0;
	for (int k = 0; k < npairs; k++) {
		one_pair(run, leader, pairs[2 * k], pairs[2 * k + 1], ++round, npairs, res);
		if (run->rank == 0) {
			kept[k] = *res;
			cluster_p2p_rows(run, res, 0, 0);
			cluster_flush(run);
		}
	}
	msgrate(run, pairs, npairs, ++round, res);
	if (run->rank == 0) {
		cluster_p2p_outliers(run, kept, npairs);
		cluster_flush(run);
	}
	free(kept);
	free(res);
	free(pairs);
	free(leader);
}
