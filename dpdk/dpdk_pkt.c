/* dpdkbench packet templates and control frames (the format is in dpdk_pkt.h). */
#include "dpdk_pkt.h"

#include <string.h>

#include <rte_byteorder.h>

/* Flow f: 10.0.<f/250>.<f%250+1> -> 10.1.0.1, UDP 1024+f -> 5001+(f%16). Distinct 5-tuples
 * that also spread over RSS queues on a real NIC. */
static void fill_headers(uint8_t *buf, const struct dpdk_addrs *a, uint32_t flow,
			 uint32_t frame_bytes)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)buf;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint32_t l3_len = frame_bytes - DPDK_FCS_BYTES - (uint32_t)sizeof(*eh);

	eh->dst_addr = a->dst_mac;
	eh->src_addr = a->src_mac;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)l3_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, (flow / 250u) & 0xffu, flow % 250u + 1u));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 1, 0, 1));
	ip->hdr_checksum = rte_ipv4_cksum(ip);

	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024u + flow));
	udp->dst_port = rte_cpu_to_be_16((uint16_t)(5001u + flow % 16u));
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(l3_len - sizeof(*ip)));
	udp->dgram_cksum = 0; /* optional for IPv4 */
}

void dpdk_pkt_build_templates(struct dpdk_templates *t, const struct dpdk_addrs *a, uint32_t nflows,
			      uint32_t frame_bytes)
{
	t->nflows = nflows;
	t->frame_bytes = frame_bytes;
	for (uint32_t f = 0; f < nflows; f++) {
		uint8_t *buf = t->tmpl[f];
		memset(buf, 0, DPDK_TEMPLATE_BYTES);
		fill_headers(buf, a, f, frame_bytes);
		struct dpdk_payload *p = (struct dpdk_payload *)(buf + DPDK_HDR_BYTES);
		p->magic = DPDK_MAGIC;
		p->type = DPDK_PKT_DATA;
		p->flow = (uint16_t)f;
	}
}

int dpdk_pkt_build_ctl(struct rte_mbuf *m, const struct dpdk_addrs *a, enum dpdk_pkt_type type,
		       const struct dpdk_ctl_body *body)
{
	uint32_t len = (uint32_t)DPDK_CTL_FRAME_BYTES;
	if (len < DPDK_MIN_FRAME - DPDK_FCS_BYTES)
		len = DPDK_MIN_FRAME - DPDK_FCS_BYTES;
	if (rte_pktmbuf_tailroom(m) < len)
		return -1;
	uint8_t *buf = rte_pktmbuf_mtod(m, uint8_t *);
	memset(buf, 0, len);
	fill_headers(buf, a, 0, len + DPDK_FCS_BYTES);
	struct dpdk_payload *p = (struct dpdk_payload *)(buf + DPDK_HDR_BYTES);
	p->magic = DPDK_MAGIC;
	p->type = (uint8_t)type;
	memcpy(p + 1, body, sizeof(*body));
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return 0;
}

struct dpdk_ctl_body *dpdk_pkt_ctl_body(struct rte_mbuf *m)
{
	if (m->data_len < DPDK_CTL_FRAME_BYTES)
		return NULL;
	return rte_pktmbuf_mtod_offset(m, struct dpdk_ctl_body *,
				       DPDK_HDR_BYTES + sizeof(struct dpdk_payload));
}
