/* dpdkbench traffic loops: the generator/receiver (loopback and tester roles), the
 * reflector (dut role) and the minimal reference loop; per-lcore counters and the
 * per-flow sequence checker they share. */
#ifndef DPDK_TRAFFIC_H
#define DPDK_TRAFFIC_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpdk_pkt.h"
#include "peak_hist.h"

#define DPDK_MAX_QUEUES 16u
#define DPDK_MAX_BURST  256u

/* Written only by the lcore that owns it; read by others after it stopped (tester) or
 * through relaxed atomic loads (dut stats requests). */
struct dpdk_counters {
	uint64_t tx_pkts;
	uint64_t tx_drops;
	uint64_t rx_pkts;  /* data frames of known flows */
	uint64_t rx_bytes; /* their frame bytes, FCS included */
	uint64_t gaps;     /* sequence numbers skipped (frames missing when seen) */
	uint64_t late;     /* frames older than the newest seen of their flow */
	uint64_t sum_next; /* sum over flows of (highest sequence seen + 1) */
	uint64_t other;    /* frames that are not ours, or from another run */
	uint64_t first_rx_tsc;
	uint64_t last_rx_tsc;
} __rte_cache_aligned;

void dpdk_counters_add(struct dpdk_counters *dst, const struct dpdk_counters *src);

/* Receiver side of the loss accounting. Per flow: seq ahead of the expected one counts
 * the skipped numbers as gaps; seq behind it is a late (reordered) frame. At the end,
 * frames lost = gaps + (sent - sum_next) - late, and received = sum_next - gaps + late
 * holds exactly unless frames were duplicated or corrupted: dpdkbench checks it. */
struct dpdk_flowcheck {
	uint32_t next[DPDK_MAX_FLOWS];
	uint32_t nflows;
};

static inline void dpdk_flowcheck_reset(struct dpdk_flowcheck *fc, uint32_t nflows)
{
	fc->nflows = nflows;
	for (uint32_t f = 0; f < nflows; f++)
		fc->next[f] = 0;
}

/* Account one received data frame; returns false when the flow is unknown. */
static inline bool dpdk_flowcheck_seen(struct dpdk_flowcheck *fc, struct dpdk_counters *c,
				       uint32_t flow, uint32_t seq)
{
	if (flow >= fc->nflows || flow >= DPDK_MAX_FLOWS) {
		c->other++;
		return false;
	}
	int32_t d = (int32_t)(seq - fc->next[flow]);
	if (d >= 0) {
		c->gaps += (uint64_t)d;
		c->sum_next += (uint64_t)d + 1u;
		fc->next[flow] = seq + 1u;
	} else {
		c->late++;
	}
	c->rx_pkts++;
	return true;
}

/* What every generator lcore of one run shares (read-only during the run). */
struct dpdk_gen_cfg {
	uint16_t port_id;
	uint16_t nqueues; /* queues used in this point */
	struct rte_mempool *pool;
	const struct dpdk_templates *tmpl;
	uint32_t frame_bytes; /* with FCS */
	uint32_t seg_room;
	unsigned nsegs;
	unsigned burst;
	unsigned sample_every; /* one timestamped frame every N bursts */
	uint64_t end_tsc;      /* stop generating at this TSC */
	uint64_t drain_idle_cycles;
	uint64_t drain_max_cycles;
	double ns_per_cycle;
	double frames_per_cycle; /* --rate: per queue, in frames per TSC cycle; 0 = no limit */
	uint64_t start_tsc;      /* when generation started (the rate's time origin) */
	bool minimal;            /* reference loop: no content, no checks */
	uint8_t epoch_flags;     /* dpdk_epoch_flags() of this run */
	const volatile sig_atomic_t *stop;
};

struct dpdk_txq {
	uint16_t qid;
	uint32_t nflows; /* flows of this queue: global ids qid, qid + nq, ... */
	uint32_t next_k;
	uint64_t built; /* frames built since the start: the rate limit's count */
	uint16_t npend;
	struct rte_mbuf *pend[DPDK_MAX_BURST];
	uint32_t seq[DPDK_MAX_FLOWS];
};

struct dpdk_gen_lcore {
	const struct dpdk_gen_cfg *cfg;
	unsigned nq;
	struct dpdk_txq q[DPDK_MAX_QUEUES];
	struct dpdk_counters c;
	struct dpdk_flowcheck fc;
	struct peak_hist hist; /* latency in ns */
	/* Received single-segment mbufs kept for the next frames instead of a free and an
	 * alloc per frame (pktgen likewise avoids rebuilding mbufs): the reference loop
	 * (--role minimal) does not recycle. */
	unsigned nstash;
	struct rte_mbuf *stash[2 * DPDK_MAX_BURST];
	uint64_t rearm; /* rearm_data of a fresh single-segment mbuf */
};

/* Prepare an lcore for a run: the given queues, counters and checker reset. */
void dpdk_gen_lcore_reset(struct dpdk_gen_lcore *g, const struct dpdk_gen_cfg *cfg,
			  const uint16_t *qids, unsigned nq, uint32_t total_flows);

/* lcore entry (rte_lcore_function_t): generate until end_tsc while receiving, then
 * drain the receive queues until idle. */
int dpdk_gen_lcore_main(void *arg);

/* The dut: state all its lcores share. */
struct dpdk_dut_shared {
	uint16_t port_id;
	uint32_t epoch; /* atomic: a START bumps it, lcores reset when they see it change */
	uint32_t mode;  /* enum dpdk_dut_mode, published before epoch */
	uint32_t flows;
	uint32_t quit; /* atomic */
	uint64_t tsc_hz;
	unsigned nlcores;
	uint16_t nqueues;
	struct dpdk_counters *counters[RTE_MAX_LCORE]; /* each lcore's published copy */
	struct rte_ether_addr mac;
	const volatile sig_atomic_t *stop;
};

struct dpdk_dut_lcore {
	struct dpdk_dut_shared *sh;
	unsigned nq;
	uint16_t qids[DPDK_MAX_QUEUES];
	unsigned burst;
	uint32_t epoch;
	uint8_t epoch_flags;
	uint32_t mode;
	struct dpdk_counters c;   /* the owner's working copy */
	struct dpdk_counters pub; /* published copy (atomic stores), read for STATS */
	struct dpdk_flowcheck fc;
};

/* lcore entry: reflect (or sink) data frames, answer control frames, until QUIT or stop. */
int dpdk_dut_lcore_main(void *arg);

#endif
