/* netbench's results: repetitions of one point (test x size x connections) turned into
 * schema rows (throughput, per-connection throughput, loss, CPU, latency, transactions). */
#ifndef NET_REPORT_H
#define NET_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "net_client.h"
#include "net_proto.h"
#include "peak_hist.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"

struct net_point {
	enum net_test test;
	uint32_t nconns;
	uint32_t block_bytes;
	unsigned reps, done;
	double *gbps;      /* summed receiver throughput per rep */
	double *conn_gbps; /* [conn * reps + rep] */
	double *cpu_snd;   /* % of one CPU, summed over the client's threads */
	double *cpu_rcv;   /* same for the server's threads */
	double *loss_pct;
	double *tps; /* latency: round trips per second, summed over connections */
	uint64_t retrans, sent, lost, reordered, duplicated, rcv_bytes_last;
	struct peak_hist *hist;     /* latency: every timed round trip of every rep (ns) */
	struct peak_hist *rep_hist; /* latency: the current rep, filled by net_client_run */
	bool gso;                   /* udp senders used UDP_SEGMENT */
	char flags[64];             /* flags of every row of the point (steal, steal_pct, oversubscribed) */
};

/* The theoretical throughput every throughput row is held against. */
struct net_theory {
	double gbps;        /* NAN when unknown */
	const char *source; /* "memcpy", "link", "config", "published", "unknown" */
	/* The instance type's published baseline when gbps is its published burst (another
	 * host only): the rows' of_baseline=R. source unknown otherwise. */
	struct peak_value baseline;
};

struct peak_config;
/* Fill th (and context keys netbench.*) for a loopback or a remote server; cfg is the run's
 * peaks.conf (peak_bench_config), read for a remote link's speed. */
void net_theory_measure(struct net_theory *th, bool loopback, const struct peak_sysinfo *si,
			const struct peak_config *cfg, struct peak_context *ctx);

int net_point_init(struct net_point *pt, enum net_test test, uint32_t nconns, uint32_t block_bytes,
		   unsigned reps);
/* Account one repetition (rep_hist already holds its round trips). */
void net_point_add(struct net_point *pt, const struct net_rep *rep);
/* The point's rows: main rebuilt as the main row (throughput or latency, summarised and
 * finished, not recorded; its samples point into pt), then net_point_rest hands the rows
 * after it to out (0, or -1 when writing failed). */
void net_point_main(const struct net_point *pt, const struct net_theory *th, bool bytes_mode,
		    struct peak_result *main);
int net_point_rest(const struct net_point *pt, struct peak_output *out);
void net_point_free(struct net_point *pt);

#endif
