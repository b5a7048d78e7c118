/* netbench's protocol layer: test names, parameter caps, shares and the ops lookup. */
#define _GNU_SOURCE
#include "net_proto.h"

#include <stdio.h>
#include <time.h>

static const char *const test_names[NET_TEST_COUNT] = {
    [NET_TEST_TCP_THROUGHPUT] = "tcp_throughput",
    [NET_TEST_UDP_THROUGHPUT] = "udp_throughput",
    [NET_TEST_TCP_LATENCY] = "tcp_latency",
    [NET_TEST_UDP_LATENCY] = "udp_latency",
};

const char *net_test_name(enum net_test t)
{
	return (unsigned)t < NET_TEST_COUNT ? test_names[t] : "unknown";
}

bool net_test_is_latency(enum net_test t)
{
	return t == NET_TEST_TCP_LATENCY || t == NET_TEST_UDP_LATENCY;
}

bool net_test_is_udp(enum net_test t)
{
	return t == NET_TEST_UDP_THROUGHPUT || t == NET_TEST_UDP_LATENCY;
}

const struct net_proto *net_proto_for(enum net_test t)
{
	return net_test_is_udp(t) ? &net_proto_udp : &net_proto_tcp;
}

int net_params_check(const struct net_params *p, char *reason, size_t reason_len)
{
	if (p->test >= NET_TEST_COUNT) {
		snprintf(reason, reason_len, "unknown test %u", (unsigned)p->test);
		return -1;
	}
	enum net_test t = (enum net_test)p->test;
	if (p->nconns < 1 || p->nconns > NET_MAX_CONNS) {
		snprintf(reason, reason_len, "connections %u not in 1..%u", (unsigned)p->nconns,
			 NET_MAX_CONNS);
		return -1;
	}
	uint32_t lo = net_test_is_udp(t) ? NET_UDP_HEADER : 1u;
	uint32_t hi = net_test_is_udp(t) ? NET_MAX_UDP_DGRAM : NET_MAX_TCP_BLOCK;
	if (p->block_bytes < lo || p->block_bytes > hi) {
		snprintf(reason, reason_len, "%s size %u bytes not in %u..%u",
			 net_test_is_udp(t) ? "datagram" : "block", (unsigned)p->block_bytes,
			 (unsigned)lo, (unsigned)hi);
		return -1;
	}
	if (p->total_bytes > NET_MAX_BYTES || p->duration_ns > NET_MAX_DURATION_NS) {
		snprintf(reason, reason_len, "test larger than 1 TiB or one hour");
		return -1;
	}
	if (p->total_bytes == 0 && p->duration_ns == 0) {
		snprintf(reason, reason_len, "neither bytes nor duration given");
		return -1;
	}
	if (net_test_is_latency(t) && (p->duration_ns == 0 || p->total_bytes != 0)) {
		snprintf(reason, reason_len, "latency tests run for a duration");
		return -1;
	}
	if (p->warmup_msgs > NET_MAX_WARMUP) {
		snprintf(reason, reason_len, "warm-up %u messages above %u",
			 (unsigned)p->warmup_msgs, NET_MAX_WARMUP);
		return -1;
	}
	if (p->timeout_ms < 10 || p->timeout_ms > NET_MAX_TIMEOUT_MS) {
		snprintf(reason, reason_len, "timeout %u ms not in 10..%u", (unsigned)p->timeout_ms,
			 NET_MAX_TIMEOUT_MS);
		return -1;
	}
	return 0;
}

uint64_t net_conn_share(uint64_t total, uint32_t nconns, uint32_t index)
{
	uint64_t share = total / nconns;
	return share + (index < total % nconns ? 1 : 0);
}

uint64_t net_thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
