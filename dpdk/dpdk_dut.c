/* dpdkbench dut lcore: reflects every data frame back where it came from (MACs, IPv4
 * addresses and UDP ports swapped, l2fwd-like) or sinks it, counts and checks sequence
 * numbers per flow, and answers the tester's control frames. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "dpdk_traffic.h"

/* Counters are read by whichever lcore answers a STATS request. */
static inline void publish(uint64_t *field, uint64_t value)
{
	__atomic_store_n(field, value, __ATOMIC_RELAXED);
}

static void publish_counters(struct dpdk_counters *dst, const struct dpdk_counters *src)
{
	publish(&dst->tx_pkts, src->tx_pkts);
	publish(&dst->tx_drops, src->tx_drops);
	publish(&dst->rx_pkts, src->rx_pkts);
	publish(&dst->rx_bytes, src->rx_bytes);
	publish(&dst->gaps, src->gaps);
	publish(&dst->late, src->late);
	publish(&dst->sum_next, src->sum_next);
	publish(&dst->other, src->other);
	publish(&dst->first_rx_tsc, src->first_rx_tsc);
	publish(&dst->last_rx_tsc, src->last_rx_tsc);
}

static void snapshot(const struct dpdk_dut_shared *sh, struct dpdk_ctl_body *b)
{
	struct dpdk_counters sum;
	memset(&sum, 0, sizeof(sum));
	for (unsigned i = 0; i < sh->nlcores; i++) {
		struct dpdk_counters c;
		const struct dpdk_counters *src = sh->counters[i];
		c.tx_pkts = __atomic_load_n(&src->tx_pkts, __ATOMIC_RELAXED);
		c.tx_drops = __atomic_load_n(&src->tx_drops, __ATOMIC_RELAXED);
		c.rx_pkts = __atomic_load_n(&src->rx_pkts, __ATOMIC_RELAXED);
		c.rx_bytes = __atomic_load_n(&src->rx_bytes, __ATOMIC_RELAXED);
		c.gaps = __atomic_load_n(&src->gaps, __ATOMIC_RELAXED);
		c.late = __atomic_load_n(&src->late, __ATOMIC_RELAXED);
		c.sum_next = __atomic_load_n(&src->sum_next, __ATOMIC_RELAXED);
		c.other = __atomic_load_n(&src->other, __ATOMIC_RELAXED);
		c.first_rx_tsc = __atomic_load_n(&src->first_rx_tsc, __ATOMIC_RELAXED);
		c.last_rx_tsc = __atomic_load_n(&src->last_rx_tsc, __ATOMIC_RELAXED);
		dpdk_counters_add(&sum, &c);
	}
	b->rx_pkts = sum.rx_pkts;
	b->rx_bytes = sum.rx_bytes;
	b->tx_pkts = sum.tx_pkts;
	b->tx_drops = sum.tx_drops;
	b->gaps = sum.gaps;
	b->late = sum.late;
	b->sum_next = sum.sum_next;
	b->other = sum.other;
	uint64_t cycles =
	    sum.last_rx_tsc > sum.first_rx_tsc ? sum.last_rx_tsc - sum.first_rx_tsc : 0;
	b->window_ns = (uint64_t)((double)cycles * 1e9 / (double)sh->tsc_hz);
}

/* Answer a control frame in place (same mbuf, turned around). Returns true when the mbuf
 * was queued for transmission (or freed), false when the caller must free it. */
static bool answer(struct dpdk_dut_lcore *d, struct rte_mbuf *m, const struct dpdk_payload *p,
		   uint16_t qid)
{
	struct dpdk_dut_shared *sh = d->sh;
	struct dpdk_ctl_body *b = dpdk_pkt_ctl_body(m);
	if (b == NULL)
		return false;
	uint8_t reply;
	switch (p->type) {
	case DPDK_CTL_HELLO:
		reply = DPDK_CTL_HELLO_ACK;
		b->version = DPDK_PROTO_VERSION;
		b->flows = sh->nqueues; /* HELLO_ACK: the dut's queue count */
		break;
	case DPDK_CTL_START:
		reply = DPDK_CTL_START_ACK;
		if (b->epoch != __atomic_load_n(&sh->epoch, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&sh->mode, b->mode, __ATOMIC_RELAXED);
			__atomic_store_n(&sh->flows,
					 b->flows < DPDK_MAX_FLOWS ? b->flows : DPDK_MAX_FLOWS,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&sh->epoch, b->epoch, __ATOMIC_RELEASE);
		}
		break;
	case DPDK_CTL_STATS_REQ:
		reply = DPDK_CTL_STATS;
		/* This lcore's own counters are current only after it published them. */
		publish_counters(&d->pub, &d->c);
		snapshot(sh, b);
		break;
	case DPDK_CTL_QUIT:
		reply = DPDK_CTL_QUIT_ACK;
		__atomic_store_n(&sh->quit, 1u, __ATOMIC_RELEASE);
		break;
	default:
		return false;
	}
	struct dpdk_payload *wp = rte_pktmbuf_mtod_offset(m, struct dpdk_payload *, DPDK_HDR_BYTES);
	wp->type = reply;
	dpdk_pkt_reflect(m);
	rte_ether_addr_copy(&sh->mac, &rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr);
	for (int tries = 0; tries < 1000; tries++) {
		if (rte_eth_tx_burst(sh->port_id, qid, &m, 1) == 1)
			return true;
	}
	rte_pktmbuf_free(m);
	return true;
}

static void check_epoch(struct dpdk_dut_lcore *d)
{
	uint32_t e = __atomic_load_n(&d->sh->epoch, __ATOMIC_ACQUIRE);
	if (e == d->epoch)
		return;
	d->epoch = e;
	d->epoch_flags = dpdk_epoch_flags(e);
	d->mode = __atomic_load_n(&d->sh->mode, __ATOMIC_RELAXED);
	memset(&d->c, 0, sizeof(d->c));
	dpdk_flowcheck_reset(&d->fc, __atomic_load_n(&d->sh->flows, __ATOMIC_RELAXED));
}

static void serve_queue(struct dpdk_dut_lcore *d, uint16_t qid)
{
	struct dpdk_dut_shared *sh = d->sh;
	struct rte_mbuf *rx[DPDK_MAX_BURST];
	struct rte_mbuf *out[DPDK_MAX_BURST];
	struct rte_mbuf *drop[DPDK_MAX_BURST];
	uint16_t n = rte_eth_rx_burst(sh->port_id, qid, rx, (uint16_t)d->burst);
	if (n == 0)
		return;
	/* After the rx: a frame sent after a START's ack is seen with the new epoch. */
	check_epoch(d);
	uint64_t now = rte_rdtsc();
	unsigned nout = 0, ndrop = 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		const struct dpdk_payload *p = dpdk_pkt_payload(m);
		if (p == NULL || p->magic != DPDK_MAGIC) {
			d->c.other++;
			drop[ndrop++] = m;
			continue;
		}
		if (p->type != DPDK_PKT_DATA) {
			if (!answer(d, m, p, qid))
				drop[ndrop++] = m;
			check_epoch(d);
			continue;
		}
		if ((p->flags & DPDK_EPOCH_MASK) != d->epoch_flags) {
			d->c.other++; /* a straggler from an earlier run */
			drop[ndrop++] = m;
			continue;
		}
		if (!dpdk_flowcheck_seen(&d->fc, &d->c, p->flow, p->seq)) {
			drop[ndrop++] = m;
			continue;
		}
		if (d->c.first_rx_tsc == 0)
			d->c.first_rx_tsc = now;
		d->c.last_rx_tsc = now;
		d->c.rx_bytes += m->pkt_len + DPDK_FCS_BYTES;
		if (d->mode == DPDK_DUT_REFLECT) {
			dpdk_pkt_reflect(m);
			out[nout++] = m;
		} else {
			drop[ndrop++] = m;
		}
	}
	if (nout) {
		uint16_t sent = rte_eth_tx_burst(sh->port_id, qid, out, (uint16_t)nout);
		d->c.tx_pkts += sent;
		if (sent < nout) {
			/* A full tx ring drops, as a forwarding device would. */
			d->c.tx_drops += nout - sent;
			rte_pktmbuf_free_bulk(out + sent, nout - sent);
		}
	}
	if (ndrop)
		rte_pktmbuf_free_bulk(drop, ndrop);
}

int dpdk_dut_lcore_main(void *arg)
{
	struct dpdk_dut_lcore *d = arg;
	struct dpdk_dut_shared *sh = d->sh;
	d->epoch = UINT32_MAX;
	check_epoch(d);
	uint64_t iter = 0;
	while (!__atomic_load_n(&sh->quit, __ATOMIC_ACQUIRE) && !*sh->stop) {
		check_epoch(d);
		for (unsigned i = 0; i < d->nq; i++)
			serve_queue(d, d->qids[i]);
		if ((++iter & 63u) == 0)
			publish_counters(&d->pub, &d->c);
	}
	return 0;
}
