/* dpdkbench port setup: mbuf pool, queues, offloads for jumbo frames, MTU, link wait. */
#ifndef DPDK_PORT_H
#define DPDK_PORT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

struct dpdk_port {
	uint16_t port_id;
	uint16_t nqueues;
	struct rte_mempool *pool;
	char driver[32];     /* e.g. net_ring */
	char short_name[32]; /* e.g. ring: first part of the variant */
	bool is_virtual;     /* vdev: no wire, no theoretical line rate */
	uint32_t link_mbps;  /* 0 when unknown or virtual */
	uint32_t seg_room;   /* data bytes in one mbuf segment */
	bool multi_seg;      /* jumbo frames travel as mbuf chains */
	uint32_t mtu;        /* MTU in effect (0 unknown) */
	struct rte_ether_addr mac;
	char warnings[256]; /* semicolon-separated notes for the context */
	bool configured;
	bool started;
};

struct dpdk_port_req {
	uint16_t port_id;
	uint16_t nqueues;
	uint32_t max_frame; /* largest frame (with FCS) to carry */
	unsigned nlcores;
	unsigned burst;
};

/* Configure and start the port. Returns 0, or an exit code (3: the device cannot do what
 * was asked; 1: a DPDK call failed) with one line in err. */
int dpdk_port_open(struct dpdk_port *p, const struct dpdk_port_req *req, char *err, size_t err_len);

/* Wait until the link is up. Returns 0, or -1 after timeout_s or when *stop is set. */
int dpdk_port_wait_link(const struct dpdk_port *p, double timeout_s,
			const volatile sig_atomic_t *stop);

/* Stop and close the port, free the pool (safe on a partly opened port). */
void dpdk_port_close(struct dpdk_port *p);

#endif
