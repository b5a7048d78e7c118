/* CSV reporter: the schema's header row, then one row per result (RFC 4180 quoting). */
#include "peak_report.h"

#include <math.h>
#include <string.h>

static void put_text(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void put_num(FILE *out, double v)
{
	char buf[48];
	fputs(peak_report_num(v, buf, sizeof(buf)), out);
}

static int csv_begin(struct peak_reporter *r, const struct peak_context *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < peak_result_ncolumns; i++)
		fprintf(r->out, "%s%s", i ? "," : "", peak_result_columns[i]);
	for (size_t i = 0; r->hosts && i < peak_result_nhost_columns; i++)
		fprintf(r->out, ",%s", peak_result_host_columns[i]);
	fputc('\n', r->out);
	return ferror(r->out) ? -1 : 0;
}

static int csv_record(struct peak_reporter *r, const struct peak_result *res)
{
	FILE *out = r->out;
	const struct peak_summary *s = &res->summary;
	bool have = s->n > 0;

	put_text(out, res->suite);
	fputc(',', out);
	put_text(out, res->test);
	fputc(',', out);
	put_text(out, res->variant);
	fputc(',', out);
	if (res->threads)
		fprintf(out, "%u", res->threads);
	fputc(',', out);
	if (res->has_block)
		fprintf(out, "%llu", (unsigned long long)res->block_bytes);
	fputc(',', out);
	put_text(out, res->metric);
	fputc(',', out);
	put_text(out, res->unit);
	fprintf(out, ",%zu,", s->n);
	const double stats[] = {
		have ? s->mean : NAN,     have ? s->stddev : NAN,   have ? s->min : NAN,
		have ? s->median : NAN,   have ? s->max : NAN,
		s->has_ci ? s->ci95_low : NAN, s->has_ci ? s->ci95_high : NAN,
		res->p50, res->p90, res->p99, res->p999, res->theoretical, res->efficiency,
	};
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		put_num(out, stats[i]);
		fputc(',', out);
	}
	put_text(out, res->baseline_tool);
	fputc(',', out);
	put_num(out, res->baseline);
	fputc(',', out);
	put_text(out, res->flags);
	if (r->hosts) {
		fputc(',', out);
		put_text(out, res->host);
		fputc(',', out);
		put_text(out, res->peer);
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}

static int csv_end(struct peak_reporter *r, const struct peak_context *ctx)
{
	(void)ctx;
	return ferror(r->out) ? -1 : 0;
}

const struct peak_reporter_ops peak_report_csv = {
	.name = "csv",
	.begin = csv_begin,
	.record = csv_record,
	.end = csv_end,
};
