/* dpdkbench tester side of the control protocol: request/reply frames to the dut over the
 * measured port itself (HELLO, START, STATS, QUIT), retried until answered. */
#ifndef DPDK_CTL_H
#define DPDK_CTL_H

#include <signal.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

#include "dpdk_pkt.h"

struct dpdk_ctl_client {
	uint16_t port_id;
	uint16_t nqueues; /* replies may come back on any queue (RSS on a real NIC) */
	struct rte_mempool *pool;
	struct dpdk_addrs addrs;
	const volatile sig_atomic_t *stop;
};

/* Send `req` with body `in` on queue 0 every 20 ms until a `want` frame with the same
 * epoch comes back; copy its body to out (may be NULL) and the sender's MAC to peer (may
 * be NULL). Data frames received meanwhile are dropped. Returns 0, or -1 on timeout or
 * stop. */
int dpdk_ctl_call(const struct dpdk_ctl_client *c, enum dpdk_pkt_type req,
		  const struct dpdk_ctl_body *in, enum dpdk_pkt_type want,
		  struct dpdk_ctl_body *out, struct rte_ether_addr *peer, double timeout_s);

#endif
