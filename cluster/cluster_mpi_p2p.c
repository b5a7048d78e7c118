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
	const struct cluster_opts *o;
	int a;     /* this rank is the pair's first (times, decides) */
	int other; /* the other rank */
	unsigned window;
	char *sbuf, *rbuf;
	MPI_Request *req; /* 2 x window */
};

typedef double (*iter_fn)(const struct p2p *x, int bytes);

static double it_latency(const struct p2p *x, int n)
{
	double t0 = MPI_Wtime();
	if (x->a) {
		MPI_Send(x->sbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD);
		MPI_Recv(x->rbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(x->rbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(x->sbuf, n, MPI_BYTE, x->other, TAG_DATA, MPI_COMM_WORLD);
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
	MPI_Waitall(w, x->req, MPI_STATUSES_IGNORE);
	if (x->a)
		MPI_Recv(x->rbuf, CLUSTER_MPI_ACK_BYTES, MPI_BYTE, x->other, TAG_ACK,
			 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	else
		MPI_Send(x->sbuf, CLUSTER_MPI_ACK_BYTES, MPI_BYTE, x->other, TAG_ACK,
			 MPI_COMM_WORLD);
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
	MPI_Waitall(2 * w, x->req, MPI_STATUSES_IGNORE);
	return MPI_Wtime() - t0;
}

static const struct p2p_test {
	iter_fn fn;
	enum cluster_mpi_kind kind;
	double msgs;  /* messages an iteration moves one way, per window message */
	double sides; /* 2: both directions */
} p2p_tests[CLUSTER_P2P_NTESTS] = {
    [CLUSTER_P2P_LATENCY] = {it_latency, CLUSTER_MPI_LATENCY, 0, 1},
    [CLUSTER_P2P_BW] = {it_bw, CLUSTER_MPI_BANDWIDTH, 1, 1},
    [CLUSTER_P2P_BIBW] = {it_bibw, CLUSTER_MPI_BANDWIDTH, 1, 2},
    [CLUSTER_P2P_MSGRATE] = {it_bw, CLUSTER_MPI_BANDWIDTH, 1, 1},
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

/* One size of one test, on both ranks of the pair: the warm-up, then repetitions of OSU's
 * iteration count until the stopping rule (rank a decides and tells the other). */
static int run_point(const struct p2p *x, int test, uint64_t bytes, struct cluster_mpi_point *p)
{
	const struct p2p_test *t = &p2p_tests[test];
	unsigned warm, iters;
	cluster_mpi_iters(x->o, t->kind, bytes, &warm, &iters);
	int n = (int)bytes;
	for (unsigned i = 0; i < warm; i++)
		(void)t->fn(x, n);
	double *times = malloc(iters * sizeof *times);
	struct cluster_mpi_times all = {0};
	if (times == NULL)
		return -1;
	memset(p, 0, sizeof *p);
	p->bytes = bytes;
	int more = 1, rc = 0;
	while (more) {
		double sum = 0;
		for (unsigned i = 0; i < iters; i++) {
			times[i] = t->fn(x, n);
			sum += times[i];
		}
		if (x->a) {
			if (cluster_mpi_times_add(&all, times, iters) != 0)
				rc = -1;
			p->samples[p->nsamples++] =
			    cluster_p2p_value(test, bytes, x->window, sum / (double)iters);
			more = rc == 0 && !cluster_mpi_enough(x->o, p);
			MPI_Send(&more, 1, MPI_INT, x->other, TAG_MORE, MPI_COMM_WORLD);
		} else {
			MPI_Recv(&more, 1, MPI_INT, x->other, TAG_MORE, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		}
	}
	if (x->a && rc == 0) {
		p->iters = (uint32_t)all.n;
		/* A rate's p99 is the rate of the 99th-percentile (slow) iteration. */
		p->p50 = cluster_p2p_value(test, bytes, x->window, cluster_mpi_times_pct(&all, 50));
		p->p99 = cluster_p2p_value(test, bytes, x->window, cluster_mpi_times_pct(&all, 99));
		cluster_mpi_ci(x->o, p);
	}
	free(all.t);
	free(times);
	return rc;
}

static void p2p_init(struct p2p *x, const struct cluster_run *run, int other, int a)
{
	const struct cluster_opts *o = run->o;
	uint64_t most = 1;
	for (size_t i = 0; i < o->sizes.n; i++)
		if (o->sizes.v[i] > most)
			most = o->sizes.v[i];
	x->o = o;
	x->a = a;
	x->other = other;
	x->window = (unsigned)o->window;
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

static void one_pair(const struct cluster_run *run, const int32_t *leader, int a, int b, int round,
		     struct cluster_p2p_result *res)
{
	int me = run->rank;
	memset(res, 0, sizeof *res);
	res->host = a;
	res->peer = b;
	res->intra = leader[a] == leader[b];
	cluster_watch(run, round, 1);
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
		p2p_init(&x, run, me == a ? b : a, me == a);
		pair_bounds(run, &x, res);
		run_tests(run, &x, CLUSTER_P2P_LATENCY, CLUSTER_P2P_BIBW, res);
		int cpu = sched_getcpu(), other_cpu = -1;
		MPI_Sendrecv(&cpu, 1, MPI_INT, x.other, TAG_RESULT, &other_cpu, 1, MPI_INT, x.other,
			     TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		res->same_cpu = cpu >= 0 && cpu == other_cpu;
		p2p_free(&x);
	}
	/* Rank 0 waits here quietly, not in MPI_Recv, which would spin through the pair's
	 * timings on a CPU the pair may share (cluster_wait.h). */
	cluster_barrier(MPI_COMM_WORLD);
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
		p2p_init(&x, run, me == a ? b : a, me == a);
	}
	cluster_watch(run, round, 1);
	for (size_t s = 0; s < run->o->sizes.n; s++) {
		cluster_barrier(MPI_COMM_WORLD); /* every pair starts each size together */
		if (mine >= 0 && run_point(&x, CLUSTER_P2P_MSGRATE, run->o->sizes.v[s],
					   &res->pts[CLUSTER_P2P_MSGRATE][s]) != 0)
			cluster_fail(run, "out of memory");
	}
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
		one_pair(run, leader, pairs[2 * k], pairs[2 * k + 1], ++round, res);
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
