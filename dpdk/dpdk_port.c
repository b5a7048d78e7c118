/* dpdkbench port setup: one mbuf pool, N rx/tx queue pairs, jumbo frames as mbuf chains
 * where the device can (else large mbufs), MTU, promiscuous mode, link wait. */
#include "dpdk_port.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "dpdk_pkt.h"
#include "peak_exit.h"
#include "peak_path.h"

#define RING_DESC  1024u
#define POOL_CACHE 512u

static void add_warning(struct dpdk_port *p, const char *w)
{
	size_t len = strlen(p->warnings);
	/* Past the room the warnings end in "...": cut, and showing it. */
	(void)peak_fmt(p->warnings + len, sizeof(p->warnings) - len, "%s%s", len ? ";" : "", w);
}

static void name_port(struct dpdk_port *p, const struct rte_eth_dev_info *info)
{
	const char *dev_name = info->device ? rte_dev_name(info->device) : "";
	(void)snprintf(p->driver, sizeof(p->driver), "%s",
		       info->driver_name ? info->driver_name : "unknown");
	/* Virtual devices are named net_<driver><n>[,args]; physical ones by PCI address. */
	p->is_virtual = strncmp(dev_name, "net_", 4) == 0;
	const char *s = p->driver;
	if (strncmp(s, "net_", 4) == 0)
		s += 4;
	(void)snprintf(p->short_name, sizeof(p->short_name), "%s", s);
}

/* Pool size: rx and tx descriptors of every queue, up to 1024 frames in flight per queue
 * (a ring PMD or a memif ring) with the segments of the largest frame, per-lcore caches
 * and bursts. */
static unsigned pool_size(const struct dpdk_port_req *req, unsigned nsegs)
{
	unsigned long n = (unsigned long)req->nqueues * (2ul * RING_DESC + RING_DESC * nsegs) +
			  (unsigned long)req->nlcores * (POOL_CACHE + 4ul * req->burst * nsegs) +
			  4096ul;
	return (unsigned)n;
}

static int create_pool(struct dpdk_port *p, const struct dpdk_port_req *req,
		       const struct rte_eth_dev_info *info, char *err, size_t err_len)
{
	uint32_t max_len = req->max_frame - DPDK_FCS_BYTES;
	uint32_t room = RTE_MBUF_DEFAULT_DATAROOM;
	bool chains = (info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) &&
		      (info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER);
	if (max_len > room && !chains) {
		/* No chains on this device: one mbuf per frame, as large as the frame. */
		room = (max_len + 63u) & ~63u;
		add_warning(p, "jumbo frames in single large mbufs (device has no multi-segment)");
	}
	p->seg_room = room;
	p->multi_seg = max_len > room;
	unsigned nsegs = dpdk_pkt_nsegs(req->max_frame, room);
	char name[RTE_MEMPOOL_NAMESIZE];
	(void)snprintf(name, sizeof(name), "pb_pool_%u", (unsigned)p->port_id);
	p->pool = rte_pktmbuf_pool_create(
	    name, pool_size(req, nsegs), POOL_CACHE, 0, (uint16_t)(room + RTE_PKTMBUF_HEADROOM),
	    (int)rte_eth_dev_socket_id(p->port_id) < 0 ? (int)rte_socket_id()
						       : rte_eth_dev_socket_id(p->port_id));
	if (p->pool == NULL) {
		(void)snprintf(
		    err, err_len,
		    "cannot create the mbuf pool (%s): give EAL more memory, e.g. -m 1024",
		    rte_strerror(rte_errno));
		return PEAK_EXIT_UNSUPPORTED;
	}
	return 0;
}

static void set_mtu(struct dpdk_port *p, const struct dpdk_port_req *req)
{
	uint32_t want = req->max_frame - DPDK_FCS_BYTES - (uint32_t)sizeof(struct rte_ether_hdr);
	uint16_t cur = 0;
	if (rte_eth_dev_get_mtu(p->port_id, &cur) == 0)
		p->mtu = cur;
	if (want <= RTE_ETHER_MTU || p->mtu >= want)
		return;
	int rc = rte_eth_dev_set_mtu(p->port_id, (uint16_t)want);
	if (rc == 0) {
		p->mtu = want;
	} else {
		char w[96];
		(void)snprintf(w, sizeof(w), "mtu %u not set (%s)", (unsigned)want,
			       rte_strerror(-rc));
		add_warning(p, w);
	}
}

static int setup_queues(struct dpdk_port *p, const struct dpdk_port_req *req,
			const struct rte_eth_dev_info *info, const struct rte_eth_conf *conf,
			char *err, size_t err_len)
{
	uint16_t nrxd = RING_DESC, ntxd = RING_DESC;
	int rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &nrxd, &ntxd);
	if (rc != 0) {
		(void)snprintf(err, err_len, "port %u: descriptor counts: %s", (unsigned)p->port_id,
			       rte_strerror(-rc));
		return PEAK_EXIT_FAIL;
	}
	int socket = rte_eth_dev_socket_id(p->port_id);
	if (socket < 0)
		socket = (int)rte_socket_id();
	for (uint16_t q = 0; q < req->nqueues; q++) {
		struct rte_eth_rxconf rxc = info->default_rxconf;
		rxc.offloads = conf->rxmode.offloads;
		rc = rte_eth_rx_queue_setup(p->port_id, q, nrxd, (unsigned)socket, &rxc, p->pool);
		if (rc == 0) {
			struct rte_eth_txconf txc = info->default_txconf;
			txc.offloads = conf->txmode.offloads;
			rc = rte_eth_tx_queue_setup(p->port_id, q, ntxd, (unsigned)socket, &txc);
		}
		if (rc != 0) {
			(void)snprintf(err, err_len, "port %u queue %u setup: %s",
				       (unsigned)p->port_id, (unsigned)q, rte_strerror(-rc));
			return PEAK_EXIT_FAIL;
		}
	}
	return 0;
}

int dpdk_port_open(struct dpdk_port *p, const struct dpdk_port_req *req, char *err, size_t err_len)
{
	memset(p, 0, sizeof(*p));
	p->port_id = req->port_id;
	p->nqueues = req->nqueues;
	if (!rte_eth_dev_is_valid_port(req->port_id)) {
		(void)snprintf(err, err_len, "--port %u: no such port (%u available)",
			       (unsigned)req->port_id, (unsigned)rte_eth_dev_count_avail());
		return PEAK_EXIT_UNSUPPORTED;
	}
	struct rte_eth_dev_info info;
	int rc = rte_eth_dev_info_get(req->port_id, &info);
	if (rc != 0) {
		(void)snprintf(err, err_len, "port %u: device info: %s", (unsigned)req->port_id,
			       rte_strerror(-rc));
		return PEAK_EXIT_FAIL;
	}
	name_port(p, &info);
	if (req->nqueues > info.max_rx_queues || req->nqueues > info.max_tx_queues) {
		(void)snprintf(err, err_len,
			       "--queues %u: port %u (%s) has at most %u rx / %u tx queues",
			       (unsigned)req->nqueues, (unsigned)req->port_id, p->driver,
			       (unsigned)info.max_rx_queues, (unsigned)info.max_tx_queues);
		return PEAK_EXIT_UNSUPPORTED;
	}
	rc = create_pool(p, req, &info, err, err_len);
	if (rc != 0)
		return rc;

	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	if (p->multi_seg) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	}
	if (req->nqueues > 1 && info.flow_type_rss_offloads != 0) {
		/* Spread the tester's flows over the queues by their 5-tuple on real NICs. */
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
		    (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
	}
	rc = rte_eth_dev_configure(req->port_id, req->nqueues, req->nqueues, &conf);
	if (rc != 0) {
		(void)snprintf(err, err_len, "port %u (%s) configure: %s", (unsigned)req->port_id,
			       p->driver, rte_strerror(-rc));
		return PEAK_EXIT_FAIL;
	}
	p->configured = true;
	rc = setup_queues(p, req, &info, &conf, err, err_len);
	if (rc != 0)
		return rc;
	set_mtu(p, req);
	(void)rte_eth_promiscuous_enable(req->port_id);
	(void)rte_eth_macaddr_get(req->port_id, &p->mac);
	rc = rte_eth_dev_start(req->port_id);
	if (rc != 0) {
		(void)snprintf(err, err_len, "port %u (%s) start: %s", (unsigned)req->port_id,
			       p->driver, rte_strerror(-rc));
		return PEAK_EXIT_FAIL;
	}
	p->started = true;
	return 0;
}

int dpdk_port_wait_link(const struct dpdk_port *p, double timeout_s,
			const volatile sig_atomic_t *stop)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t end = rte_rdtsc() + (uint64_t)(timeout_s * (double)hz);
	for (;;) {
		struct rte_eth_link link;
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return 0;
		if (*stop || rte_rdtsc() > end)
			return -1;
		rte_delay_us_sleep(10000);
	}
}

void dpdk_port_close(struct dpdk_port *p)
{
	if (p->started)
		(void)rte_eth_dev_stop(p->port_id);
	if (p->configured)
		(void)rte_eth_dev_close(p->port_id);
	p->started = false;
	p->configured = false;
	if (p->pool) {
		rte_mempool_free(p->pool);
		p->pool = NULL;
	}
}
