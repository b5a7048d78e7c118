#include "cluster_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peak_stats.h"

#define MAX_SAMPLES 16

struct stored_row {
	char test[32], variant[32], metric[16], unit[16], host[64], peer[64];
	long threads, block_bytes;
	double samples[MAX_SAMPLES];
	size_t n;
	int has_pct, has_minmax;
	double pct[4], minmax[2];
	char flags[512];
};

struct cluster_out {
	char path[4096];
	const struct cluster_node *nodes;
	int nnodes;
	struct stored_row *rows;
	size_t nrows, cap;
};

struct cluster_out *cluster_out_open(const char *path, const struct cluster_node *nodes, int n)
{
	struct cluster_out *o = calloc(1, sizeof *o);
	if (o == NULL)
		return NULL;
	snprintf(o->path, sizeof o->path, "%s", path);
	o->nodes = nodes;
	o->nnodes = n;
	return o;
}

int cluster_out_add(struct cluster_out *o, const struct cluster_row *r)
{
	if (o->nrows == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		struct stored_row *nr = realloc(o->rows, cap * sizeof *nr);
		if (nr == NULL)
			return -1;
		o->rows = nr;
		o->cap = cap;
	}
	struct stored_row *s = &o->rows[o->nrows++];
	memset(s, 0, sizeof *s);
	snprintf(s->test, sizeof s->test, "%s", r->test);
	snprintf(s->variant, sizeof s->variant, "%s", r->variant);
	snprintf(s->metric, sizeof s->metric, "%s", r->metric);
	snprintf(s->unit, sizeof s->unit, "%s", r->unit);
	snprintf(s->host, sizeof s->host, "%s", r->host);
	snprintf(s->peer, sizeof s->peer, "%s", r->peer ? r->peer : "");
	snprintf(s->flags, sizeof s->flags, "%s", r->flags);
	s->threads = r->threads;
	s->block_bytes = r->block_bytes;
	s->n = r->n > MAX_SAMPLES ? MAX_SAMPLES : r->n;
	memcpy(s->samples, r->samples, s->n * sizeof(double));
	if (r->pct != NULL) {
		s->has_pct = 1;
		memcpy(s->pct, r->pct, sizeof s->pct);
	}
	if (r->minmax != NULL) {
		s->has_minmax = 1;
		memcpy(s->minmax, r->minmax, sizeof s->minmax);
	}
	return 0;
}

void cluster_out_flag(struct cluster_out *o, const char *test, const char *metric,
		      const char *host, const char *peer, const char *flag)
{
	for (size_t i = 0; i < o->nrows; i++) {
		struct stored_row *s = &o->rows[i];
		if (strcmp(s->test, test) != 0 || strcmp(s->metric, metric) != 0 ||
		    strcmp(s->host, host) != 0 ||
		    strcmp(s->peer, peer ? peer : "") != 0)
			continue;
		size_t len = strlen(s->flags);
		snprintf(s->flags + len, sizeof s->flags - len, "%s%s", len ? ";" : "", flag);
	}
}

void cluster_out_drop(struct cluster_out *o, const char *test, const char *host, const char *peer)
{
	size_t k = 0;
	for (size_t i = 0; i < o->nrows; i++) {
		const struct stored_row *s = &o->rows[i];
		if (strcmp(s->test, test) == 0 && strcmp(s->host, host) == 0 &&
		    strcmp(s->peer, peer) == 0)
			continue;
		o->rows[k++] = o->rows[i];
	}
	o->nrows = k;
}

/* JSON string: the names come from a hostfile, so quote what JSON needs. */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jnum(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void jlong(FILE *f, long v)
{
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%ld", v);
}

static void write_context(FILE *f, const struct cluster_out *o)
{
	char warn[512] = "";
	static const char *what[3] = {"cpu.model", "kernel", "isa"};
	for (int k = 0; k < 3; k++) {
		for (int i = 1; i < o->nnodes; i++) {
			const struct cluster_node *a = &o->nodes[0], *b = &o->nodes[i];
			const char *x = k == 0 ? a->cpu : k == 1 ? a->kernel : a->flags;
			const char *y = k == 0 ? b->cpu : k == 1 ? b->kernel : b->flags;
			if (strcmp(x, y) != 0) {
				size_t len = strlen(warn);
				snprintf(warn + len, sizeof warn - len, "%snodes differ in %s (%s: %s; %s: %s)",
					 len ? ";" : "", what[k], a->name, x, b->name, y);
				break;
			}
		}
	}
	fputs("  \"context\": {\"suite\": \"cluster\", \"nodes.count\": ", f);
	fprintf(f, "%d, \"nodes\": [", o->nnodes);
	for (int i = 0; i < o->nnodes; i++) {
		const struct cluster_node *n = &o->nodes[i];
		fputs(i ? ",\n    {\"host\": " : "\n    {\"host\": ", f);
		jstr(f, n->name);
		fputs(", \"cpu.model\": ", f);
		jstr(f, n->cpu);
		fputs(", \"kernel\": ", f);
		jstr(f, n->kernel);
		fputs(", \"isa\": ", f);
		jstr(f, n->flags);
		fprintf(f, ", \"cpu.logical\": %d}", (int)n->cpus);
	}
	fputs("],\n    \"warnings\": ", f);
	jstr(f, warn);
	fputs("},\n", f);
}

static void write_row(FILE *f, const struct stored_row *s)
{
	struct peak_summary sum;
	peak_stats_summarize(s->samples, s->n, &sum);
	double mn = s->has_minmax ? s->minmax[0] : sum.min;
	double mx = s->has_minmax ? s->minmax[1] : sum.max;
	double nan = NAN;
	fputs("    {\"suite\": \"cluster\", \"test\": ", f);
	jstr(f, s->test);
	fputs(", \"variant\": ", f);
	jstr(f, s->variant);
	fputs(", \"threads\": ", f);
	jlong(f, s->threads);
	fputs(", \"block_bytes\": ", f);
	jlong(f, s->block_bytes);
	fputs(", \"metric\": ", f);
	jstr(f, s->metric);
	fputs(", \"unit\": ", f);
	jstr(f, s->unit);
	fprintf(f, ", \"n\": %zu, \"mean\": ", s->n);
	jnum(f, s->n ? sum.mean : nan);
	fputs(", \"stddev\": ", f);
	jnum(f, s->n > 1 ? sum.stddev : nan);
	fputs(", \"min\": ", f);
	jnum(f, s->n ? mn : nan);
	fputs(", \"median\": ", f);
	jnum(f, s->n ? sum.median : nan);
	fputs(", \"max\": ", f);
	jnum(f, s->n ? mx : nan);
	fputs(", \"ci95_low\": ", f);
	jnum(f, sum.has_ci ? sum.ci95_low : nan);
	fputs(", \"ci95_high\": ", f);
	jnum(f, sum.has_ci ? sum.ci95_high : nan);
	static const char *pn[4] = {"p50", "p90", "p99", "p999"};
	for (int i = 0; i < 4; i++) {
		fprintf(f, ", \"%s\": ", pn[i]);
		jnum(f, s->has_pct ? s->pct[i] : nan);
	}
	fputs(", \"theoretical\": null, \"efficiency\": null, \"baseline_tool\": \"\", "
	      "\"baseline\": null, \"flags\": ",
	      f);
	jstr(f, s->flags);
	fputs(", \"host\": ", f);
	jstr(f, s->host);
	fputs(", \"peer\": ", f);
	jstr(f, s->peer);
	fputs(", \"samples\": [", f);
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			fputs(", ", f);
		jnum(f, s->samples[i]);
	}
	fputs("]}", f);
}

int cluster_out_flush(struct cluster_out *o)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", o->path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fputs("{\n", f);
	write_context(f, o);
	fputs("  \"results\": [\n", f);
	for (size_t i = 0; i < o->nrows; i++) {
		write_row(f, &o->rows[i]);
		fputs(i + 1 < o->nrows ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, o->path) != 0)
		return -1;
	return 0;
}

void cluster_out_close(struct cluster_out *o)
{
	if (o == NULL)
		return;
	free(o->rows);
	free(o);
}
