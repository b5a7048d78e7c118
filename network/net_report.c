/* netbench's results: throughput is bytes counted at the receiver over the receiver's
 * first-to-last arrival window (decimal Gbit/s); latency rows summarise every timed
 * round trip from the histogram, never total time / messages. */
#include "net_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_result.h"
#include "peak_row_flags.h"
#include "peak_stats.h"

int net_point_init(struct net_point *pt, enum net_test test, uint32_t nconns, uint32_t block_bytes,
		   unsigned reps)
{
	memset(pt, 0, sizeof *pt);
	pt->test = test;
	pt->nconns = nconns;
	pt->block_bytes = block_bytes;
	pt->reps = reps;
	pt->gbps = calloc(reps, sizeof(double));
	pt->conn_gbps = calloc((size_t)reps * nconns, sizeof(double));
	pt->cpu_snd = calloc(reps, sizeof(double));
	pt->cpu_rcv = calloc(reps, sizeof(double));
	pt->loss_pct = calloc(reps, sizeof(double));
	pt->tps = calloc(reps, sizeof(double));
	if (net_test_is_latency(test)) {
		pt->hist = malloc(sizeof *pt->hist);
		pt->rep_hist = malloc(sizeof *pt->rep_hist);
		if (pt->hist == NULL || pt->rep_hist == NULL)
			return -1;
		peak_hist_init(pt->hist);
		peak_hist_init(pt->rep_hist);
	}
	if (!pt->gbps || !pt->conn_gbps || !pt->cpu_snd || !pt->cpu_rcv || !pt->loss_pct ||
	    !pt->tps)
		return -1;
	return 0;
}

void net_point_free(struct net_point *pt)
{
	free(pt->gbps);
	free(pt->conn_gbps);
	free(pt->cpu_snd);
	free(pt->cpu_rcv);
	free(pt->loss_pct);
	free(pt->tps);
	free(pt->hist);
	free(pt->rep_hist);
	memset(pt, 0, sizeof *pt);
}

static double gbit(uint64_t bytes, uint64_t ns)
{
	return ns > 0 ? (double)bytes * 8.0 / (double)ns : NAN;
}

void net_point_add(struct net_point *pt, const struct net_rep *rep)
{
	if (pt->done >= pt->reps)
		return;
	unsigned r = pt->done++;
	uint64_t first = UINT64_MAX, last = 0, bytes = 0, cpu_s = 0, cpu_r = 0, head = 0;
	uint64_t sent = 0, lost = 0;
	double tps = 0;
	for (uint32_t i = 0; i < rep->nconns; i++) {
		const struct net_conn_stats *rc = &rep->rcv[i], *sc = &rep->snd[i];
		if (rc->bytes > 0 && rc->first_ns < first) {
			first = rc->first_ns;
			head = rc->first_bytes;
		}
		if (rc->last_ns > last)
			last = rc->last_ns;
		bytes += rc->bytes;
		cpu_s += sc->cpu_ns;
		cpu_r += rc->cpu_ns;
		/* What arrived at first_ns came in before the window opened: not counted. */
		pt->conn_gbps[i * pt->reps + r] =
		    gbit(rc->bytes - rc->first_bytes, rc->last_ns - rc->first_ns);
		pt->retrans += sc->retrans;
		if (sc->gso != 0)
			pt->gso = true;
		pt->reordered += rc->reordered + sc->reordered;
		pt->duplicated += rc->duplicated;
		if (net_test_is_latency(pt->test)) {
			sent += sc->packets;
			lost += sc->lost;
			uint64_t el = sc->last_ns - sc->first_ns;
			if (el > 0)
				tps += (double)(sc->packets - sc->lost) * 1e9 / (double)el;
		} else {
			sent += sc->packets;
			lost += rc->lost;
		}
	}
	uint64_t window = last > first ? last - first : 0;
	pt->gbps[r] = gbit(bytes - head, window);
	pt->cpu_snd[r] = rep->wall_ns ? (double)cpu_s * 100.0 / (double)rep->wall_ns : NAN;
	/* The receivers' CPU over their own arrival window. */
	pt->cpu_rcv[r] = window ? (double)cpu_r * 100.0 / (double)window : NAN;
	pt->loss_pct[r] = sent ? (double)lost * 100.0 / (double)sent : 0.0;
	pt->tps[r] = tps;
	pt->sent += sent;
	pt->lost += lost;
	pt->rcv_bytes_last = bytes;
	if (pt->hist != NULL) {
		peak_hist_merge(pt->hist, pt->rep_hist);
		peak_hist_init(pt->rep_hist);
	}
}

static void base_row(struct peak_result *r, const struct net_point *pt, const char *variant,
		     const char *metric, const char *unit)
{
	peak_result_init(r, "network", net_test_name(pt->test), variant, metric, unit);
	r->threads = pt->nconns;
	r->block_bytes = pt->block_bytes;
	r->has_block = true;
	if (pt->flags[0] != '\0')
		peak_result_flag(r, pt->flags);
}

static void flagf(struct peak_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void flagf(struct peak_result *r, const char *fmt, ...)
{
	char f[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f, sizeof f, fmt, ap);
	va_end(ap);
	peak_result_flag(r, f);
}

static int emit(struct peak_output *out, struct peak_result *r, const double *samples, size_t n)
{
	if (samples != NULL)
		peak_result_set_samples(r, samples, n);
	peak_result_finish(r);
	return peak_output_record(out, r);
}

/* Throughput's main row: receivers' Gbit/s per repetition, the theoretical and its source,
 * bytes, retransmits, GSO. */
static void main_throughput(const struct net_point *pt, const struct net_theory *th,
			    bool bytes_mode, const char *proto, struct peak_result *main)
{
	base_row(main, pt, proto, "throughput", "Gbit/s");
	main->theoretical = th->gbps;
	char src[48];
	snprintf(src, sizeof src, "theoretical=%s", th->source);
	peak_result_flag(main, src);
	if (bytes_mode)
		flagf(main, "bytes=%.0f", (double)pt->rcv_bytes_last);
	if (!net_test_is_udp(pt->test))
		flagf(main, "retrans=%.0f", (double)pt->retrans);
	if (pt->gso)
		peak_result_flag(main, "udp_gso");
	peak_result_set_samples(main, pt->gbps, pt->done);
	peak_result_finish(main);
	peak_row_flag_of_baseline(main, &th->baseline);
}

static void main_latency(const struct net_point *pt, const char *proto, struct peak_result *main)
{
	const struct peak_hist *h = pt->hist;
	base_row(main, pt, proto, "latency", "us");
	/* n counts round trips of all repetitions: min, max and percentiles are those of
	 * single messages (sockperf, netperf); no per-repetition samples are attached. */
	struct peak_summary *s = &main->summary;
	s->n = (size_t)h->n;
	if (h->n > 0) {
		s->mean = peak_hist_mean(h) / 1e3;
		s->stddev = peak_hist_stddev(h) / 1e3;
		s->min = (double)h->min / 1e3;
		s->max = (double)h->max / 1e3;
		s->median = (double)peak_hist_percentile(h, 50) / 1e3;
		s->cv = s->mean > 0 ? s->stddev / s->mean : 0;
		if (h->n > 1) {
			double half =
			    peak_stats_t95((size_t)h->n - 1) * s->stddev / sqrt((double)h->n);
			s->ci95_low = s->mean - half;
			s->ci95_high = s->mean + half;
			s->has_ci = true;
		}
		main->p50 = s->median;
		main->p90 = (double)peak_hist_percentile(h, 90) / 1e3;
		main->p99 = (double)peak_hist_percentile(h, 99) / 1e3;
		main->p999 = (double)peak_hist_percentile(h, 99.9) / 1e3;
		flagf(main, "p99.99=%.3fus", (double)peak_hist_percentile(h, 99.99) / 1e3);
	}
	peak_result_finish(main);
}

void net_point_main(const struct net_point *pt, const struct net_theory *th, bool bytes_mode,
		    struct peak_result *main)
{
	const char *proto = net_proto_for(pt->test)->name;
	if (net_test_is_latency(pt->test))
		main_latency(pt, proto, main);
	else
		main_throughput(pt, th, bytes_mode, proto, main);
}

int net_point_rest(const struct net_point *pt, struct peak_output *out)
{
	const char *proto = net_proto_for(pt->test)->name;
	struct peak_result r;
	int rc = 0;
	if (net_test_is_latency(pt->test)) {
		base_row(&r, pt, proto, "transaction_rate", "trans/s");
		rc |= emit(out, &r, pt->tps, pt->done);
	}
	for (uint32_t i = 0; !net_test_is_latency(pt->test) && pt->nconns > 1 && i < pt->nconns;
	     i++) {
		char variant[32];
		snprintf(variant, sizeof variant, "%s/conn%u", proto, (unsigned)i);
		base_row(&r, pt, variant, "throughput_conn", "Gbit/s");
		rc |= emit(out, &r, pt->conn_gbps + (size_t)i * pt->reps, pt->done);
	}
	if (net_test_is_udp(pt->test)) {
		base_row(&r, pt, proto, "loss", "%");
		flagf(&r, "lost=%.0f", (double)pt->lost);
		flagf(&r, "sent=%.0f", (double)pt->sent);
		flagf(&r, "reordered=%.0f", (double)pt->reordered);
		flagf(&r, "duplicated=%.0f", (double)pt->duplicated);
		rc |= emit(out, &r, pt->loss_pct, pt->done);
	}
	base_row(&r, pt, proto, "cpu_sender", "%");
	rc |= emit(out, &r, pt->cpu_snd, pt->done);
	base_row(&r, pt, proto, "cpu_receiver", "%");
	rc |= emit(out, &r, pt->cpu_rcv, pt->done);
	return rc ? -1 : 0;
}

