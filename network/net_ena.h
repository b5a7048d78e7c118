/* The ENA driver's allowance counters (AWS): how many packets the instance's network
 * allowances queued or dropped, read before and after a sustained run through the
 * SIOCETHTOOL ioctl (what ethtool -S reads; no ethtool binary needed). */
#ifndef NET_ENA_H
#define NET_ENA_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define NET_ENA_NCOUNTERS 3 /* bw_in, bw_out, pps allowance exceeded */

struct net_ena {
	char ifname[IF_NAMESIZE]; /* the interface the run's traffic leaves by */
	bool have;                /* the driver has the counters */
	uint64_t v[NET_ENA_NCOUNTERS];
};

/* The counters' names, in net_ena's order. */
extern const char *const net_ena_names[NET_ENA_NCOUNTERS];

/* Read the counters of the interface that holds the local address local (the control
 * connection's own end). 0 with e->have set or not; -1 when no interface holds it (a
 * note in why, why_len). */
int net_ena_read(const struct sockaddr *local, struct net_ena *e, char *why, size_t why_len);

/* The counters' rise from before to after as text ("bw_in_allowance_exceeded=+0,...",
 * len bytes); true when any rose. */
bool net_ena_rise(const struct net_ena *before, const struct net_ena *after, char *text,
		  size_t len);

#endif
