/* UDP receiver accounting. Loss is counted at the receiver against the sender's count
 * (sent over the control connection), so datagrams lost at the tail are seen too. */
#include "net_udp_acct.h"

#include <string.h>

static void bit_clear(struct net_udp_acct *a, uint64_t seq)
{
	uint64_t slot = seq % NET_ACCT_WINDOW;
	a->seen[slot / 64] &= ~(1ull << (slot % 64));
}

/* Sets the bit and returns whether it was already set. */
static int bit_test_set(struct net_udp_acct *a, uint64_t seq)
{
	uint64_t slot = seq % NET_ACCT_WINDOW;
	uint64_t mask = 1ull << (slot % 64);
	int was = (a->seen[slot / 64] & mask) != 0;
	a->seen[slot / 64] |= mask;
	return was;
}

void net_udp_acct_init(struct net_udp_acct *a)
{
	memset(a, 0, sizeof *a);
}

void net_udp_acct_add(struct net_udp_acct *a, uint64_t seq)
{
	a->received++;
	if (seq >= a->next) {
		/* Slots between the old head and seq belong to sequence numbers not seen
		 * yet: clear them so a late arrival is not taken for a duplicate. */
		if (seq - a->next >= NET_ACCT_WINDOW) {
			memset(a->seen, 0, sizeof a->seen);
		} else {
			for (uint64_t s = a->next; s < seq; s++)
				bit_clear(a, s);
		}
		bit_clear(a, seq);
		(void)bit_test_set(a, seq);
		a->next = seq + 1;
		a->unique++;
		return;
	}
	if (a->next - seq > NET_ACCT_WINDOW) {
		a->unique++;
		a->reordered++;
		return;
	}
	if (bit_test_set(a, seq)) {
		a->duplicated++;
		return;
	}
	a->unique++;
	a->reordered++;
}

uint64_t net_udp_acct_lost(const struct net_udp_acct *a, uint64_t sent)
{
	uint64_t expected = sent != 0 ? sent : a->next;
	return a->unique >= expected ? 0 : expected - a->unique;
}
