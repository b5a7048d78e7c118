/* dpdkbench packet format: Ethernet + IPv4 + UDP frames whose payload carries a flow id,
 * a per-flow sequence number and (on sampled packets) a TSC timestamp; control frames of
 * the tester <-> dut protocol share the same header. */
#ifndef DPDK_PKT_H
#define DPDK_PKT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

/* Frame sizes count the Ethernet frame with its 4-byte FCS (RFC 2544, pktgen), so a
 * "64-byte packet" is 60 bytes in the mbuf; L1 adds 20 bytes (preamble, SFD, IFG). */
#define DPDK_FCS_BYTES      4u
#define DPDK_L1_EXTRA_BYTES 20u
#define DPDK_HDR_BYTES      42u /* Ethernet 14 + IPv4 20 + UDP 8 */
#define DPDK_MIN_FRAME      64u
#define DPDK_MAX_FRAME      9216u
#define DPDK_TEMPLATE_BYTES 64u
#define DPDK_MAX_FLOWS      4096u

#define DPDK_MAGIC 0x5042u /* "PB" */

enum dpdk_pkt_type {
	DPDK_PKT_DATA = 1,
	DPDK_CTL_HELLO,
	DPDK_CTL_HELLO_ACK,
	DPDK_CTL_START,
	DPDK_CTL_START_ACK,
	DPDK_CTL_STATS_REQ,
	DPDK_CTL_STATS,
	DPDK_CTL_QUIT,
	DPDK_CTL_QUIT_ACK,
};

/* flags: bit 0 marks a timestamped frame; bits 1-7 carry the run's epoch (mod 128), so a
 * frame that straggles into the next run (a dut descheduled past the drain) is set aside
 * instead of corrupting that run's sequence accounting. */
#define DPDK_FLAG_SAMPLED 0x1u
#define DPDK_EPOCH_MASK   0xfeu
static inline uint8_t dpdk_epoch_flags(uint32_t epoch)
{
	return (uint8_t)((epoch & 0x7fu) << 1);
}

/* 18 bytes: exactly what a 64-byte frame has after the headers. */
struct dpdk_payload {
	uint16_t magic;
	uint8_t type;
	uint8_t flags;
	uint16_t flow;
	uint32_t seq;
	uint64_t tsc;
} __attribute__((packed));

/* What the dut does with data frames between a START and the next one. */
enum dpdk_dut_mode { DPDK_DUT_REFLECT = 1, DPDK_DUT_SINK = 2 };

/* Body of control frames (after the payload header), little-endian host order: both ends
 * run dpdkbench on x86-64 or another little-endian machine. */
struct dpdk_ctl_body {
	uint32_t epoch;
	uint32_t mode;
	uint32_t flows;
	uint32_t version;
	uint64_t rx_pkts;
	uint64_t rx_bytes; /* frame bytes with FCS */
	uint64_t tx_pkts;
	uint64_t tx_drops;
	uint64_t gaps;
	uint64_t late;
	uint64_t sum_next;
	uint64_t other;
	uint64_t window_ns; /* first to last received data frame */
} __attribute__((packed));

#define DPDK_PROTO_VERSION 1u
#define DPDK_CTL_FRAME_BYTES                                                                       \
	(DPDK_HDR_BYTES + sizeof(struct dpdk_payload) + sizeof(struct dpdk_ctl_body))

/* Addresses of one endpoint pair; flows vary the IPv4 source and the UDP ports. */
struct dpdk_addrs {
	struct rte_ether_addr src_mac;
	struct rte_ether_addr dst_mac;
};

/* One 64-byte header template per flow for the current frame size. */
struct dpdk_templates {
	uint8_t (*tmpl)[DPDK_TEMPLATE_BYTES];
	uint32_t nflows;
	uint32_t frame_bytes;
};

/* Fill t->tmpl[0..nflows) for frames of frame_bytes (with FCS). */
void dpdk_pkt_build_templates(struct dpdk_templates *t, const struct dpdk_addrs *a, uint32_t nflows,
			      uint32_t frame_bytes);

/* Write a control frame (request or reply) into m; returns 0 or -1 if it does not fit. */
int dpdk_pkt_build_ctl(struct rte_mbuf *m, const struct dpdk_addrs *a, enum dpdk_pkt_type type,
		       const struct dpdk_ctl_body *body);

/* The payload header of a received frame, or NULL when the first segment is too short. */
static inline struct dpdk_payload *dpdk_pkt_payload(struct rte_mbuf *m)
{
	if (m->data_len < DPDK_HDR_BYTES + sizeof(struct dpdk_payload))
		return NULL;
	return rte_pktmbuf_mtod_offset(m, struct dpdk_payload *, DPDK_HDR_BYTES);
}

/* Control body of a received control frame, or NULL. */
struct dpdk_ctl_body *dpdk_pkt_ctl_body(struct rte_mbuf *m);

/* Turn a frame around: swap MACs, IPv4 addresses and UDP ports (checksums unchanged). */
static inline void dpdk_pkt_reflect(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ether_addr tmp_mac = eh->dst_addr;
	eh->dst_addr = eh->src_addr;
	eh->src_addr = tmp_mac;
	if (m->data_len < DPDK_HDR_BYTES)
		return;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	rte_be32_t tmp_ip = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = tmp_ip;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	rte_be16_t tmp_port = udp->src_port;
	udp->src_port = udp->dst_port;
	udp->dst_port = tmp_port;
}

/* Mbuf segments needed for a frame of frame_bytes with seg_room bytes per segment. */
static inline unsigned dpdk_pkt_nsegs(uint32_t frame_bytes, uint32_t seg_room)
{
	uint32_t len = frame_bytes - DPDK_FCS_BYTES;
	return (unsigned)((len + seg_room - 1) / seg_room);
}

#endif
