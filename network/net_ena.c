/* ENA allowance counters through SIOCETHTOOL: the driver's statistics count (GDRVINFO),
 * their names (GSTRINGS, ETH_SS_STATS), their values (GSTATS); the interface is the one
 * whose address the client's socket is bound to (getifaddrs). */
#define _GNU_SOURCE
#include "net_ena.h"

#include <errno.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

const char *const net_ena_names[NET_ENA_NCOUNTERS] = {
    "bw_in_allowance_exceeded", "bw_out_allowance_exceeded", "pps_allowance_exceeded"};

/* The largest statistics set read (an ENA interface has a few hundred). */
#define MAX_STATS 4096u

static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr,
			      sizeof(struct in6_addr)) == 0;
	return false;
}

static int find_ifname(const struct sockaddr *local, char *name, size_t len)
{
	struct ifaddrs *all;
	if (getifaddrs(&all) != 0)
		return -1;
	int rc = -1;
	for (struct ifaddrs *i = all; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr != NULL && same_addr(i->ifa_addr, local)) {
			snprintf(name, len, "%s", i->ifa_name);
			rc = 0;
			break;
		}
	}
	freeifaddrs(all);
	return rc;
}

static int ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, ifname, IF_NAMESIZE); /* both IF_NAMESIZE, NUL-terminated */
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* Fill e->v from the statistics named like net_ena_names; e->have when all three are. */
static void read_stats(int fd, struct net_ena *e, uint32_t n)
{
	struct ethtool_gstrings *names = calloc(1, sizeof *names + (size_t)n * ETH_GSTRING_LEN);
	struct ethtool_stats *vals = calloc(1, sizeof *vals + (size_t)n * sizeof(uint64_t));
	if (names == NULL || vals == NULL)
		goto out;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = n;
	if (ethtool(fd, e->ifname, names) != 0 || ethtool(fd, e->ifname, vals) != 0)
		goto out;
	unsigned found = 0;
	for (uint32_t i = 0; i < n && i < names->len && i < vals->n_stats; i++) {
		const char *s = (const char *)names->data + (size_t)i * ETH_GSTRING_LEN;
		for (int k = 0; k < NET_ENA_NCOUNTERS; k++) {
			if (strncmp(s, net_ena_names[k], ETH_GSTRING_LEN) == 0) {
				e->v[k] = vals->data[i];
				found |= 1u << k;
			}
		}
	}
	e->have = found == (1u << NET_ENA_NCOUNTERS) - 1;
out:
	free(vals);
	free(names);
}

int net_ena_read(const struct sockaddr *local, struct net_ena *e, char *why, size_t why_len)
{
	memset(e, 0, sizeof *e);
	if (find_ifname(local, e->ifname, sizeof e->ifname) != 0) {
		snprintf(why, why_len, "no interface holds the client's address");
		return -1;
	}
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, why_len, "%s: socket: %s", e->ifname, strerror(errno));
		return -1;
	}
	struct ethtool_drvinfo info = {.cmd = ETHTOOL_GDRVINFO};
	if (ethtool(fd, e->ifname, &info) != 0)
		snprintf(why, why_len, "%s: no driver statistics (%s)", e->ifname, strerror(errno));
	else if (info.n_stats == 0 || info.n_stats > MAX_STATS)
		snprintf(why, why_len, "%s (%.32s): no allowance counters", e->ifname, info.driver);
	else {
		read_stats(fd, e, info.n_stats);
		if (!e->have)
			snprintf(why, why_len, "%s (%.32s): no allowance counters", e->ifname,
				 info.driver);
	}
	close(fd);
	return 0;
}

bool net_ena_rise(const struct net_ena *before, const struct net_ena *after, char *text, size_t len)
{
	bool rose = false;
	size_t at = 0;
	text[0] = '\0';
	for (int k = 0; k < NET_ENA_NCOUNTERS && at < len; k++) {
		/* a counter that went down (the driver reset) is no rise */
		uint64_t d = after->v[k] >= before->v[k] ? after->v[k] - before->v[k] : 0;
		rose |= d > 0;
		int w = snprintf(text + at, len - at, "%s%s=+%llu", k ? "," : "", net_ena_names[k],
				 (unsigned long long)d);
		at += w > 0 ? (size_t)w : 0;
	}
	return rose;
}
