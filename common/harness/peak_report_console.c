/* Console reporter: the context block, then an aligned table, one row per result as it
 * arrives (so a long sweep shows progress). */
#include "peak_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct console_state {
	bool header_done;
};

/* Context keys worth a line on the console; the full block is in the JSON output. */
static const char *const console_keys[] = {
	"cpu.model", "cpu.isa", "cpu.identity", "cpu.identity_note", "cpu.allowed", "cpu.ghz.measured", "cpu.ghz.nominal",
	"mem.total_bytes", "os.kernel", "hypervisor", "cloud.provider", "clocksource", "thp",
	"git.revision", "timestamp", "openblas.config", "openblas.threads", "warnings",
};

static int console_begin(struct peak_reporter *r, const struct peak_context *ctx)
{
	r->state = calloc(1, sizeof(struct console_state));
	if (!r->state)
		return -1;
	for (size_t i = 0; i < sizeof(console_keys) / sizeof(console_keys[0]); i++) {
		const char *v = peak_context_get(ctx, console_keys[i]);
		if (v && *v && strcmp(console_keys[i], "cloud.provider") == 0) {
			/* One line for the three cloud keys (docs/cloud.md). */
			const char *t = peak_context_get(ctx, "cloud.instance_type");
			const char *s = peak_context_get(ctx, "cloud.source");
			fprintf(r->out, "# %-18s %s, instance type %s (%s)\n", "cloud", v,
				t ? t : "unknown", s ? s : "unknown");
		} else if (v && *v)
			fprintf(r->out, "# %-18s %s\n", console_keys[i], v);
	}
	return ferror(r->out) ? -1 : 0;
}

static const char *fmt(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100000 || (fabs(v) < 0.01 && v != 0))
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.2f", v);
	return buf;
}

static int console_record(struct peak_reporter *r, const struct peak_result *res)
{
	struct console_state *st = r->state;
	const struct peak_summary *s = &res->summary;
	char mean[32], sd[32], med[32], theo[32], eff[32], block[32], thr[16], p99[32], n[24];

	if (st && !st->header_done) {
		fprintf(r->out, "%-8s %-14s %-20s %4s %8s %-10s %5s %10s %9s %10s %10s %10s %6s  %s\n",
			"suite", "test", "variant", "thr", "block", "metric", "n", "mean", "stddev",
			"median", "p99", "peak", "eff%", "unit / flags");
		st->header_done = true;
	}
	snprintf(thr, sizeof(thr), res->threads ? "%u" : "-", res->threads);
	if (res->has_block)
		peak_format_size(res->block_bytes, block, sizeof(block));
	else
		snprintf(block, sizeof(block), "-");
	bool have = s->n > 0;
	snprintf(n, sizeof(n), have ? "%zu" : "-", s->n); /* the repetitions run (--ci) */
	snprintf(eff, sizeof(eff), "%s", "-");
	if (isfinite(res->efficiency))
		snprintf(eff, sizeof(eff), "%.1f", 100.0 * res->efficiency);
	fprintf(r->out, "%-8s %-14s %-20s %4s %8s %-10s %5s %10s %9s %10s %10s %10s %6s  %s%s%s\n",
		res->suite, res->test, res->variant, thr, block, res->metric, n,
		fmt(have ? s->mean : NAN, mean, sizeof(mean)),
		fmt(have ? s->stddev : NAN, sd, sizeof(sd)),
		fmt(have ? s->median : NAN, med, sizeof(med)), fmt(res->p99, p99, sizeof(p99)),
		fmt(res->theoretical, theo, sizeof(theo)), eff, res->unit,
		res->flags[0] ? " " : "", res->flags);
	if (r->hosts)
		fprintf(r->out, "%8s %s%s%s\n", "", res->host, res->peer[0] ? " -> " : "", res->peer);
	return ferror(r->out) ? -1 : 0;
}

static int console_end(struct peak_reporter *r, const struct peak_context *ctx)
{
	const char *steal = peak_context_get(ctx, "steal.percent");
	if (steal && *steal)
		fprintf(r->out, "# steal time over the run: %s%%\n", steal);
	free(r->state);
	r->state = NULL;
	return ferror(r->out) ? -1 : 0;
}

const struct peak_reporter_ops peak_report_console = {
	.name = "console",
	.begin = console_begin,
	.record = console_record,
	.end = console_end,
};
