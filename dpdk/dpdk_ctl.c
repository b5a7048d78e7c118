/* dpdkbench control requests from the tester to the dut (see dpdk_ctl.h). */
#include "dpdk_ctl.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dpdk_traffic.h"

static int send_request(const struct dpdk_ctl_client *c, enum dpdk_pkt_type req,
			const struct dpdk_ctl_body *in)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->pool);
	if (m == NULL)
		return -1;
	if (dpdk_pkt_build_ctl(m, &c->addrs, req, in) != 0 ||
	    rte_eth_tx_burst(c->port_id, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -1;
	}
	return 0;
}

/* Poll every queue once; returns 1 when the wanted reply was found. */
static int poll_reply(const struct dpdk_ctl_client *c, enum dpdk_pkt_type want, uint32_t epoch,
		      struct dpdk_ctl_body *out, struct rte_ether_addr *peer)
{
	int found = 0;
	for (uint16_t q = 0; q < c->nqueues; q++) {
		struct rte_mbuf *rx[DPDK_MAX_BURST];
		uint16_t n = rte_eth_rx_burst(c->port_id, q, rx, 64);
		for (uint16_t i = 0; i < n; i++) {
			const struct dpdk_payload *p = dpdk_pkt_payload(rx[i]);
			const struct dpdk_ctl_body *b = dpdk_pkt_ctl_body(rx[i]);
			if (found || p == NULL || b == NULL || p->magic != DPDK_MAGIC ||
			    p->type != want || b->epoch != epoch)
				continue;
			found = 1;
			if (out)
				memcpy(out, b, sizeof(*out));
			if (peer)
				rte_ether_addr_copy(
				    &rte_pktmbuf_mtod(rx[i], struct rte_ether_hdr *)->src_addr,
				    peer);
		}
		if (n)
			rte_pktmbuf_free_bulk(rx, n);
	}
	return found;
}

int dpdk_ctl_call(const struct dpdk_ctl_client *c, enum dpdk_pkt_type req,
		  const struct dpdk_ctl_body *in, enum dpdk_pkt_type want,
		  struct dpdk_ctl_body *out, struct rte_ether_addr *peer, double timeout_s)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t start = rte_rdtsc();
	uint64_t end = start + (uint64_t)(timeout_s * (double)hz);
	uint64_t retry = hz / 50u;
	uint64_t next_send = start;
	while (!*c->stop) {
		uint64_t now = rte_rdtsc();
		if (now >= end)
			return -1;
		if (now >= next_send) {
			(void)send_request(c, req, in);
			next_send = now + retry;
		}
		if (poll_reply(c, want, in->epoch, out, peer))
			return 0;
	}
	return -1;
}
