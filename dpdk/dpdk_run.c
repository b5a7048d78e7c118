/* dpdkbench rounds: one timed run of a point on the lcores that own its queues; with a
 * dut, each round is framed by START and STATS control exchanges, and the sweep by HELLO
 * and QUIT. Also the dut's serving loop. */
#include "dpdk_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "peak_exit.h"

#define CTL_TIMEOUT_S   2.0
#define DRAIN_IDLE_S    0.02
#define DRAIN_MAX_S     2.0
#define STATS_MAX_TRIES 100
#define STATS_SETTLE_US 10000u
/* QUIT: the dut stops polling when it answers and closes its port only after
 * DUT_QUIT_HOLD_S; the tester stops polling when answered or after QUIT_TIMEOUT_S. Neither
 * side polls a memif ring the other side is tearing down (the memif PMD can fault on a
 * ring unmapped under it). */
#define QUIT_TIMEOUT_S  0.5
#define DUT_QUIT_HOLD_S 1.0

int dpdk_bench_init(struct dpdk_bench *b, const struct dpdk_bench_opts *o, struct dpdk_port *port,
		    const volatile sig_atomic_t *stop, struct peak_bench_err *e)
{
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->port = port;
	b->stop = stop;
	b->tsc_hz = rte_get_tsc_hz();
	b->lcore_ids[b->nlcores++] = rte_get_main_lcore();
	/* rte_get_next_lcore() rather than RTE_LCORE_FOREACH_WORKER, whose -1 start trips
	 * -Wsign-conversion. */
	for (unsigned id = rte_get_next_lcore((unsigned)rte_get_main_lcore(), 1, 0);
	     id < RTE_MAX_LCORE; id = rte_get_next_lcore(id, 1, 0))
		b->lcore_ids[b->nlcores++] = id;
	b->tmpl.tmpl = calloc(DPDK_MAX_FLOWS, DPDK_TEMPLATE_BYTES);
	if (b->tmpl.tmpl == NULL)
		goto oom;
	if (o->role != DPDK_ROLE_DUT) {
		for (unsigned i = 0; i < b->nlcores; i++) {
			b->gen[i] = rte_zmalloc("pb_gen", sizeof(struct dpdk_gen_lcore),
						RTE_CACHE_LINE_SIZE);
			if (b->gen[i] == NULL)
				goto oom;
		}
	}
	b->ctl.port_id = port->port_id;
	b->ctl.nqueues = port->nqueues;
	b->ctl.pool = port->pool;
	b->ctl.stop = stop;
	b->ctl.addrs.src_mac = port->mac;
	/* Until the dut answers HELLO: broadcast (the loopback port sends to itself). */
	if (o->role == DPDK_ROLE_TESTER)
		memset(&b->ctl.addrs.dst_mac, 0xff, sizeof(b->ctl.addrs.dst_mac));
	else
		b->ctl.addrs.dst_mac = port->mac;
	return 0;
oom:
	dpdk_bench_free(b);
	return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory for per-lcore state");
}

void dpdk_bench_free(struct dpdk_bench *b)
{
	for (unsigned i = 0; i < b->nlcores; i++) {
		rte_free(b->gen[i]);
		b->gen[i] = NULL;
	}
	free(b->tmpl.tmpl);
	b->tmpl.tmpl = NULL;
}

static int ctl(struct dpdk_bench *b, enum dpdk_pkt_type req, enum dpdk_pkt_type want,
	       struct dpdk_ctl_body *body, const char *what, struct peak_bench_err *e)
{
	struct dpdk_ctl_body reply;
	body->version = DPDK_PROTO_VERSION;
	if (dpdk_ctl_call(&b->ctl, req, body, want, &reply, NULL, CTL_TIMEOUT_S) != 0) {
		if (*b->stop)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "interrupted");
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "the dut did not answer %s within %.0f s",
				       what, CTL_TIMEOUT_S);
	}
	*body = reply;
	return 0;
}

/* The dut's counters once they stop moving: in sink mode nothing comes back to tell the
 * tester the dut has caught up, and a dut lcore may still be working through a queue
 * when another one answers. */
static int dut_stats(struct dpdk_bench *b, struct dpdk_ctl_body *out, struct peak_bench_err *e)
{
	uint64_t prev = UINT64_MAX;
	for (int i = 0; i < STATS_MAX_TRIES; i++) {
		struct dpdk_ctl_body body = {.epoch = b->epoch};
		if (ctl(b, DPDK_CTL_STATS_REQ, DPDK_CTL_STATS, &body, "STATS", e) != 0)
			return -1;
		*out = body;
		if (body.rx_pkts + body.other == prev)
			return 0;
		prev = body.rx_pkts + body.other;
		rte_delay_us_sleep(STATS_SETTLE_US);
	}
	return 0;
}

int dpdk_bench_round(struct dpdk_bench *b, const struct dpdk_point *pt, double time_s,
		     struct dpdk_rep *rep, struct peak_hist *hist, struct peak_bench_err *e)
{
	memset(rep, 0, sizeof(*rep));
	rep->tsc_hz = b->tsc_hz;
	++b->epoch;
	if (b->with_dut) {
		struct dpdk_ctl_body body = {
		    .epoch = b->epoch,
		    .mode = pt->bi ? DPDK_DUT_REFLECT : DPDK_DUT_SINK,
		    .flows = pt->flows,
		};
		if (ctl(b, DPDK_CTL_START, DPDK_CTL_START_ACK, &body, "START", e) != 0)
			return -1;
	}
	struct dpdk_gen_cfg cfg = {
	    .port_id = b->port->port_id,
	    .nqueues = (uint16_t)pt->queues,
	    .pool = b->port->pool,
	    .tmpl = &b->tmpl,
	    .frame_bytes = pt->size,
	    .seg_room = b->port->seg_room,
	    .nsegs = dpdk_pkt_nsegs(pt->size, b->port->seg_room),
	    .burst = (unsigned)b->o->burst,
	    .sample_every = (unsigned)b->o->sample_every,
	    .drain_idle_cycles = (uint64_t)(DRAIN_IDLE_S * (double)b->tsc_hz),
	    .drain_max_cycles = (uint64_t)(DRAIN_MAX_S * (double)b->tsc_hz),
	    .ns_per_cycle = 1e9 / (double)b->tsc_hz,
	    .minimal = b->o->role == DPDK_ROLE_MINIMAL,
	    .epoch_flags = dpdk_epoch_flags(b->epoch),
	    .stop = b->stop,
	};
	for (unsigned i = 0; i < pt->lcores; i++) {
		uint16_t qids[DPDK_MAX_QUEUES];
		unsigned nq = 0;
		for (uint32_t q = i; q < pt->queues; q += pt->lcores)
			qids[nq++] = (uint16_t)q;
		dpdk_gen_lcore_reset(b->gen[i], &cfg, qids, nq, pt->flows);
	}
	if (b->o->rate_mpps > 0)
		cfg.frames_per_cycle = b->o->rate_mpps * 1e6 / pt->queues / (double)b->tsc_hz;
	uint64_t start = rte_rdtsc();
	cfg.start_tsc = start;
	cfg.end_tsc = start + (uint64_t)(time_s * (double)b->tsc_hz);
	for (unsigned i = 1; i < pt->lcores; i++) {
		if (rte_eal_remote_launch(dpdk_gen_lcore_main, b->gen[i], b->lcore_ids[i]) != 0) {
			rte_eal_mp_wait_lcore();
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot launch lcore %u",
					       b->lcore_ids[i]);
		}
	}
	(void)dpdk_gen_lcore_main(b->gen[0]);
	rte_eal_mp_wait_lcore();
	uint64_t gen_end = cfg.end_tsc < rte_rdtsc() ? cfg.end_tsc : rte_rdtsc();
	rep->gen_s = (double)(gen_end - start) / (double)b->tsc_hz;
	/* The first lcore's histogram collects the others' for this rep's median. */
	for (unsigned i = 0; i < pt->lcores; i++) {
		dpdk_counters_add(&rep->tst, &b->gen[i]->c);
		if (i > 0)
			peak_hist_merge(&b->gen[0]->hist, &b->gen[i]->hist);
	}
	const struct peak_hist *h = &b->gen[0]->hist;
	rep->p50_us = h->n ? (double)peak_hist_percentile(h, 50) / 1e3 : NAN;
	peak_hist_merge(hist, h);
	if (b->with_dut) {
		if (dut_stats(b, &rep->dut, e) != 0)
			return -1;
		rep->has_dut = true;
	}
	if (*b->stop)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "interrupted");
	return 0;
}

int dpdk_bench_hello(struct dpdk_bench *b, struct peak_bench_err *e)
{
	struct dpdk_ctl_body body = {.epoch = 0, .version = DPDK_PROTO_VERSION};
	struct dpdk_ctl_body reply;
	if (dpdk_ctl_call(&b->ctl, DPDK_CTL_HELLO, &body, DPDK_CTL_HELLO_ACK, &reply, &b->peer_mac,
			  b->o->connect_timeout_s) != 0) {
		if (*b->stop)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "interrupted");
		return peak_bench_fail(e, PEAK_EXIT_FAIL,
				       "no dut answered on port %u within %.0f s (start dpdkbench "
				       "--role dut on the other end first)",
				       (unsigned)b->port->port_id, b->o->connect_timeout_s);
	}
	if (reply.version != DPDK_PROTO_VERSION)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "the dut speaks protocol %u, we speak %u",
				       (unsigned)reply.version, DPDK_PROTO_VERSION);
	/* memif pairs ring i with ring i: a dut that polls rings the tester never set up
	 * reads stale slots. NICs with RSS do not care. */
	if (strcmp(b->port->driver, "net_memif") == 0 && reply.flows != b->port->nqueues)
		return peak_bench_fail(
		    e, PEAK_EXIT_USAGE,
		    "--queues: the dut has %u queues, this tester %u; over memif "
		    "give both ends the same largest --queues",
		    (unsigned)reply.flows, (unsigned)b->port->nqueues);
	b->ctl.addrs.dst_mac = b->peer_mac;
	return 0;
}

void dpdk_bench_quit(struct dpdk_bench *b)
{
	if (*b->stop)
		return;
	struct dpdk_ctl_body body = {.epoch = ++b->epoch};
	(void)dpdk_ctl_call(&b->ctl, DPDK_CTL_QUIT, &body, DPDK_CTL_QUIT_ACK, NULL, NULL,
			    QUIT_TIMEOUT_S);
}

int dpdk_bench_serve(struct dpdk_bench *b, uint64_t *frames_reflected, struct peak_bench_err *e)
{
	struct dpdk_dut_shared *sh = rte_zmalloc("pb_dut", sizeof(*sh), RTE_CACHE_LINE_SIZE);
	struct dpdk_dut_lcore *d[RTE_MAX_LCORE];
	unsigned n = b->nlcores < b->port->nqueues ? b->nlcores : b->port->nqueues;
	int rc = 0;
	memset(d, 0, sizeof(d));
	if (sh == NULL)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	sh->port_id = b->port->port_id;
	sh->tsc_hz = b->tsc_hz;
	sh->mac = b->port->mac;
	sh->stop = b->stop;
	sh->nlcores = n;
	sh->nqueues = b->port->nqueues;
	for (unsigned i = 0; i < n; i++) {
		d[i] = rte_zmalloc("pb_dutl", sizeof(*d[i]), RTE_CACHE_LINE_SIZE);
		if (d[i] == NULL) {
			rc = peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
			goto out;
		}
		d[i]->sh = sh;
		d[i]->burst = (unsigned)b->o->burst;
		for (unsigned q = i; q < b->port->nqueues; q += n)
			d[i]->qids[d[i]->nq++] = (uint16_t)q;
		sh->counters[i] = &d[i]->pub;
	}
	for (unsigned i = 1; i < n; i++) {
		if (rte_eal_remote_launch(dpdk_dut_lcore_main, d[i], b->lcore_ids[i]) != 0) {
			__atomic_store_n(&sh->quit, 1u, __ATOMIC_RELEASE);
			rc = peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot launch lcore %u",
					     b->lcore_ids[i]);
			break;
		}
	}
	if (rc == 0)
		(void)dpdk_dut_lcore_main(d[0]);
	rte_eal_mp_wait_lcore();
	if (__atomic_load_n(&sh->quit, __ATOMIC_ACQUIRE))
		rte_delay_us_sleep((unsigned)(DUT_QUIT_HOLD_S * 1e6));
	*frames_reflected = 0;
	for (unsigned i = 0; i < n; i++)
		*frames_reflected += d[i]->c.tx_pkts;
out:
	for (unsigned i = 0; i < n; i++)
		rte_free(d[i]);
	rte_free(sh);
	return rc;
}
