/* UDP receiver accounting: unique, lost, reordered and duplicated datagrams from their
 * sequence numbers, with a sliding window so memory stays fixed. */
#ifndef NET_UDP_ACCT_H
#define NET_UDP_ACCT_H

#include <stdint.h>

/* Sequence numbers further than this behind the highest one seen are counted as
 * reordered without a duplicate check (their bit has left the window). */
#define NET_ACCT_WINDOW 65536u

struct net_udp_acct {
	uint64_t next;     /* highest sequence number seen + 1; 0 before the first */
	uint64_t received; /* datagrams, duplicates included */
	uint64_t unique;
	uint64_t reordered;  /* arrived after a higher sequence number (first copy only) */
	uint64_t duplicated; /* copies of a sequence number already seen */
	uint64_t seen[NET_ACCT_WINDOW / 64];
};

void net_udp_acct_init(struct net_udp_acct *a);
void net_udp_acct_add(struct net_udp_acct *a, uint64_t seq);
/* Datagrams lost out of `sent` (the sender's count; 0 = use the highest sequence seen). */
uint64_t net_udp_acct_lost(const struct net_udp_acct *a, uint64_t sent);

#endif
