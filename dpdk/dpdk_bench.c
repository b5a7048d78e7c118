/* dpdkbench's point loop on the harness: see dpdk_bench.h. The harness owns the warm-up
 * call, the --reps repetitions, the steal window, the standard flags, the row and the
 * progress line; a repetition is one round on the point's lcores (dpdk_bench_round: with a
 * dut, framed by START and STATS), and the kernel's row hook turns the point's rounds into
 * dpdk_report's rows (rx per direction at L1/L2/Mpps, loss, offered tx, latency). */
#include "dpdk_bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_cycles.h>

/* What the hooks share: the run, the report and the point being measured. */
struct sweep {
	struct dpdk_bench *b;
	struct dpdk_report *rep;
	struct dpdk_point cur;
};

/* One point's rounds (the kernel's r->state). */
struct point_state {
	struct dpdk_rep *reps; /* the measured rounds: room for peak_opts_max_reps */
	struct dpdk_rep warm;
	struct peak_hist hist;    /* latency over the measured rounds */
	struct peak_hist scratch; /* the warm-up's, not reported */
	double cpu0_s, cpu1_s;    /* process CPU time at the warm-up's start, the last end */
	uint64_t tsc0, tsc1;
};

/* CPU time of the process so far (user + system), -1 when unknown. Busy-polling lcores
 * should get all of their CPU: less means something else ran there. */
static double cpu_seconds(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* sizes outermost, then flows, then queues: dpdkbench's order. */
static int point(void *suite_data, unsigned threads, size_t i, struct peak_bench_point *p)
{
	struct sweep *sw = suite_data;
	const struct dpdk_bench_opts *o = sw->b->o;
	size_t nq = o->queues.n, nf = o->flows.n;
	(void)threads;
	if (i >= o->sizes.n * nf * nq)
		return 0;
	struct dpdk_point *pt = &sw->cur;
	pt->size = (uint32_t)o->sizes.v[i / (nf * nq)];
	pt->flows = (uint32_t)o->flows.v[i / nq % nf];
	pt->queues = (uint32_t)o->queues.v[i % nq];
	pt->bi = o->bi;
	if (pt->queues > pt->flows)
		pt->queues = pt->flows;
	pt->lcores = pt->queues < sw->b->nlcores ? pt->queues : sw->b->nlcores;
	p->data = pt;
	p->block_bytes = pt->size;
	p->has_block = true;
	return 1;
}

static int setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct sweep *sw = r->suite_data;
	struct dpdk_bench *b = sw->b;
	const struct dpdk_point *pt = r->point->data;
	struct point_state *ps = calloc(1, sizeof(*ps));
	if (ps != NULL)
		ps->reps = calloc(peak_opts_max_reps(&b->o->common), sizeof(*ps->reps));
	if (ps == NULL || ps->reps == NULL) {
		free(ps);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	}
	peak_hist_init(&ps->hist);
	peak_hist_init(&ps->scratch);
	struct dpdk_addrs addrs = {.src_mac = b->port->mac, .dst_mac = b->ctl.addrs.dst_mac};
	dpdk_pkt_build_templates(&b->tmpl, &addrs, pt->flows, pt->size);
	r->state = ps;
	return 0;
}

/* One round. The warm-up call (caches, mempool, the dut's lcores) is a shorter round into
 * a scratch histogram; a repetition's figure is the offered tx rate in Mpps, the figure
 * every role has. The CPU-share window spans the warm-up and every repetition. */
static int measure(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	struct sweep *sw = r->suite_data;
	struct point_state *ps = r->state;
	const struct dpdk_point *pt = r->point->data;
	bool warm = r->rep == PEAK_BENCH_NOT_MEASURED;
	double time_s = sw->b->o->time_s;
	if (warm) {
		time_s /= 4.0;
		time_s = time_s < 0.05 ? 0.05 : (time_s > 0.5 ? 0.5 : time_s);
		ps->cpu0_s = cpu_seconds();
		ps->tsc0 = rte_rdtsc();
	}
	struct dpdk_rep *rep = warm ? &ps->warm : &ps->reps[r->rep];
	if (dpdk_bench_round(sw->b, pt, time_s, rep, warm ? &ps->scratch : &ps->hist, e) != 0)
		return -1;
	ps->tsc1 = rte_rdtsc();
	ps->cpu1_s = cpu_seconds();
	*value = rep->gen_s > 0 ? (double)rep->tst.tx_pkts / rep->gen_s / 1e6 : 0;
	return 0;
}

/* The point's rows from its rounds. The harness records a point's row after this hook, and
 * dpdkbench's last row is latency (or tx without samples): so every row but the last goes
 * out here, and the last replaces the harness's (whose samples, tx Mpps, are the tx row's).
 * The harness's steal flag (and steal_pct) goes on every row; "preempted" (with
 * cpu_share_pct) is dpdk's own CPU-share flag. */
static int row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
	       struct peak_bench_err *e)
{
	struct sweep *sw = r->suite_data;
	struct point_state *ps = r->state;
	const struct dpdk_point *pt = r->point->data;
	struct dpdk_noise noise = {.steal = strstr(res->flags, "steal") != NULL, .cpu_share = NAN};
	if (!peak_result_flag_item(res->flags, "steal_pct", noise.steal_pct,
				   sizeof noise.steal_pct))
		noise.steal_pct[0] = '\0';
	if (!peak_result_flag_item(res->flags, "ci_wide", noise.ci_wide, sizeof noise.ci_wide))
		noise.ci_wide[0] = '\0';
	double wall_s = (double)(ps->tsc1 - ps->tsc0) / (double)sw->b->tsc_hz;
	if (ps->cpu0_s >= 0 && ps->cpu1_s >= 0 && wall_s > 0)
		noise.cpu_share = (ps->cpu1_s - ps->cpu0_s) / (wall_s * pt->lcores);
	(void)out; /* dpdk_report writes to its own output, the same peak_output */
	if (dpdk_report_point(sw->rep, pt, ps->reps, r->nreps, &ps->hist, &noise, res) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot write the results");
	return 0;
}

static void teardown(struct peak_bench_run *r)
{
	struct point_state *ps = r->state;
	if (ps == NULL)
		return;
	free(ps->reps);
	free(ps);
	r->state = NULL;
}

#define DPDK_KERNEL(role)                                                                          \
	{                                                                                          \
		.name = role, .test = "tx_" role, .metric = "throughput", .unit = "Mpps",          \
		.setup = setup, .measure = measure, .row = row, .teardown = teardown               \
	}

/* One kernel per generating role (run with cfg.only = the role): its row is the offered
 * rate, replaced in `row` by the point's last row. */
static const struct peak_bench_kernel kernels[] = {
    DPDK_KERNEL("loopback"),
    DPDK_KERNEL("tester"),
    DPDK_KERNEL("minimal"),
};

int dpdk_bench_sweep(struct dpdk_bench *b, struct dpdk_report *rep, struct peak_bench_err *e)
{
	const struct dpdk_bench_opts *o = b->o;
	b->with_dut = o->role == DPDK_ROLE_TESTER;
	if (b->with_dut && dpdk_bench_hello(b, e) != 0 && e->code == PEAK_EXIT_FAIL)
		return -1; /* no dut: nobody to tell */
	int rc = e->code == PEAK_EXIT_OK ? 0 : -1;
	if (rc == 0) {
		struct sweep sw = {.b = b, .rep = rep};
		struct peak_bench_suite suite = {
		    .name = "dpdk",
		    .kernels = kernels,
		    .nkernels = sizeof(kernels) / sizeof(kernels[0]),
		    .point = point,
		    .data = &sw,
		};
		struct peak_bench_cfg cfg = {.common = &o->common, .only = o->role_name};
		rc = peak_bench_sweep(&suite, &cfg, rep->out, NULL, e);
	}
	if (b->with_dut) /* also after an error: a dut that answered HELLO should not wait */
		dpdk_bench_quit(b);
	return rc;
}
