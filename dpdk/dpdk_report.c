/* dpdkbench results: per point and direction, Rx Gbit/s at L1 (frame + 20 bytes of
 * preamble and inter-frame gap) and L2 (frame with FCS), Mpps, loss % from sequence
 * numbers, offered Tx Mpps, and latency percentiles; then the seed's console tables. */
#include "dpdk_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peak_bench.h"
#include "peak_result.h"

#define MAX_REPS PEAK_BENCH_MAX_REPS

struct dir_samples {
	double l1[MAX_REPS], l2[MAX_REPS], mpps[MAX_REPS], loss[MAX_REPS];
};

struct dpdk_report_buf {
	struct dir_samples fwd, back;
	double tx[MAX_REPS], p50s[MAX_REPS];
};

int dpdk_report_init(struct dpdk_report *r, struct peak_output *out, enum dpdk_role role,
		     const struct dpdk_port *port)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->role = role;
	r->port = port;
	r->min_cpu_share = NAN;
	r->buf = malloc(sizeof(*r->buf));
	return r->buf ? 0 : -1;
}

void dpdk_report_free(struct dpdk_report *r)
{
	free(r->buf);
	r->buf = NULL;
	free(r->rows);
	r->rows = NULL;
	r->nrows = r->cap = 0;
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

/* Rates of one direction in one rep: packets and frame bytes over the receiver's window. */
static void rates(uint64_t pkts, uint64_t bytes, double window_s, double *l1, double *l2,
		  double *mpps)
{
	if (pkts < 2 || window_s <= 0) {
		*l1 = *l2 = *mpps = 0;
		return;
	}
	*mpps = (double)pkts / window_s / 1e6;
	*l2 = (double)bytes * 8.0 / window_s / 1e9;
	*l1 = (double)(bytes + pkts * DPDK_L1_EXTRA_BYTES) * 8.0 / window_s / 1e9;
}

/* Frames lost according to the sequence numbers; counts what cannot be explained. */
static uint64_t counted_loss(uint64_t sent, uint64_t sum_next, uint64_t gaps, uint64_t late,
			     uint64_t *bogus)
{
	if (sum_next > sent || late > gaps) {
		*bogus += (sum_next > sent ? sum_next - sent : 0) + (late > gaps ? late - gaps : 0);
		return 0;
	}
	return gaps - late + (sent - sum_next);
}

static void theoretical(const struct dpdk_report *r, uint32_t size, double *l1, double *l2,
			double *mpps)
{
	*l1 = *l2 = *mpps = NAN;
	if (r->port->is_virtual || r->port->link_mbps == 0)
		return;
	double gbps = r->port->link_mbps / 1000.0;
	*l1 = gbps;
	*l2 = gbps * size / (size + DPDK_L1_EXTRA_BYTES);
	*mpps = gbps * 1e3 / ((size + DPDK_L1_EXTRA_BYTES) * 8.0);
}

static void flag_noise(const struct dpdk_report *r, struct peak_result *res)
{
	if (r->noise.steal) {
		peak_result_flag(res, "steal");
		if (r->noise.steal_pct[0])
			peak_result_flag(res, r->noise.steal_pct);
	}
	/* Busy-polling lcores got less than 95% of their CPUs: another process ran there. The
	 * share goes with it, rounded down, as the harness's contended does. */
	if (!isnan(r->noise.cpu_share) && r->noise.cpu_share < 0.95) {
		peak_result_flag(res, "preempted");
		peak_result_flag_pct(res, "cpu_share_pct", 100.0 * r->noise.cpu_share, false);
	}
}

/* A finished row: the one before it goes to the output, this one waits (the last of a point
 * is the harness's to record). */
static int record(struct dpdk_report *r, const struct peak_result *res)
{
	int rc = r->has_pending ? peak_output_record(r->out, &r->pending) : 0;
	r->pending = *res;
	r->has_pending = true;
	return rc;
}

static int emit(struct dpdk_report *r, const struct dpdk_point *pt, const char *test,
		const char *variant, const char *metric, const char *unit, const double *v,
		size_t n, double theo)
{
	struct peak_result res;
	peak_result_init(&res, "dpdk", test, variant, metric, unit);
	res.threads = pt->lcores;
	res.block_bytes = pt->size;
	res.has_block = true;
	peak_result_set_samples(&res, v, n);
	res.theoretical = theo;
	if (r->port->is_virtual)
		peak_result_flag(&res, "vdev");
	flag_noise(r, &res);
	peak_result_finish(&res);
	return record(r, &res);
}

static int emit_latency(struct dpdk_report *r, const struct dpdk_point *pt, const char *test,
			const char *variant, const double *p50s, size_t n,
			const struct peak_hist *hist)
{
	struct peak_result res;
	peak_result_init(&res, "dpdk", test, variant, "latency", "us");
	res.threads = pt->lcores;
	res.block_bytes = pt->size;
	res.has_block = true;
	peak_result_set_samples(&res, p50s, n);
	res.p50 = (double)peak_hist_percentile(hist, 50) / 1e3;
	res.p90 = (double)peak_hist_percentile(hist, 90) / 1e3;
	res.p99 = (double)peak_hist_percentile(hist, 99) / 1e3;
	res.p999 = (double)peak_hist_percentile(hist, 99.9) / 1e3;
	if (r->port->is_virtual)
		peak_result_flag(&res, "vdev");
	flag_noise(r, &res);
	peak_result_finish(&res);
	return record(r, &res);
}

/* Rows of one direction: L1 and L2 Gbit/s, Mpps, and loss % when sequence numbers exist. */
static int emit_dir(struct dpdk_report *r, const struct dpdk_point *pt, const char *dir,
		    const char *base, const struct dir_samples *s, size_t n, bool with_loss)
{
	char test[48], variant[64];
	double t1, t2, tm;
	theoretical(r, pt->size, &t1, &t2, &tm);
	int rc = 0;
	(void)snprintf(test, sizeof(test), "rx_%s", dir);
	(void)snprintf(variant, sizeof(variant), "%s-l1", base);
	rc |= emit(r, pt, test, variant, "throughput", "Gbit/s", s->l1, n, t1);
	(void)snprintf(variant, sizeof(variant), "%s-l2", base);
	rc |= emit(r, pt, test, variant, "throughput", "Gbit/s", s->l2, n, t2);
	rc |= emit(r, pt, test, base, "throughput", "Mpps", s->mpps, n, tm);
	if (with_loss) {
		(void)snprintf(test, sizeof(test), "loss_%s", dir);
		rc |= emit(r, pt, test, base, "loss", "%", s->loss, n, NAN);
	}
	return rc;
}

static struct dpdk_summary_row *new_row(struct dpdk_report *r, const struct dpdk_point *pt)
{
	if (r->nrows == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct dpdk_summary_row *rows = realloc(r->rows, cap * sizeof(*rows));
		if (rows == NULL)
			return NULL;
		r->rows = rows;
		r->cap = cap;
	}
	struct dpdk_summary_row *row = &r->rows[r->nrows++];
	row->pt = *pt;
	row->dut_l1 = row->tst_l1 = row->dut_mpps = row->tst_mpps = NAN;
	row->p50_us = row->p90_us = row->p99_us = row->loss_pct = NAN;
	return row;
}

/* Per rep: the forward direction at the dut and the return (or loopback) at the tester. */
static void fill_samples(struct dpdk_report *r, const struct dpdk_rep *reps, size_t n, bool sink,
			 struct dir_samples *fwd, struct dir_samples *back, double *tx_mpps)
{
	struct dpdk_totals *t = &r->totals;
	for (size_t i = 0; i < n; i++) {
		const struct dpdk_rep *rep = &reps[i];
		uint64_t sent = rep->tst.tx_pkts;
		tx_mpps[i] = rep->gen_s > 0 ? (double)sent / rep->gen_s / 1e6 : 0;
		if (rep->has_dut) {
			const struct dpdk_ctl_body *d = &rep->dut;
			rates(d->rx_pkts, d->rx_bytes, (double)d->window_ns / 1e9, &fwd->l1[i],
			      &fwd->l2[i], &fwd->mpps[i]);
			uint64_t lost =
			    counted_loss(sent, d->sum_next, d->gaps, d->late, &t->bogus);
			fwd->loss[i] = sent ? 100.0 * (double)lost / (double)sent : 0;
			t->fwd_sent += sent;
			t->fwd_received += d->rx_pkts;
			t->fwd_lost += lost;
		}
		const struct dpdk_counters *c = &rep->tst;
		double window = (double)(c->last_rx_tsc - c->first_rx_tsc) / (double)rep->tsc_hz;
		rates(c->rx_pkts, c->rx_bytes, window, &back->l1[i], &back->l2[i], &back->mpps[i]);
		if (r->role == DPDK_ROLE_MINIMAL) {
			back->loss[i] = NAN;
			continue;
		}
		if (sink)
			continue; /* nothing comes back from a dut that only counts */
		uint64_t lost = counted_loss(sent, c->sum_next, c->gaps, c->late, &t->bogus);
		back->loss[i] = sent ? 100.0 * (double)lost / (double)sent : 0;
		t->rt_sent += sent;
		t->rt_received += c->rx_pkts;
		t->rt_lost += lost;
	}
}

int dpdk_report_point(struct dpdk_report *r, const struct dpdk_point *pt,
		      const struct dpdk_rep *reps, size_t nreps, const struct peak_hist *hist,
		      const struct dpdk_noise *noise, struct peak_result *last)
{
	r->noise = *noise;
	if (!isnan(noise->cpu_share) &&
	    (isnan(r->min_cpu_share) || noise->cpu_share < r->min_cpu_share))
		r->min_cpu_share = noise->cpu_share;
	static const size_t cap = MAX_REPS;
	size_t n = nreps < cap ? nreps : cap;
	struct dir_samples *fwd = &r->buf->fwd, *back = &r->buf->back;
	double *tx = r->buf->tx, *p50s = r->buf->p50s;
	memset(r->buf, 0, sizeof(*r->buf));
	r->has_pending = false;
	struct dpdk_summary_row *row = new_row(r, pt);
	if (row == NULL)
		return -1;
	fill_samples(r, reps, n, r->role == DPDK_ROLE_TESTER && !pt->bi, fwd, back, tx);
	bool has_dut = n && reps[0].has_dut;
	bool tester = r->role == DPDK_ROLE_TESTER;
	char base[64], rate[24] = "";
	/* A rate-limited run is another workload than a saturated one: its variant says so. */
	if (r->rate_mpps > 0)
		(void)snprintf(rate, sizeof(rate), "-r%g", r->rate_mpps);
	(void)snprintf(base, sizeof(base), "%s-flows%u-q%u-%s%s", r->port->short_name,
		       (unsigned)pt->flows, (unsigned)pt->queues, pt->bi && tester ? "bi" : "uni",
		       rate);
	const char *self = r->role == DPDK_ROLE_MINIMAL ? "minimal"
			   : tester                     ? "tester"
							: "loopback";
	int rc = 0;
	if (has_dut) {
		rc |= emit_dir(r, pt, "dut", base, fwd, n, true);
		row->dut_l1 = mean_of(fwd->l1, n);
		row->dut_mpps = mean_of(fwd->mpps, n);
		row->loss_pct = mean_of(fwd->loss, n);
	}
	if (!tester || pt->bi) {
		bool seq = r->role != DPDK_ROLE_MINIMAL;
		rc |= emit_dir(r, pt, self, base, back, n, seq);
		row->tst_l1 = mean_of(back->l1, n);
		row->tst_mpps = mean_of(back->mpps, n);
		if (seq)
			row->loss_pct = mean_of(back->loss, n);
	}
	char test[48];
	(void)snprintf(test, sizeof(test), "tx_%s", self);
	rc |= emit(r, pt, test, base, "throughput", "Mpps", tx, n, NAN);
	if (noise->ci_wide[0]) /* the rounds were repeated on tx's samples: its flag */
		peak_result_flag(&r->pending, noise->ci_wide);
	if (hist->n > 0) {
		/* Samples: each rep's median; percentiles: over every rep's latencies. */
		double p50 = (double)peak_hist_percentile(hist, 50) / 1e3;
		for (size_t i = 0; i < n; i++)
			p50s[i] = reps[i].p50_us;
		(void)snprintf(test, sizeof(test), "latency_%s", tester ? "roundtrip" : "loopback");
		rc |= emit_latency(r, pt, test, base, p50s, n, hist);
		row->p50_us = p50;
		row->p90_us = (double)peak_hist_percentile(hist, 90) / 1e3;
		row->p99_us = (double)peak_hist_percentile(hist, 99) / 1e3;
		r->totals.latency_samples += hist->n;
	}
	*last = r->pending; /* there is one: the tx row at least */
	r->has_pending = false;
	return rc ? -1 : 0;
}

void dpdk_report_context(const struct dpdk_report *r, struct peak_context *ctx)
{
	const struct dpdk_totals *t = &r->totals;
	if (r->role == DPDK_ROLE_TESTER) {
		peak_context_set_num(ctx, "dpdk_fwd_packets_sent", (double)t->fwd_sent);
		peak_context_set_num(ctx, "dpdk_fwd_packets_received", (double)t->fwd_received);
		peak_context_set_num(ctx, "dpdk_fwd_packets_lost", (double)t->fwd_lost);
	}
	peak_context_set_num(ctx, "dpdk_packets_sent", (double)t->rt_sent);
	peak_context_set_num(ctx, "dpdk_packets_received", (double)t->rt_received);
	peak_context_set_num(ctx, "dpdk_packets_lost", (double)t->rt_lost);
	peak_context_set_num(ctx, "dpdk_packets_unexplained", (double)t->bogus);
	peak_context_set_num(ctx, "dpdk_latency_samples", (double)t->latency_samples);
	peak_context_set_num(ctx, "dpdk_min_cpu_share", r->min_cpu_share);
}
