/* dpdkbench generator lcore: builds UDP frames from per-flow templates, sends them in
 * bursts, receives what comes back (the port itself in loopback, the dut's reflection in
 * tester mode), checks per-flow sequence numbers and records sampled latencies. */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_memcpy.h>

#include "dpdk_traffic.h"

void dpdk_counters_add(struct dpdk_counters *dst, const struct dpdk_counters *src)
{
	dst->tx_pkts += src->tx_pkts;
	dst->tx_drops += src->tx_drops;
	dst->rx_pkts += src->rx_pkts;
	dst->rx_bytes += src->rx_bytes;
	dst->gaps += src->gaps;
	dst->late += src->late;
	dst->sum_next += src->sum_next;
	dst->other += src->other;
	if (src->rx_pkts && (dst->first_rx_tsc == 0 || src->first_rx_tsc < dst->first_rx_tsc))
		dst->first_rx_tsc = src->first_rx_tsc;
	if (src->last_rx_tsc > dst->last_rx_tsc)
		dst->last_rx_tsc = src->last_rx_tsc;
}

/* The mbuf fields a PMD re-arms in one store (data_off, refcnt, nb_segs, port), as a
 * fresh single-segment mbuf has them: receive-side PMDs build the same word once. */
static uint64_t fresh_rearm_word(void)
{
	struct rte_mbuf mb;
	memset(&mb, 0, sizeof(mb));
	mb.data_off = RTE_PKTMBUF_HEADROOM;
	mb.nb_segs = 1;
	mb.port = RTE_MBUF_PORT_INVALID;
	rte_mbuf_refcnt_set(&mb, 1);
	uint64_t w;
	memcpy(&w, &mb.rearm_data, sizeof(w));
	return w;
}

void dpdk_gen_lcore_reset(struct dpdk_gen_lcore *g, const struct dpdk_gen_cfg *cfg,
			  const uint16_t *qids, unsigned nq, uint32_t total_flows)
{
	g->cfg = cfg;
	g->nq = nq;
	g->nstash = 0;
	for (unsigned i = 0; i < nq; i++) {
		struct dpdk_txq *q = &g->q[i];
		q->qid = qids[i];
		/* Flow f goes out on queue f % nqueues. */
		q->nflows =
		    total_flows / cfg->nqueues + (q->qid < total_flows % cfg->nqueues ? 1u : 0u);
		q->next_k = 0;
		q->built = 0;
		q->npend = 0;
		memset(q->seq, 0, sizeof(q->seq[0]) * q->nflows);
	}
	memset(&g->c, 0, sizeof(g->c));
	g->rearm = fresh_rearm_word();
	dpdk_flowcheck_reset(&g->fc, total_flows);
	peak_hist_init(&g->hist);
}

/* Chain nsegs fresh mbufs into one frame of len bytes. */
static void chain_segments(struct rte_mbuf **segs, unsigned nsegs, uint32_t len, uint32_t seg_room)
{
	struct rte_mbuf *head = segs[0];
	uint32_t left = len;
	for (unsigned s = 0; s < nsegs; s++) {
		uint32_t n = left < seg_room ? left : seg_room;
		segs[s]->data_len = (uint16_t)n;
		left -= n;
		if (s > 0)
			segs[s - 1]->next = segs[s];
	}
	head->nb_segs = (uint16_t)nsegs;
	head->pkt_len = len;
}

/* Frame k of a burst, single segment: header and payload from the flow's template, the
 * next sequence number of that flow, the run's epoch; the mbuf re-armed as fresh. */
static inline void build_frame(struct rte_mbuf *m, uint64_t rearm, uint32_t len,
			       const uint8_t *tmpl, uint32_t seq, uint8_t flags)
{
	memcpy(&m->rearm_data, &rearm, sizeof(rearm));
	m->ol_flags = 0;
	m->packet_type = 0;
	m->pkt_len = len;
	m->data_len = (uint16_t)len;
	uint8_t *data = (uint8_t *)m->buf_addr + RTE_PKTMBUF_HEADROOM;
	rte_mov64(data, tmpl);
	struct dpdk_payload *p = (struct dpdk_payload *)(data + DPDK_HDR_BYTES);
	p->seq = seq;
	p->flags = flags;
}

/* Top the queue's pending burst up with new frames; returns how many frames it holds.
 * Single-segment frames reuse received mbufs (the stash) before asking the mempool. */
static unsigned fill_burst(struct dpdk_gen_lcore *g, struct dpdk_txq *q, uint64_t now, bool sample)
{
	const struct dpdk_gen_cfg *cfg = g->cfg;
	unsigned need = cfg->burst - q->npend;
	if (cfg->frames_per_cycle > 0) {
		/* --rate: no more frames than the time since the start allows. */
		uint64_t due = (uint64_t)((double)(now - cfg->start_tsc) * cfg->frames_per_cycle);
		uint64_t allowed = due > q->built ? due - q->built : 0;
		if (allowed < need)
			need = (unsigned)allowed;
	}
	if (need == 0 || q->nflows == 0)
		return q->npend;
	struct rte_mbuf *segs[DPDK_MAX_BURST * 8];
	const unsigned nsegs = cfg->nsegs;
	unsigned from_stash = 0;
	if (nsegs == 1 && g->nstash) {
		from_stash = need < g->nstash ? need : g->nstash;
		g->nstash -= from_stash;
		memcpy(segs, &g->stash[g->nstash], from_stash * sizeof(segs[0]));
	}
	if (from_stash < need && rte_pktmbuf_alloc_bulk(cfg->pool, segs + from_stash,
							(need - from_stash) * nsegs) != 0) {
		if (from_stash == 0)
			return q->npend;
		need = from_stash;
	}
	/* Everything the loop needs in locals: stores into frame data may alias any memory
	 * as far as the compiler knows, so fields read through pointers would be reloaded. */
	const uint32_t len = cfg->frame_bytes - DPDK_FCS_BYTES;
	struct rte_mbuf **const pend = q->pend;
	unsigned npend = q->npend;
	if (cfg->minimal) {
		for (unsigned i = 0; i < need; i++) {
			struct rte_mbuf *m = segs[i];
			m->data_len = (uint16_t)len;
			m->pkt_len = len;
			pend[npend++] = m;
		}
		q->npend = (uint16_t)npend;
		return npend;
	}
	const uint32_t nflows = q->nflows;
	const uint8_t epoch_flags = cfg->epoch_flags;
	/* This queue's flows are qid, qid + nqueues, ...: their templates are a stride apart. */
	const uint8_t *const first_tmpl = cfg->tmpl->tmpl[q->qid];
	const size_t stride = (size_t)cfg->nqueues * DPDK_TEMPLATE_BYTES;
	uint32_t *const seq = q->seq;
	uint32_t k = q->next_k;
	const uint8_t *t = first_tmpl + k * stride;
	if (likely(nsegs == 1)) {
		const uint64_t rearm = g->rearm;
		for (unsigned i = 0; i < need; i++) {
			struct rte_mbuf *m = segs[i];
			uint32_t s = seq[k];
			seq[k] = s + 1;
			build_frame(m, rearm, len, t, s, epoch_flags);
			pend[npend + i] = m;
			if (++k == nflows) {
				k = 0;
				t = first_tmpl;
			} else {
				t += stride;
			}
		}
		npend += need;
	} else {
		for (unsigned i = 0; i < need; i++) {
			struct rte_mbuf *m = segs[i * nsegs];
			uint8_t *data = rte_pktmbuf_mtod(m, uint8_t *);
			rte_mov64(data, t);
			struct dpdk_payload *p = (struct dpdk_payload *)(data + DPDK_HDR_BYTES);
			p->seq = seq[k]++;
			p->flags = epoch_flags;
			chain_segments(&segs[i * nsegs], nsegs, len, cfg->seg_room);
			pend[npend++] = m;
			if (++k == nflows) {
				k = 0;
				t = first_tmpl;
			} else {
				t += stride;
			}
		}
	}
	/* One timestamped frame per sampled burst: the first new one. */
	if (sample) {
		struct dpdk_payload *p = dpdk_pkt_payload(segs[0]);
		p->flags = epoch_flags | DPDK_FLAG_SAMPLED;
		p->tsc = now;
	}
	q->next_k = k;
	q->built += need;
	q->npend = (uint16_t)npend;
	return npend;
}

static void send_burst(struct dpdk_gen_lcore *g, struct dpdk_txq *q, unsigned n)
{
	uint16_t sent = rte_eth_tx_burst(g->cfg->port_id, q->qid, q->pend, (uint16_t)n);
	g->c.tx_pkts += sent;
	/* Keep the rest, in order, for the next burst: per-flow order is preserved and no
	 * sequence number is skipped because the ring or the NIC was full. */
	if (sent < n)
		memmove(q->pend, q->pend + sent, (n - sent) * sizeof(q->pend[0]));
	q->npend = (uint16_t)(n - sent);
}

static unsigned receive(struct dpdk_gen_lcore *g, uint16_t qid)
{
	const struct dpdk_gen_cfg *cfg = g->cfg;
	struct rte_mbuf *rx[DPDK_MAX_BURST];
	uint16_t n = rte_eth_rx_burst(cfg->port_id, qid, rx, (uint16_t)cfg->burst);
	if (n == 0)
		return 0;
	uint64_t now = rte_rdtsc();
	if (g->c.first_rx_tsc == 0)
		g->c.first_rx_tsc = now;
	g->c.last_rx_tsc = now;
	if (cfg->minimal) {
		g->c.rx_pkts += n;
		g->c.rx_bytes += (uint64_t)n * cfg->frame_bytes;
		rte_pktmbuf_free_bulk(rx, n);
		return n;
	}
	/* Counters and the stash in locals for the burst: stores through g would alias the
	 * frame data in the compiler's eyes and stay in memory. */
	struct dpdk_counters c = g->c;
	unsigned nstash = g->nstash;
	unsigned nfree = 0;
	/* The stash takes the whole burst or none of it: no bound check per frame. */
	const bool keep = nstash + n <= RTE_DIM(g->stash);
	const struct rte_mempool *pool = cfg->pool;
	/* magic, type and flags read as one little-endian word; the sampled bit masked. */
	const uint32_t want =
	    DPDK_MAGIC | (uint32_t)DPDK_PKT_DATA << 16 | (uint32_t)cfg->epoch_flags << 24;
	const uint32_t mask = ~((uint32_t)DPDK_FLAG_SAMPLED << 24);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		const struct dpdk_payload *p = dpdk_pkt_payload(m);
		uint32_t word = 0;
		if (likely(p != NULL))
			memcpy(&word, p, sizeof(word));
		if (likely((word & mask) == want)) {
			if (likely(dpdk_flowcheck_seen(&g->fc, &c, p->flow, p->seq))) {
				c.rx_bytes += m->pkt_len + DPDK_FCS_BYTES;
				if (unlikely(p->flags & DPDK_FLAG_SAMPLED))
					peak_hist_record(
					    &g->hist,
					    (uint64_t)((double)(now - p->tsc) * cfg->ns_per_cycle));
			}
		} else {
			c.other++;
		}
		/* Reusable as it is: ours, one segment, not shared, not attached. */
		if (likely(keep && m->pool == pool && m->nb_segs == 1 &&
			   rte_mbuf_refcnt_read(m) == 1 && RTE_MBUF_DIRECT(m)))
			g->stash[nstash++] = m;
		else
			rx[nfree++] = m;
	}
	g->c = c;
	g->nstash = nstash;
	if (nfree)
		rte_pktmbuf_free_bulk(rx, nfree);
	return n;
}

static void drain(struct dpdk_gen_lcore *g)
{
	const struct dpdk_gen_cfg *cfg = g->cfg;
	uint64_t start = rte_rdtsc();
	uint64_t last = start;
	for (;;) {
		unsigned got = 0;
		for (unsigned i = 0; i < g->nq; i++)
			got += receive(g, g->q[i].qid);
		uint64_t now = rte_rdtsc();
		if (got)
			last = now;
		if (now - last > cfg->drain_idle_cycles || now - start > cfg->drain_max_cycles ||
		    *cfg->stop)
			break;
	}
}

int dpdk_gen_lcore_main(void *arg)
{
	struct dpdk_gen_lcore *g = arg;
	const struct dpdk_gen_cfg *cfg = g->cfg;
	uint64_t bursts = 0;
	for (;;) {
		uint64_t now = rte_rdtsc();
		if (now >= cfg->end_tsc || *cfg->stop)
			break;
		bool sample = cfg->sample_every && bursts % cfg->sample_every == 0;
		bursts++;
		for (unsigned i = 0; i < g->nq; i++) {
			struct dpdk_txq *q = &g->q[i];
			(void)receive(g, q->qid);
			unsigned n = fill_burst(g, q, now, sample);
			if (n)
				send_burst(g, q, n);
		}
	}
	/* Frames built but never accepted by the port were not sent: their sequence numbers
	 * are the newest of their flows, so the receiver's accounting is unaffected. */
	for (unsigned i = 0; i < g->nq; i++) {
		struct dpdk_txq *q = &g->q[i];
		rte_pktmbuf_free_bulk(q->pend, q->npend);
		q->npend = 0;
	}
	drain(g);
	rte_pktmbuf_free_bulk(g->stash, g->nstash);
	g->nstash = 0;
	return 0;
}
